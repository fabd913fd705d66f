package verify

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// TextLength is the "length" of the spec's length ratios: characters, not
// words (Chinese and Japanese do not separate words with spaces), counted
// by display width: after trimming surrounding whitespace, each East Asian
// wide or fullwidth character (Han, kana, Hangul, fullwidth forms) counts
// two and every other character one. A character count alone makes a
// faithful English-to-Chinese translation about 0.25x as long and fail the
// 0.3x bound; display width keeps scripts comparable.
func TextLength(s string) int {
	n := 0
	for _, r := range strings.TrimSpace(s) {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// WordCount is the spec's word_count: runs of letters and digits (with
// inner apostrophes and hyphens) count as one word each, and every Han,
// Hiragana or Katakana character counts as one word, since those scripts
// do not separate words with spaces.
func WordCount(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
			n++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if !inWord {
				n++
				inWord = true
			}
		case inWord && (r == '\'' || r == '’' || r == '-'):
			// stays in the word: don't, well-known
		default:
			inWord = false
		}
	}
	return n
}

func nonEmptyCheck(field, s string) Check {
	if strings.TrimSpace(s) == "" {
		return fail(ckNonEmpty, "%s is empty", field)
	}
	return pass(ckNonEmpty, "%d characters", TextLength(s))
}

func languageCheck(text, want string) Check {
	got := DetectLanguage(text)
	switch {
	case got == want:
		return pass(ckLanguageDetected, "detected %s", got)
	case got == "":
		return fail(ckLanguageDetected, "no language detected in the text; expected %s", want)
	}
	return fail(ckLanguageDetected, "detected %s, expected %s", got, want)
}

// verifyTextInLanguage checks a non-empty text in the language given by the
// ID's placeholder param (audio.transcribe.{lang}.text, audio.translate).
func verifyTextInLanguage(field, param string) verifier {
	return func(_ context.Context, j *job) []Check {
		var out struct {
			Text string `json:"text"`
		}
		if err := j.decode(nil, &out); err != nil {
			return decodeFailed(err)
		}
		return []Check{nonEmptyCheck(field, out.Text), languageCheck(out.Text, j.param(param))}
	}
}

// lengthRatioCheck checks lo <= len(out)/len(in) <= hi (hi <= 0: no upper bound).
func lengthRatioCheck(in, out string, lo, hi float64) Check {
	li, lo2 := TextLength(in), TextLength(out)
	if li == 0 {
		return fail(ckLengthRatio, "the input text is empty")
	}
	ratio := float64(lo2) / float64(li)
	bounds := fmt.Sprintf("between %g× and %g×", lo, hi)
	if hi <= 0 {
		bounds = fmt.Sprintf("at least %g×", lo)
	}
	if ratio < lo || hi > 0 && ratio > hi {
		return fail(ckLengthRatio, "output is %d characters, %.2f× the input's %d; it must be %s", lo2, ratio, li, bounds)
	}
	return pass(ckLengthRatio, "%.2f× the input's length (%s)", ratio, bounds)
}

func verifyTranslate(_ context.Context, j *job) []Check {
	var in, out struct {
		Text string `json:"text"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	return []Check{
		nonEmptyCheck("text", out.Text),
		lengthRatioCheck(in.Text, out.Text, 0.3, 3),
		languageCheck(out.Text, j.param("tgt")),
	}
}

// verifySummary checks lo <= words(summary)/words(input) <= hi.
func verifySummary(lo, hi float64, needNonEmpty bool) verifier {
	return func(_ context.Context, j *job) []Check {
		var in struct {
			Text string `json:"text"`
		}
		var out struct {
			Summary string `json:"summary"`
		}
		if err := j.decode(&in, &out); err != nil {
			return decodeFailed(err)
		}
		var checks []Check
		if needNonEmpty {
			checks = append(checks, nonEmptyCheck("summary", out.Summary))
		}
		wi, ws := WordCount(in.Text), WordCount(out.Summary)
		ratio := 0.0
		if wi > 0 {
			ratio = float64(ws) / float64(wi)
		}
		bounds := fmt.Sprintf("between %g%% and %g%%", lo*100, hi*100)
		if lo == 0 {
			bounds = fmt.Sprintf("at most %g%%", hi*100)
		}
		// Compare word counts, not the float ratio, so 20 of 100 words is
		// exactly 20% with no rounding surprise.
		ok := wi > 0 && float64(ws) >= lo*float64(wi)-1e-9 && float64(ws) <= hi*float64(wi)+1e-9
		if !ok {
			return append(checks, fail(ckWordCount, "summary has %d words, %.1f%% of the input's %d; it must be %s (%s)", ws, ratio*100, wi, bounds, wordRange(lo, hi, wi)))
		}
		return append(checks, pass(ckWordCount, "%d of %d words (%.1f%%, %s)", ws, wi, ratio*100, bounds))
	}
}

func wordRange(lo, hi float64, wi int) string {
	minW := int(lo*float64(wi) + 0.999999)
	maxW := int(hi*float64(wi) + 1e-9)
	return fmt.Sprintf("%d to %d words", minW, maxW)
}

func verifyRewriteFormal(_ context.Context, j *job) []Check {
	var in, out struct {
		Text string `json:"text"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	return []Check{nonEmptyCheck("text", out.Text), lengthRatioCheck(in.Text, out.Text, 0.5, 2)}
}

func verifyRewriteCasual(_ context.Context, j *job) []Check {
	var out struct {
		Text string `json:"text"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	return []Check{nonEmptyCheck("text", out.Text)}
}

func verifyExpand(_ context.Context, j *job) []Check {
	var in, out struct {
		Text string `json:"text"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	factor, _ := strconv.Atoi(j.param("factor")) // Parse checked it
	return []Check{lengthRatioCheck(in.Text, out.Text, float64(factor)*0.8, 0)}
}
