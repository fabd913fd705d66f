package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// maxStatsPoints caps compute.statistics.* inputs; sorting a million floats
// takes tens of milliseconds, more is not a job for a tiny built-in seller.
const maxStatsPoints = 1_000_000

type statOp struct {
	capID string
	// minPoints is the least number of values the statistic is defined for.
	minPoints int
	fn        func(x []float64) float64
}

func statOps() []statOp {
	return []statOp{
		{capID: CapStatsMean, minPoints: 1, fn: func(x []float64) float64 { return stat.Mean(x, nil) }},
		{capID: CapStatsMedian, minPoints: 1, fn: median},
		{capID: CapStatsVariance, minPoints: 2, fn: func(x []float64) float64 { return stat.Variance(x, nil) }},
		{capID: CapStatsStddev, minPoints: 2, fn: func(x []float64) float64 { return stat.StdDev(x, nil) }},
		{capID: CapStatsP95, minPoints: 1, fn: func(x []float64) float64 { return percentileType7(x, 0.95) }},
	}
}

type statsInput struct {
	Data *[]float64 `json:"data"`
}

type numberOutput struct {
	Result float64 `json:"result"`
}

type statsHandler struct{ op statOp }

func (h statsHandler) Handle(_ context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in statsInput
	if err := decodeInput(h.op.capID, input, &in); err != nil {
		return nil, err
	}
	if in.Data == nil {
		return nil, inputErr(h.op.capID, "data is required (an array of numbers)")
	}
	x := *in.Data
	switch {
	case len(x) == 0:
		return nil, inputErr(h.op.capID, "data is empty")
	case len(x) < h.op.minPoints:
		return nil, inputErr(h.op.capID, fmt.Sprintf("data has %d value(s); the sample statistic needs at least %d", len(x), h.op.minPoints))
	case len(x) > maxStatsPoints:
		return nil, inputErr(h.op.capID, fmt.Sprintf("data has %d values, the limit is %d", len(x), maxStatsPoints))
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, inputErr(h.op.capID, fmt.Sprintf("data[%d] is not a finite number", i))
		}
	}
	r := h.op.fn(x)
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return nil, inputErr(h.op.capID, "the result overflows float64; scale the data down")
	}
	return encodeOutput(h.op.capID, numberOutput{Result: r})
}

// median is the middle value of the sorted data, or the mean of the two
// middle values for an even count. The mean is computed as a+(b-a)/2 so two
// huge values do not overflow.
func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	a, b := s[n/2-1], s[n/2]
	return a + (b-a)/2
}

// percentileType7 is Hyndman and Fan's type 7 quantile (numpy's default):
// linear interpolation between the closest ranks at h = (n-1)p.
func percentileType7(x []float64, p float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	h := float64(len(s)-1) * p
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := h - float64(lo)
	return s[lo] + frac*(s[lo+1]-s[lo])
}
