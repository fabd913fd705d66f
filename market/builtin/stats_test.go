package builtin

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
)

func statResult(t *testing.T, r *Registry, capID string, data []float64) float64 {
	t.Helper()
	out, err := run(t, r, capID, map[string]any{"data": data})
	require.NoError(t, err)
	var o struct{ Result float64 }
	require.NoError(t, json.Unmarshal(out, &o))
	return o.Result
}

func TestStatisticsKnownValues(t *testing.T) {
	r := newTestRegistry(t)
	data := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	testCases := []struct {
		name, capID string
		data        []float64
		want        float64
	}{
		{"mean", CapStatsMean, data, 5},
		{"median even count averages the middle pair", CapStatsMedian, data, 4.5},
		{"median odd count", CapStatsMedian, []float64{3, 1, 2}, 2},
		{"median single", CapStatsMedian, []float64{7}, 7},
		{"sample variance", CapStatsVariance, data, 32.0 / 7},
		{"sample stddev", CapStatsStddev, data, math.Sqrt(32.0 / 7)},
		{"p95 type 7", CapStatsP95, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 19.05},
		{"p95 single", CapStatsP95, []float64{3}, 3},
		{"median of huge values does not overflow", CapStatsMedian, []float64{1.7e308, 1.7e308}, 1.7e308},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			require.InDelta(t, tc.want, statResult(t, r, tc.capID, tc.data), 1e-9)
		})
	}
}

func TestStatisticsMatchGonum(t *testing.T) {
	r := newTestRegistry(t)
	data := []float64{3.5, -1, 8, 2.25, 9.75, 0, 4, 4, 11, -7.5, 6}
	require.Equal(t, stat.Mean(data, nil), statResult(t, r, CapStatsMean, data))
	require.Equal(t, stat.Variance(data, nil), statResult(t, r, CapStatsVariance, data))
	require.Equal(t, stat.StdDev(data, nil), statResult(t, r, CapStatsStddev, data))
	// Odd count: gonum's empirical median is the middle value, like ours.
	sorted := append([]float64(nil), data...)
	sortFloats(sorted)
	require.Equal(t, stat.Quantile(0.5, stat.Empirical, sorted, nil), statResult(t, r, CapStatsMedian, data))
}

func TestStatisticsRejections(t *testing.T) {
	r := newTestRegistry(t)
	testCases := []struct {
		name, capID, input string
	}{
		{"missing data", CapStatsMean, `{}`},
		{"empty data", CapStatsMedian, `{"data":[]}`},
		{"null data", CapStatsMean, `{"data":null}`},
		{"non-number", CapStatsMean, `{"data":[1,"2"]}`},
		{"non-finite literal", CapStatsMean, `{"data":[1,1e999]}`},
		{"NaN token", CapStatsMean, `{"data":[NaN]}`},
		{"variance of one value", CapStatsVariance, `{"data":[1]}`},
		{"stddev of one value", CapStatsStddev, `{"data":[1]}`},
		{"overflowing mean", CapStatsMean, `{"data":[1.7e308,1.7e308]}`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, r, tc.capID, tc.input)
			requireInputError(t, err)
		})
	}
}

func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}
