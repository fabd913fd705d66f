package skillcard

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTemplateExpand(t *testing.T) {
	testCases := []struct {
		name     string
		template string
		input    map[string]any
		want     []string
	}{
		{"quotes group words", `tool "a b" 'c  d' e`, nil, []string{"tool", "a b", "c  d", "e"}},
		{"placeholder inside quotes", `tool "--name=<n> x"`, map[string]any{"n": "v w"}, []string{"tool", "--name=v w x"}},
		{"embedded placeholders", `tool --range=<lo>..<hi>`, map[string]any{"lo": "1", "hi": "9"}, []string{"tool", "--range=1..9"}},
		{"angle brackets that are not placeholders", `tool a<b 1<2> <> <-x>`, nil, []string{"tool", "a<b", "1<2>", "<>", "<-x>"}},
		{"empty quoted word", `tool ""`, nil, []string{"tool", ""}},
		{"multi-word segment", `tool [--from <a> --to <b>] end`, map[string]any{"a": "x"}, []string{"tool", "end"}},
		{"segment kept", `tool [--from <a> --to <b>]`, map[string]any{"a": "x", "b": "y"}, []string{"tool", "--from", "x", "--to", "y"}},
		{"flag segment with value form", `tool [--dry-run=yes]`, map[string]any{"dry-run": true}, []string{"tool", "--dry-run=yes"}},
		{"brackets inside quotes are literal", `tool "[x]"`, nil, []string{"tool", "[x]"}},
		{"tabs and newlines separate", "tool\ta\nb", nil, []string{"tool", "a", "b"}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := parseTemplate(tc.template)
			require.NoError(t, err)
			got, err := tmpl.expand(tc.input)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestTemplateParseErrors(t *testing.T) {
	testCases := []struct{ template, msg string }{
		{"", "empty command"},
		{"   ", "empty command"},
		{"[tool]", "the first word must be the program"},
		{"<p> x", "the first word must be the program"},
		{"bin<p> x", "the first word must be the program"},
		{`"" x`, "the first word must be the program"},
		{"tool []", "empty optional segment"},
		{"tool [a", "never closed"},
		{"tool a]", "closes no '['"},
		{"tool [a [b]]", "nested '['"},
		{"tool 'a", "unterminated ' quote"},
	}
	for _, tc := range testCases {
		t.Run(tc.template, func(t *testing.T) {
			_, err := parseTemplate(tc.template)
			require.ErrorIs(t, err, errTemplate)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}

// No argument may start with '-' because of an input value, however the
// placeholder sits in its word (issue 12, item 3).
func TestTemplateRefusesValuesThatStartAnOption(t *testing.T) {
	num := func(s string) json.Number { return json.Number(s) }
	testCases := []struct {
		name     string
		template string
		input    map[string]any
		refused  string   // the placeholder the error names; "" when allowed
		want     []string // argv when allowed
	}{
		// Refused.
		{"whole word", `tool <a>`, map[string]any{"a": "--output=/tmp/x"}, "a", nil},
		{"single dash", `tool <a>`, map[string]any{"a": "-"}, "a", nil},
		{"suffix", `tool <a>.txt`, map[string]any{"a": "--output=/tmp/x"}, "a", nil},
		{"suffix in quotes", `tool "<a> file"`, map[string]any{"a": "-rf"}, "a", nil},
		{"two in one word, first makes the dash", `tool <a><b>`, map[string]any{"a": "-", "b": "-exec=/bin/sh"}, "a", nil},
		{"two in one word, first empty", `tool <a><b>`, map[string]any{"a": "", "b": "--exec=/bin/sh"}, "b", nil},
		{"three in one word, two empty", `tool <a><b><c>`, map[string]any{"a": "", "b": "", "c": "-x"}, "c", nil},
		{"empty value before template dash", `tool <a>-x`, map[string]any{"a": ""}, "a", nil},
		{"empty values before template dash", `tool <a><b>--all`, map[string]any{"a": "", "b": ""}, "a", nil},
		{"empty value between template dashes", `tool -<a>-x`, map[string]any{"a": ""}, "a", nil},
		{"template dash, value dash", `tool -<a>`, map[string]any{"a": "-exec=/bin/sh"}, "a", nil},
		{"template dashes, value dash", `tool --<a>`, map[string]any{"a": "-x"}, "a", nil},
		{"negative integer", `tool <n>`, map[string]any{"n": num("-1")}, "n", nil},
		{"negative zero", `tool <n>`, map[string]any{"n": num("-0")}, "n", nil},
		{"negative float with suffix", `tool <n>px`, map[string]any{"n": num("-1.5e3")}, "n", nil},
		{"negative number in optional segment", `tool [--count <n>]`, map[string]any{"n": num("-5")}, "n", nil},
		{"later word refused too", `tool ok <a> <b>`, map[string]any{"a": "fine", "b": "--x"}, "b", nil},

		// Allowed.
		{"value after a literal prefix", `tool --out=<a>`, map[string]any{"a": "-x"}, "", []string{"tool", "--out=-x"}},
		{"negative number as an option value", `tool --n=<n>`, map[string]any{"n": num("-1")}, "", []string{"tool", "--n=-1"}},
		{"value after a non-dash prefix", `tool x<a>`, map[string]any{"a": "-y"}, "", []string{"tool", "x-y"}},
		{"dash later in the word", `tool <a><b>`, map[string]any{"a": "x", "b": "-exec"}, "", []string{"tool", "x-exec"}},
		{"template option with value", `tool -<a>`, map[string]any{"a": "v"}, "", []string{"tool", "-v"}},
		{"dash inside a value", `tool <a>`, map[string]any{"a": "a-b --c"}, "", []string{"tool", "a-b --c"}},
		{"positive number", `tool <n>`, map[string]any{"n": num("1e-5")}, "", []string{"tool", "1e-5"}},
		{"boolean true", `tool <a><b>`, map[string]any{"a": "", "b": true}, "", []string{"tool", "true"}},
		{"boolean false", `tool <b>`, map[string]any{"b": false}, "", []string{"tool", "false"}},
		{"array", `tool <a>`, map[string]any{"a": []any{"-x"}}, "", []string{"tool", `["-x"]`}},
		{"empty value, empty argument", `tool <a><b>`, map[string]any{"a": "", "b": ""}, "", []string{"tool", ""}},
		{"empty value before non-dash text", `tool <a>x`, map[string]any{"a": ""}, "", []string{"tool", "x"}},
		{"template flag segment", `tool [--dry-run]`, map[string]any{"dry-run": true}, "", []string{"tool", "--dry-run"}},
		{"unicode minus is not a dash", `tool <a>`, map[string]any{"a": "\u2212x"}, "", []string{"tool", "\u2212x"}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := parseTemplate(tc.template)
			require.NoError(t, err)
			got, err := tmpl.expand(tc.input)
			if tc.refused == "" {
				require.NoError(t, err)
				require.Equal(t, tc.want, got)
				return
			}
			require.ErrorIs(t, err, ErrOptionInjection)
			require.ErrorIs(t, err, ErrBadInput)
			require.ErrorIs(t, err, ErrBindingFailed)
			var ie *InputError
			require.ErrorAs(t, err, &ie)
			require.Equal(t, tc.refused, ie.Placeholder)
			require.Contains(t, ie.Reason, "<"+tc.refused+">")
			require.Contains(t, ie.Reason, "read as an option")
			require.Nil(t, got)
		})
	}
}
