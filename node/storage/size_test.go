package storage

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	testCases := []struct {
		in   string
		want uint64
		bad  bool
	}{
		{in: "0", want: 0},
		{in: "1048576", want: 1 << 20},
		{in: "512B", want: 512},
		{in: "64MiB", want: 64 << 20},
		{in: "64 MiB", want: 64 << 20},
		{in: "1GiB", want: 1 << 30},
		{in: "1.5GiB", want: 3 << 29},
		{in: "500MB", want: 500e6},
		{in: "2KB", want: 2000},
		{in: "1TiB", want: 1 << 40},
		{in: "", bad: true},
		{in: "MiB", bad: true},
		{in: "-1MiB", bad: true},
		{in: "+1", bad: true},
		{in: "1e9", bad: true},
		{in: "0x10", bad: true},
		{in: "64mib", bad: true},
		{in: "NaN", bad: true},
		{in: "Inf", bad: true},
		{in: "20000000TiB", bad: true},
		{in: "18446744073709551616", bad: true},
		{in: "1 000", bad: true},
	}
	for _, tc := range testCases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if tc.bad {
				require.Error(t, err)
				require.Contains(t, err.Error(), "size")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestFormatSize(t *testing.T) {
	for in, want := range map[uint64]string{
		0: "0 B", 512: "512 B", 1 << 10: "1 KiB", 64 << 20: "64 MiB", 3<<20 + 1<<19: "3.5 MiB", 1 << 40: "1 TiB",
	} {
		require.Equal(t, want, FormatSize(in), "%d", in)
	}
}

// FuzzParseSizeNoPanic: min_free comes from a file a person edits.
func FuzzParseSizeNoPanic(f *testing.F) {
	for _, s := range []string{"64MiB", "1.5GB", "0", "", "1e300", "999999999999999999999KiB", "\x00MiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err != nil {
			return
		}
		if s := FormatSize(v); s == "" {
			t.Fatalf("FormatSize(%d) is empty", v)
		}
	})
}
