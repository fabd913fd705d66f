package controlapi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPageCutStopsAtTheByteBudget(t *testing.T) {
	recs := []string{strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40), "d"}
	testCases := []struct {
		name          string
		limit, budget int
		n             int
		more          bool
	}{
		{"limit first", 2, 1 << 20, 2, true},
		{"all fit", 10, 1 << 20, 4, false},
		{"budget first", 10, 90, 2, true},
		{"one record over the budget still makes a page", 10, 10, 1, true},
		{"limit equals the records", 4, 1 << 20, 4, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			n, more := PageCut(recs, tc.limit, tc.budget)
			require.Equal(t, tc.n, n)
			require.Equal(t, tc.more, more)
		})
	}
}

func TestParseListLimit(t *testing.T) {
	for in, want := range map[string]int{"": DefaultListLimit, "0": DefaultListLimit, "7": 7, "1000": 1000, "5000": MaxListLimit} {
		got, err := parseListLimit(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"-1", "x", "1.5"} {
		_, err := parseListLimit(in)
		require.ErrorIs(t, err, ErrBadRequest, in)
	}
}
