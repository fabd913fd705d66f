package verify_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

func TestEmbeddedLists(t *testing.T) {
	coco, err := verify.Labels("coco-categories")
	require.NoError(t, err)
	require.Len(t, coco, 80)
	imagenet, err := verify.Labels("imagenet-1k")
	require.NoError(t, err)
	require.Len(t, imagenet, 1000)
	_, err = verify.Labels("birds")
	require.ErrorIs(t, err, verify.ErrUnknownCapability)

	for _, ok := range []string{"en", "it", "zh", "bh", "zu"} {
		require.True(t, verify.IsISO6391(ok), ok)
	}
	for _, bad := range []string{"EN", "eng", "xx", "", "en-US"} {
		require.False(t, verify.IsISO6391(bad), bad)
	}
}

func TestParseISO8601(t *testing.T) {
	for _, ok := range []string{"2026-01-31", "2026-01-31T12:00:00Z", "2026-01-31T12:00:00.123+02:00", "2026-01-31T12:00Z", "20260131T120000Z", "2026-01-31T12:00:00"} {
		_, err := verify.ParseISO8601(ok)
		require.NoError(t, err, ok)
	}
	for _, bad := range []string{"31/01/2026", "yesterday", "2026-13-01", "", "1706702400"} {
		_, err := verify.ParseISO8601(bad)
		require.Error(t, err, bad)
	}
}

func TestUnixTimestampSecondsOrMillis(t *testing.T) {
	sec := int64(1_767_225_600) // 2026-01-01T00:00:00Z
	require.Equal(t, time.Unix(sec, 0), verify.UnixTimestamp(sec))
	require.Equal(t, time.Unix(sec, 0), verify.UnixTimestamp(sec*1000))
}

func TestStatistic(t *testing.T) {
	data := []float64{9, 2, 4, 4, 4, 5, 5, 7}
	testCases := []struct {
		op   string
		want float64
	}{
		{"mean", 5}, {"median", 4.5}, {"variance", 4}, {"stddev", 2}, {"percentile-95", 8.3},
	}
	for _, tc := range testCases {
		got, err := verify.Statistic(tc.op, data)
		require.NoError(t, err)
		require.InDelta(t, tc.want, got, 1e-9, tc.op)
	}
	alt, ok := verify.AltStatistic("variance", data)
	require.True(t, ok)
	require.InDelta(t, 32.0/7, alt, 1e-12)
	_, ok = verify.AltStatistic("mean", data)
	require.False(t, ok)
	_, err := verify.Statistic("mode", data)
	require.Error(t, err)
	_, err = verify.Statistic("mean", nil)
	require.Error(t, err)
}

func TestWordCountAndLength(t *testing.T) {
	require.Equal(t, 4, verify.WordCount("Don't stop, well-known 42!"))
	require.Equal(t, 6, verify.WordCount("我们昨天完成"))
	require.Equal(t, 3, verify.TextLength("  abc \n"))
	require.Equal(t, 4, verify.TextLength("中文"))
}
