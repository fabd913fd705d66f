package escrow_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

func TestParseAmount(t *testing.T) {
	testCases := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"0.05", 50_000, false},
		{"1", 1_000_000, false},
		{"12.345678", 12_345_678, false},
		{"0", 0, false},
		{"0.000001", 1, false},
		{"007.5", 7_500_000, false},
		{"9223372036854.775807", math.MaxInt64, false},
		{"9223372036854.775808", 0, true},
		{"9223372036855", 0, true},
		{"99999999999999999999", 0, true},
		{"", 0, true},
		{"-1", 0, true},
		{"+1", 0, true},
		{"1.0000001", 0, true},
		{"1e3", 0, true},
		{"1E-2", 0, true},
		{".5", 0, true},
		{"5.", 0, true},
		{"1.2.3", 0, true},
		{" 1", 0, true},
		{"1,5", 0, true},
		{"NaN", 0, true},
		{"0x10", 0, true},
		{"１", 0, true}, // full-width digit
	}
	for _, tc := range testCases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := escrow.ParseAmount(tc.in)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestFormatAmount(t *testing.T) {
	testCases := []struct {
		in   int64
		want string
	}{
		{50_000, "0.05"},
		{1_000_000, "1"},
		{12_345_678, "12.345678"},
		{0, "0"},
		{1, "0.000001"},
		{10_000_000, "10"},
		{1_500_000, "1.5"},
		{math.MaxInt64, "9223372036854.775807"},
		{-50_000, "-0.05"},
		{math.MinInt64, "-9223372036854.775808"},
	}
	for _, tc := range testCases {
		t.Run(tc.want, func(t *testing.T) {
			require.Equal(t, tc.want, escrow.FormatAmount(tc.in))
			if tc.in >= 0 {
				back, err := escrow.ParseAmount(tc.want)
				require.NoError(t, err)
				require.Equal(t, tc.in, back)
			}
		})
	}
}

func FuzzParseAmountNoPanic(f *testing.F) {
	for _, s := range []string{"0.05", "1", "12.345678", "-1", "1e3", "9223372036854.775807", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := escrow.ParseAmount(s)
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, v, int64(0))
		back, err := escrow.ParseAmount(escrow.FormatAmount(v))
		require.NoError(t, err)
		require.Equal(t, v, back)
	})
}
