package builtin

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

var loremWords = strings.Fields(`market agent seller buyer price quote escrow network peer capability
handler verify output input summary sentence rank graph weight node local remote protocol signed release
refund window timer ledger credit balance listing rating latency cache provider record bootstrap relay
the a of and to in is that for on with as by it this be are was from at or an`)

// randomText builds a text of about words words in sentences of 1..maxSent
// words, in paragraphs.
func randomText(rng *rand.Rand, words, maxSent int) string {
	var b strings.Builder
	n := 0
	for n < words {
		l := min(words-n, 1+rng.IntN(maxSent))
		for i := 0; i < l; i++ {
			w := loremWords[rng.IntN(len(loremWords))]
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			if i == l-1 {
				b.WriteString([]string{".", "!", "?", "."}[rng.IntN(4)])
			} else if rng.IntN(10) == 0 {
				b.WriteString(",")
			}
			b.WriteString(" ")
		}
		n += l
		if rng.IntN(6) == 0 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

func summarize(t testing.TB, r *Registry, capID, text string) (string, error) {
	t.Helper()
	out, err := run(t, r, capID, map[string]any{"text": text})
	if err != nil {
		return "", err
	}
	var o summaryOutput
	require.NoError(t, json.Unmarshal(out, &o))
	return o.Summary, nil
}

func TestSummaryBounds(t *testing.T) {
	short, medium, long := summaryLengths()[0], summaryLengths()[1], summaryLengths()[2]
	testCases := []struct {
		l      summaryLength
		n      int
		lo, hi int
	}{
		{short, 4, 1, 0}, {short, 5, 1, 1}, {short, 12, 1, 2}, {short, 100, 1, 20},
		{medium, 3, 1, 0}, {medium, 4, 1, 1}, {medium, 30, 3, 9}, {medium, 100, 10, 30},
		{long, 1, 1, 0}, {long, 2, 1, 1}, {long, 100, 25, 60}, {long, 7, 2, 4},
	}
	for _, tc := range testCases {
		lo, hi := summaryBounds(tc.l, tc.n)
		require.Equal(t, [2]int{tc.lo, tc.hi}, [2]int{lo, hi}, "%s n=%d", tc.l.capID, tc.n)
	}
	// The bounds hold in float64 arithmetic too, for every n.
	for _, l := range summaryLengths() {
		for n := 1; n <= 5000; n++ {
			lo, hi := summaryBounds(l, n)
			if lo > hi {
				continue
			}
			require.GreaterOrEqual(t, float64(lo), float64(l.minPct)/100*float64(n))
			require.LessOrEqual(t, float64(hi), float64(l.maxPct)/100*float64(n))
			require.LessOrEqual(t, float64(hi)/float64(n), float64(l.maxPct)/100)
		}
	}
}

func TestSummarizeWithinBoundsForAllSizes(t *testing.T) {
	r := newTestRegistry(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range summaryLengths() {
		for _, n := range []int{5, 6, 12, 20, 37, 100, 333, 1000, 4000} {
			for _, maxSent := range []int{3, 25, 200} {
				text := randomText(rng, n, maxSent)
				got, err := summarize(t, r, l.capID, text)
				require.NoError(t, err, "%s n=%d", l.capID, n)
				lo, hi := summaryBounds(l, n)
				c := verify.WordCount(got)
				require.True(t, c >= lo && c <= hi, "%s n=%d maxSent=%d: %d words, want %d..%d", l.capID, n, maxSent, c, lo, hi)
			}
		}
	}
}

func TestSummarizeShortInputs(t *testing.T) {
	r := newTestRegistry(t)
	text := "The escrow holds the buyer's payment until the verifier accepts the output."
	require.Len(t, strings.Fields(text), 12)
	got, err := summarize(t, r, CapSummarizeShort, text)
	require.NoError(t, err)
	require.Len(t, strings.Fields(got), 2, "a 12-word text allows at most 2 words: %q", got)
	require.True(t, strings.HasSuffix(got, "…"), got)

	for _, tc := range []struct {
		capID string
		n     int
	}{{CapSummarizeShort, 4}, {CapSummarizeMedium, 3}, {CapSummarizeLong, 1}} {
		_, err := summarize(t, r, tc.capID, strings.Repeat("word ", tc.n))
		ie := requireInputError(t, err)
		require.Contains(t, ie.Error(), fmt.Sprintf("%d words", tc.n))
	}
}

// TestSummarizeCountsWordsLikeTheVerifier: "U.S." is two words and "—" none
// for the verifier, so the bounds come from its count, not from tokens.
func TestSummarizeCountsWordsLikeTheVerifier(t *testing.T) {
	r := newTestRegistry(t)
	text := "U.S. e.g. a/b/c — — — well-known don't stop. " + strings.Repeat("More words follow here now. ", 3)
	n := verify.WordCount(text)
	require.NotEqual(t, len(strings.Fields(text)), n)
	for _, l := range summaryLengths() {
		got, err := summarize(t, r, l.capID, text)
		require.NoError(t, err)
		lo, hi := summaryBounds(l, n)
		require.True(t, verify.WordCount(got) >= lo && verify.WordCount(got) <= hi, "%s: %q", l.capID, got)
	}
}

func TestSummarizePicksCentralSentences(t *testing.T) {
	r := newTestRegistry(t)
	text := `Escrow protects the buyer and the seller in every market job. The escrow locks the payment before the job starts.
Yesterday it rained in the city and the streets were wet. The escrow releases the payment to the seller when verification passes.
A refund returns the escrow hold to the buyer when verification fails. Cats sleep a lot during warm afternoons.
The verification window decides the escrow automatically when nobody signs. Bread tastes good with butter and salt.`
	got, err := summarize(t, r, CapSummarizeLong, text)
	require.NoError(t, err)
	require.Contains(t, got, "escrow")
	require.NotContains(t, got, "Cats sleep")
}

func TestSummarizeRejections(t *testing.T) {
	r := newTestRegistry(t)
	for _, in := range []string{`{}`, `{"text":""}`, `{"text":null}`, `{"text":"one two"}`} {
		_, err := run(t, r, CapSummarizeShort, in)
		requireInputError(t, err)
	}
	_, err := summarize(t, r, CapSummarizeMedium, strings.Repeat("w ", maxSummarizeWords+1))
	requireInputError(t, err)
}
