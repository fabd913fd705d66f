package safetext

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestEscape(t *testing.T) {
	testCases := []struct {
		name, in, want string
	}{
		{"plain", "total 0.05 credits", "total 0.05 credits"},
		{"unicode kept", "résumé 東京 🙂", "résumé 東京 🙂"},
		{"tab and newline kept", "a\tb\nc", "a\tb\nc"},
		{"right-to-left override", "invoice_\u202Egpj.exe", `invoice_\u202egpj.exe`},
		{"isolates", "\u2066x\u2069", `\u2066x\u2069`},
		{"zero width", "pay\u200Bpal\uFEFF", `pay\u200bpal\ufeff`},
		{"terminal escape", "\x1b[2Jgone", `\u001b[2Jgone`},
		{"C1 control", "a\u009bb", `a\u009bb`},
		{"invalid utf-8", "a\xffb", `a\xffb`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Escape(tc.in))
		})
	}
}

func TestWriterKeepsSplitCharacters(t *testing.T) {
	in := "ab\u202Ecd東京"
	for cut := 0; cut <= len(in); cut++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		n, err := w.Write([]byte(in[:cut]))
		require.NoError(t, err)
		require.Equal(t, cut, n)
		_, err = w.Write([]byte(in[cut:]))
		require.NoError(t, err)
		require.NoError(t, w.Flush())
		require.Equal(t, `ab\u202ecd東京`, out.String(), "split at %d", cut)
	}
}

func TestWriterFlushEscapesLeftover(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	_, err := w.Write([]byte("x\xe6\x9d"))
	require.NoError(t, err)
	require.NoError(t, w.Flush())
	require.Equal(t, `x\xe6\x9d`, out.String())
}

func FuzzEscapeNoPanic(f *testing.F) {
	f.Add("a\u202Eb")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		require.True(t, utf8.ValidString(got))
		for _, r := range got {
			require.False(t, hidden(r), "hidden %U left in %q", r, got)
		}
		if !needsEscape(s) {
			require.Equal(t, s, got)
		}
		require.False(t, strings.ContainsRune(got, 0x202e))
	})
}
