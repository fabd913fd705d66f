package verify_test

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

type langSample struct{ lang, text string }

func readSamples(t testing.TB, name string) []langSample {
	t.Helper()
	f, err := os.Open("testdata/lang/" + name)
	require.NoError(t, err)
	defer f.Close()
	var out []langSample
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lang, text, ok := strings.Cut(line, "\t")
		require.True(t, ok, line)
		out = append(out, langSample{lang, text})
	}
	require.NoError(t, sc.Err())
	return out
}

var elevenLangs = []string{"en", "it", "es", "de", "fr", "pt", "ja", "zh", "ko", "ru", "ar"}

// TestLanguageDetectionAccuracy measures the detector on the 5-word and
// ~50-word samples and prints the table for the report. Long samples must
// all be right; short ones at least 80% overall.
func TestLanguageDetectionAccuracy(t *testing.T) {
	var table strings.Builder
	fmt.Fprintf(&table, "| language | short (5 words) | long (~50 words) | misses |\n|---|---|---|---|\n")
	totals := map[string][2]int{}
	for _, lang := range elevenLangs {
		row := map[string][2]int{}
		var misses []string
		for _, set := range []string{"short.tsv", "long.tsv"} {
			for _, s := range readSamples(t, set) {
				if s.lang != lang {
					continue
				}
				got := verify.DetectLanguage(s.text)
				r := row[set]
				r[1]++
				if got == lang {
					r[0]++
				} else {
					misses = append(misses, fmt.Sprintf("%q->%s", s.text, got))
				}
				row[set] = r
				tr := totals[set]
				tr[0] += btoi(got == lang)
				tr[1]++
				totals[set] = tr
			}
		}
		fmt.Fprintf(&table, "| %s | %d/%d | %d/%d | %s |\n", lang, row["short.tsv"][0], row["short.tsv"][1], row["long.tsv"][0], row["long.tsv"][1], strings.Join(misses, "; "))
	}
	fmt.Fprintf(&table, "| all | %d/%d | %d/%d | |\n", totals["short.tsv"][0], totals["short.tsv"][1], totals["long.tsv"][0], totals["long.tsv"][1])
	t.Log("\n" + table.String())
	require.Equal(t, totals["long.tsv"][1], totals["long.tsv"][0], "every long sample must be detected")
	require.GreaterOrEqual(t, float64(totals["short.tsv"][0]), 0.8*float64(totals["short.tsv"][1]))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestDetectLanguageScripts(t *testing.T) {
	testCases := []struct{ text, want string }{
		{"東京は日本の首都です。とても大きな町です。", "ja"},
		{"北京是中国的首都，也是一座历史悠久的城市。", "zh"},
		{"서울은 한국의 수도입니다.", "ko"},
		{"Москва — столица России.", "ru"},
		{"القاهرة هي عاصمة مصر.", "ar"},
		{"", ""},
		{"12345 !!!", ""},
	}
	for _, tc := range testCases {
		require.Equal(t, tc.want, verify.DetectLanguage(tc.text), tc.text)
	}
	require.True(t, slices.Contains(elevenLangs, verify.DetectLanguage("Das ist ein kleines Haus am See.")))
}
