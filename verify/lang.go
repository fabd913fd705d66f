package verify

import (
	"sync"
	"unicode"

	"github.com/abadojack/whatlanggo"
)

// Language detection. The spec needs "language detected = X" for eleven
// languages. Five of them have their own script and are decided by
// counting letters per script: Hangul -> ko, Hiragana/Katakana -> ja, Han
// without kana -> zh, Cyrillic -> ru, Arabic -> ar. The six Latin-script
// languages (en, it, es, de, fr, pt) go to whatlanggo's trigram model,
// which is small (2.7 MB in the binary) where lingua-go embeds 124 MB.
//
// whatlanggo compares against every Latin-script language it knows, not only
// our six, so Dutch sent for German is detected as Dutch and fails, as it
// should. See /work/notes/verify-report.md for the accuracy measured on 5-
// and 50-word samples.

// minKanaShare is the share of kana among CJK letters from which a text
// counts as Japanese: Japanese prose is rarely under 20% kana, Chinese has
// none, and a stray katakana loanword in Chinese stays under it.
const minKanaShare = 0.1

// scriptCounts counts letters per script family.
type scriptCounts struct {
	latin, cyrillic, arabic, han, kana, hangul, other int
}

func countScripts(text string) scriptCounts {
	var c scriptCounts
	for _, r := range text {
		switch {
		case !unicode.IsLetter(r):
		case unicode.Is(unicode.Latin, r):
			c.latin++
		case unicode.Is(unicode.Han, r):
			c.han++
		case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
			c.kana++
		case unicode.Is(unicode.Hangul, r):
			c.hangul++
		case unicode.Is(unicode.Cyrillic, r):
			c.cyrillic++
		case unicode.Is(unicode.Arabic, r):
			c.arabic++
		default:
			c.other++
		}
	}
	return c
}

// DetectLanguage returns the ISO 639-1 code of the language of text, or ""
// when it cannot tell (no letters, or a language without a 639-1 code).
func DetectLanguage(text string) string {
	c := countScripts(text)
	cjk := c.han + c.kana + c.hangul
	best := max(c.latin, c.cyrillic, c.arabic, cjk, c.other)
	switch {
	case best == 0:
		return ""
	case best == cjk:
		switch {
		case c.hangul >= c.han+c.kana:
			return "ko"
		case float64(c.kana) >= minKanaShare*float64(c.han+c.kana):
			return "ja"
		default:
			return "zh"
		}
	case best == c.cyrillic:
		return "ru"
	case best == c.arabic:
		return "ar"
	case best == c.latin:
		return whatlanggo.DetectWithOptions(text, whatlanggo.Options{Whitelist: latinWhitelist()}).Lang.Iso6391()
	default:
		return whatlanggo.Detect(text).Lang.Iso6391()
	}
}

// latinWhitelist restricts whatlanggo to Latin-script languages, so a few
// foreign names in a Latin text cannot flip it to another script's model.
var latinWhitelist = sync.OnceValue(func() map[whatlanggo.Lang]bool {
	m := map[whatlanggo.Lang]bool{}
	for _, code := range []string{
		"eng", "ita", "spa", "deu", "fra", "por", "nld", "cat", "ron", "pol", "ces", "slk", "hun", "swe",
		"dan", "nob", "fin", "est", "lit", "lav", "hrv", "slv", "tur", "ind", "vie", "tgl", "afr", "epo", "lat",
	} {
		if l := whatlanggo.CodeToLang(code); l >= 0 {
			m[l] = true
		}
	}
	return m
})
