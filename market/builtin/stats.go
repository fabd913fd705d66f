package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/swarmwage/swarmwage/verify"
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
		{capID: CapStatsMean, minPoints: 1, fn: sharedStatistic("mean")},
		{capID: CapStatsMedian, minPoints: 1, fn: sharedStatistic("median")},
		// Sample forms (n-1), gonum's default; verify accepts them as the
		// alternative to its population default (verify.AltStatistic).
		{capID: CapStatsVariance, minPoints: 2, fn: func(x []float64) float64 { return stat.Variance(x, nil) }},
		{capID: CapStatsStddev, minPoints: 2, fn: func(x []float64) float64 { return stat.StdDev(x, nil) }},
		{capID: CapStatsP95, minPoints: 1, fn: sharedStatistic("percentile-95")},
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

// sharedStatistic is verify.Statistic for op, the one definition the
// verifier recomputes (mean via gonum stat.Mean; median, the mean of the
// two middle values for an even count; percentile-95, type 7).
func sharedStatistic(op string) func([]float64) float64 {
	return func(x []float64) float64 {
		v, err := verify.Statistic(op, x)
		if err != nil {
			return math.NaN() // only for empty data, which Handle refuses first
		}
		return v
	}
}
