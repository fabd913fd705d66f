package skillcard

import (
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

func TestJSNumberFormatting(t *testing.T) {
	// Expected strings from node: String(x).
	testCases := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-1.5, "-1.5"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"},
		{123e-20, "1.23e-18"}, {1e-7, "1e-7"}, {1.5e-6, "0.0000015"}, {0.30000000000000004, "0.30000000000000004"},
		{5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"}, {9007199254740993, "9007199254740992"},
		{123456.789, "123456.789"}, {-1e-7, "-1e-7"}, {2e21, "2e+21"}, {1.2345e21, "1.2345e+21"},
	}
	for _, tc := range testCases {
		require.Equal(t, tc.want, jsNumber(tc.in), "%v", tc.in)
	}
}
