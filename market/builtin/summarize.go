package builtin

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	textrank "github.com/DavidBelicza/TextRank/v2"

	"github.com/swarmwage/swarmwage/verify"
)

// text.summarize.short|medium|long
//
// Extractive: TextRank (DavidBelicza/TextRank) weighs the words of the text
// by co-occurrence; each sentence scores the sum of the weights of its
// distinct words divided by the square root of its length; sentences are
// taken best first while they fit, and printed in their original order.
//
// Words are counted as the verifier counts them (verify.WordCount: runs of
// letters and digits, each Han or kana character one word). The text is cut
// into whitespace tokens; a token's weight is its word count, and since no
// word spans whitespace the text's count is the sum of the weights. The
// summary is input tokens joined by single spaces, so its count is exact.
// The bounds of the taxonomy are
//
//	short:  1 <= words <= 20% of the input
//	medium: 10% <= words <= 30%
//	long:   25% <= words <= 60%
//
// and the handler aims at 15%, 20% and 40%. When whole sentences cannot
// reach the lower bound without passing the upper one (a text of a few long
// sentences), the best remaining sentence is cut to the words still needed
// and marked with "…". So a 12-word text gets a 2-word short summary (the
// first words of its best sentence). The only refusals (400) are texts where
// no whole number of words is inside the bounds (fewer than 5 words for
// short, fewer than 4 for medium, fewer than 2 for long) and texts over
// maxSummarizeWords words or maxSummarizeBytes bytes.

const (
	maxSummarizeWords = 60_000
	maxSummarizeBytes = 2 << 20
)

type summaryLength struct {
	capID              string
	minPct, maxPct     int // bounds of the taxonomy in percent of input words; minPct 0 means "non-empty"
	targetPct          int
	minWords, maxWords int // filled per input
}

func summaryLengths() []summaryLength {
	return []summaryLength{
		{capID: CapSummarizeShort, minPct: 0, maxPct: 20, targetPct: 15},
		{capID: CapSummarizeMedium, minPct: 10, maxPct: 30, targetPct: 20},
		{capID: CapSummarizeLong, minPct: 25, maxPct: 60, targetPct: 40},
	}
}

// summaryBounds returns the least and greatest summary word counts for an
// input of n words. Both the exact rational bound and the float64 forms a
// verifier may use (k >= p*n and k/n >= p) must hold, so a float rounding in
// the verifier cannot fail a summary at the edge.
func summaryBounds(l summaryLength, n int) (lo, hi int) {
	minR, maxR := float64(l.minPct)/100, float64(l.maxPct)/100
	fn := float64(n)
	lo = max(1, (l.minPct*n+99)/100)
	for lo <= n && (float64(lo) < minR*fn || float64(lo)/fn < minR) {
		lo++
	}
	hi = l.maxPct * n / 100
	for hi > 0 && (float64(hi) > maxR*fn || float64(hi)/fn > maxR) {
		hi--
	}
	return lo, hi
}

type summaryOutput struct {
	Summary string `json:"summary"`
}

type summarizeHandler struct{ length summaryLength }

type sentence struct {
	pos     int
	tokens  []string
	weights []int // verify.WordCount of each token
	words   int   // sum of weights
	score   float64
}

func (h summarizeHandler) Handle(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	capID := h.length.capID
	var in textInput
	if err := decodeInput(capID, input, &in); err != nil {
		return nil, err
	}
	switch {
	case in.Text == nil:
		return nil, inputErr(capID, "text is required")
	case len(*in.Text) > maxSummarizeBytes:
		return nil, inputErr(capID, fmt.Sprintf("text is %d bytes, the limit is %d", len(*in.Text), maxSummarizeBytes))
	}
	sents, n := splitSentences(*in.Text)
	if n != verify.WordCount(*in.Text) {
		return nil, fmt.Errorf("%s: word count mismatch (%d tokens words, verify counts %d)", capID, n, verify.WordCount(*in.Text))
	}
	if n > maxSummarizeWords {
		return nil, inputErr(capID, fmt.Sprintf("text has %d words, the limit is %d", n, maxSummarizeWords))
	}
	lo, hi := summaryBounds(h.length, n)
	if n == 0 || lo > hi {
		return nil, inputErr(capID, fmt.Sprintf("text has %d words; no summary length fits the bounds of %s (%d%%..%d%% of the input, at least 1 word)",
			n, capID, h.length.minPct, h.length.maxPct))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	scoreSentences(*in.Text, sents)
	target := min(hi, max(lo, int(math.Round(float64(n)*float64(h.length.targetPct)/100))))
	summary, got := pickSentences(sents, lo, hi, target)
	if got < lo || got > hi {
		// Only when tokens are so dense in words (a/b/c/d) that no cut fits.
		return nil, inputErr(capID, fmt.Sprintf("text has %d words but no extract of its sentences has %d..%d words", n, lo, hi))
	}
	return encodeOutput(capID, summaryOutput{Summary: summary})
}

// splitSentences cuts text into sentences of whitespace tokens. A sentence
// ends at a token ending in . ! or ? (closing quotes and brackets allowed),
// unless the token is a common abbreviation or an initial, and at a blank
// line. It also returns the total number of words.
func splitSentences(text string) ([]sentence, int) {
	var sents []sentence
	var cur sentence
	n := 0
	flush := func() {
		if len(cur.tokens) > 0 {
			cur.pos = len(sents)
			sents = append(sents, cur)
			cur = sentence{}
		}
	}
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		for _, tok := range strings.Fields(para) {
			w := verify.WordCount(tok)
			n += w
			cur.tokens = append(cur.tokens, tok)
			cur.weights = append(cur.weights, w)
			cur.words += w
			if endsSentence(tok) {
				flush()
			}
		}
		flush()
	}
	return sents, n
}

func endsSentence(tok string) bool {
	t := strings.TrimRight(tok, "\"'”’)]»")
	if t == "" {
		return false
	}
	last := t[len(t)-1]
	if last != '.' && last != '!' && last != '?' {
		return false
	}
	if last == '.' {
		word := strings.ToLower(strings.TrimLeft(t, "\"'“‘([«"))
		if abbreviations()[word] {
			return false
		}
		// An initial such as "J." ends no sentence.
		if r := []rune(word); len(r) == 2 && unicode.IsLetter(r[0]) {
			return false
		}
	}
	return true
}

func abbreviations() map[string]bool {
	return map[string]bool{
		"mr.": true, "mrs.": true, "ms.": true, "dr.": true, "prof.": true, "sr.": true, "jr.": true,
		"st.": true, "vs.": true, "etc.": true, "e.g.": true, "i.e.": true, "no.": true, "fig.": true,
		"inc.": true, "ltd.": true, "co.": true, "corp.": true, "approx.": true, "cf.": true,
	}
}

// scoreSentences weighs words with TextRank and scores each sentence.
func scoreSentences(text string, sents []sentence) {
	tr := textrank.NewTextRank()
	tr.Populate(text, textrank.NewDefaultLanguage(), textrank.NewDefaultRule())
	tr.Ranking(textrank.NewDefaultAlgorithm())
	weights := make(map[string]float64)
	for _, w := range textrank.FindSingleWords(tr) {
		weights[w.Word] = float64(w.Weight)
	}
	for i := range sents {
		seen := make(map[string]bool, len(sents[i].tokens))
		sum := 0.0
		for _, tok := range sents[i].tokens {
			w := strings.ToLower(strings.TrimFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
			if w != "" && !seen[w] {
				seen[w] = true
				sum += weights[w]
			}
		}
		sents[i].score = sum / math.Sqrt(float64(max(1, sents[i].words)))
	}
}

// pickSentences takes the best sentences while they fit under hi and the
// total is under target; if the total is still under lo, it cuts the best
// unused sentence to the missing number of words. It returns the summary and
// its word count.
func pickSentences(sents []sentence, lo, hi, target int) (string, int) {
	ranked := slices.Clone(sents)
	slices.SortStableFunc(ranked, func(a, b sentence) int { return cmp.Compare(b.score, a.score) })
	chosen := make(map[int][]string)
	total := 0
	for _, s := range ranked {
		if s.words > 0 && total < target && total+s.words <= hi {
			chosen[s.pos] = s.tokens
			total += s.words
		}
	}
	// Cut unused sentences, best first, until the lower bound is reached.
	// One is normally enough: the best unused sentence did not fit under hi,
	// so it has more words than the gap.
	goal := max(target, lo)
	for i := 0; total < lo && i < len(ranked); i++ {
		s := ranked[i]
		if _, used := chosen[s.pos]; used {
			continue
		}
		var cut []string
		for j, tok := range s.tokens {
			if total >= goal || total+s.weights[j] > hi {
				break
			}
			cut = append(cut, tok)
			total += s.weights[j]
		}
		if len(cut) == 0 {
			continue
		}
		if len(cut) < len(s.tokens) {
			cut[len(cut)-1] = strings.TrimRight(cut[len(cut)-1], ",;:") + "…"
		}
		chosen[s.pos] = cut
	}
	var b strings.Builder
	for _, s := range sents {
		for _, t := range chosen[s.pos] {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t)
		}
	}
	return b.String(), total
}
