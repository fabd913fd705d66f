// Package safetext makes text that a peer sent safe to show a person: it
// replaces the characters that change how the rest of a line reads without
// being seen (bidirectional overrides and isolates, zero-width characters)
// and terminal controls (C0 and C1, which can move the cursor or recolour
// a terminal) with a visible escape such as \u202e. A seller's output, a
// listing's description or a capability ID reaches the CLI's tables and
// the dashboard from strangers; a U+202E inside it would otherwise reorder
// what the buyer reads ("Trojan Source", CVE-2021-42574).
//
// Tab and newline are kept: they are layout, and tables need tabs. The
// dashboard applies the same rule in its own JavaScript (node/ui/assets);
// the list of characters is the one in hidden below, and the two are
// checked against each other by the dashboard's browser test.
package safetext

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// hidden reports whether r changes or hides text without showing itself.
func hidden(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f: // C0, DEL, C1
		return true
	case r == 0x061c, // ARABIC LETTER MARK
		r == 0x180e,                // MONGOLIAN VOWEL SEPARATOR
		r >= 0x200b && r <= 0x200f, // zero-width space, (non-)joiner, LRM, RLM
		r >= 0x2028 && r <= 0x202e, // line/paragraph separators, embeddings and overrides
		r >= 0x2060 && r <= 0x2064, // word joiner, invisible operators
		r >= 0x2066 && r <= 0x2069, // isolates
		r == 0xfeff:                // zero-width no-break space (BOM)
		return true
	}
	return false
}

// Escape returns s with every hidden character written as \uXXXX, and
// every invalid UTF-8 byte as \xXX, so nothing in it acts unseen.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || hidden(r) {
			return true
		}
		i += n
	}
	return false
}

// Writer escapes what is written through it before passing it on. It
// keeps an incomplete UTF-8 sequence at the end of one Write for the next,
// so a character split across writes is escaped (or kept) whole; Flush
// writes out such a leftover as invalid bytes. Not safe for concurrent
// use.
type Writer struct {
	w    io.Writer
	tail []byte
}

// NewWriter returns a Writer that writes the escaped text to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it on. It reports len(p) when everything
// was written, since the escaped text is longer than p.
func (sw *Writer) Write(p []byte) (int, error) {
	buf := append(sw.tail, p...)
	cut := len(buf)
	// Keep back a trailing sequence that may still be completed.
	for i := 1; i < utf8.UTFMax && i <= len(buf); i++ {
		c := buf[len(buf)-i]
		if c < 0x80 {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(buf[len(buf)-i:]) {
				cut = len(buf) - i
			}
			break
		}
	}
	sw.tail = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(sw.w, Escape(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes out a leftover incomplete sequence, escaped.
func (sw *Writer) Flush() error {
	if len(sw.tail) == 0 {
		return nil
	}
	t := sw.tail
	sw.tail = nil
	var b bytes.Buffer
	for _, c := range t {
		fmt.Fprintf(&b, `\x%02x`, c)
	}
	_, err := sw.w.Write(b.Bytes())
	return err
}
