package controlapi

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCursorRoundTrips(t *testing.T) {
	testCases := []struct {
		name string
		pos  CursorPos
	}{
		{"now", CursorPos{CreatedAt: time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC), Role: "buyer", JobID: "j-1"}},
		{"zero time", CursorPos{CreatedAt: time.Time{}.UTC(), Role: "seller", JobID: "x"}},
		{"dots and slashes in the ID", CursorPos{CreatedAt: time.Unix(1, 0).UTC(), Role: "seller", JobID: "a.b/c..d"}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeCursor(encodeCursor(tc.pos))
			require.NoError(t, err)
			require.True(t, tc.pos.CreatedAt.Equal(got.CreatedAt))
			require.Equal(t, tc.pos.Role, got.Role)
			require.Equal(t, tc.pos.JobID, got.JobID)
		})
	}
}

func TestBadCursorsAreRefused(t *testing.T) {
	b := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for name, c := range map[string]string{
		"not base64":    "%%%",
		"three parts":   b("1.buyer." + b("j")),
		"bad role":      b("1.0.admin." + b("j")),
		"bad seconds":   b("x.0.buyer." + b("j")),
		"leading zero":  b("01.0.buyer." + b("j")),
		"bad nanos":     b("1.1000000000.buyer." + b("j")),
		"empty job ID":  b("1.0.buyer."),
		"long job ID":   b("1.0.buyer." + b(string(make([]byte, maxCursorJobID+1)))),
		"too long":      string(make([]byte, maxCursor+1)),
		"padded base64": base64.URLEncoding.EncodeToString([]byte("1.0.buyer." + b("jj"))),
	} {
		_, err := decodeCursor(c)
		require.ErrorIs(t, err, ErrBadCursor, name)
	}
}

// FuzzDecodeCursorNoPanic: cursors come from the API's callers. A cursor
// that decodes names one position, which encodes back to the same cursor.
func FuzzDecodeCursorNoPanic(f *testing.F) {
	f.Add(encodeCursor(CursorPos{CreatedAt: time.Unix(1700000000, 5).UTC(), Role: "buyer", JobID: "job"}))
	f.Add("")
	f.Add("MTcwMDAwMDAwMC4wLnNlbGxlci5hbUk")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := decodeCursor(s)
		if err != nil {
			return
		}
		if again := encodeCursor(p); again != s {
			t.Fatalf("cursor %q decodes to %+v, which encodes to %q", s, p, again)
		}
	})
}
