package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/parser"
	"gonum.org/v1/gonum/stat"
)

// Statistics tolerance: a result matches when |got - want| <= statAbsTol +
// statRelTol*|want|, which admits sellers that round to six significant
// digits and nothing coarser.
const (
	statAbsTol = 1e-9
	statRelTol = 1e-6
)

// Statistic computes compute.statistics.{op} exactly as the verifier
// expects it; the builtin seller calls it too, so both sides share one
// definition:
//   - mean: arithmetic mean;
//   - median: the middle value, or the mean of the two middle values;
//   - variance, stddev: population (divide by n, numpy's default), not
//     gonum's sample default; see AltStatistic for the sample form;
//   - percentile-95: linear interpolation between closest ranks (numpy's
//     default "linear", R type 7): h = (n-1)*0.95.
func Statistic(op string, data []float64) (float64, error) {
	if len(data) == 0 {
		return 0, fmt.Errorf("statistics of an empty series")
	}
	switch op {
	case "mean":
		return stat.Mean(data, nil), nil
	case "median":
		s := sorted(data)
		n := len(s)
		if n%2 == 1 {
			return s[n/2], nil
		}
		return s[n/2-1]/2 + s[n/2]/2, nil
	case "variance":
		return stat.PopVariance(data, nil), nil
	case "stddev":
		return stat.PopStdDev(data, nil), nil
	case "percentile-95":
		s := sorted(data)
		h := float64(len(s)-1) * 0.95
		lo := int(math.Floor(h))
		if lo+1 >= len(s) {
			return s[lo], nil
		}
		return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo]), nil
	}
	return 0, fmt.Errorf("unknown statistic %q (known: %s)", op, strings.Join(statisticsOps, ", "))
}

// AltStatistic is the other accepted definition of variance and stddev:
// the sample (n-1) form. The spec does not say which one it means; both
// are standard, pandas and R default to the sample form and numpy to the
// population form, and a wrong computation matches neither, so the
// verifier accepts both rather than refund a correct seller. Other ops
// have no alternative (ok is false).
func AltStatistic(op string, data []float64) (v float64, ok bool) {
	if len(data) < 2 {
		return 0, false
	}
	switch op {
	case "variance":
		return stat.Variance(data, nil), true
	case "stddev":
		return stat.StdDev(data, nil), true
	}
	return 0, false
}

func sorted(data []float64) []float64 {
	s := slices.Clone(data)
	slices.Sort(s)
	return s
}

func near(got, want float64) bool {
	return math.Abs(got-want) <= statAbsTol+statRelTol*math.Abs(want)
}

func verifyStatistics(_ context.Context, j *job) []Check {
	var in struct {
		Data []float64 `json:"data"`
	}
	var out struct {
		Result float64 `json:"result"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	op := j.param("op")
	want, err := Statistic(op, in.Data)
	if err != nil {
		return []Check{fail(ckValueMatches, "cannot recompute: %v", err)}
	}
	if math.IsInf(want, 0) || math.IsNaN(want) {
		return []Check{fail(ckValueMatches, "the %s of the input overflows float64; no finite result can match", op)}
	}
	if near(out.Result, want) {
		return []Check{pass(ckValueMatches, "%s = %g", op, want)}
	}
	if alt, ok := AltStatistic(op, in.Data); ok && near(out.Result, alt) {
		return []Check{pass(ckValueMatches, "%s = %g (sample, n-1; the population value is %g)", op, alt, want)}
	}
	return []Check{fail(ckValueMatches, "result is %g but the %s of the %d input values is %g%s", out.Result, op, len(in.Data), want, statHint(op))}
}

func statHint(op string) string {
	switch op {
	case "variance", "stddev":
		return " (population; the sample n-1 form is also accepted)"
	case "percentile-95":
		return " (linear interpolation, h = (n-1)*0.95)"
	}
	return ""
}

func verifySymbolic(_ context.Context, j *job) []Check {
	var out struct {
		Result string `json:"result"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	if err := parseExpression(out.Result); err != nil {
		return []Check{fail(ckExpression, "result does not parse as an expression: %v", err)}
	}
	return []Check{pass(ckExpression, "parses")}
}

// parseExpression parses an expression, or an equation "lhs = rhs" with
// both sides expressions (solutions are often written that way).
func parseExpression(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("result is empty")
	}
	parts := splitEquation(s)
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("one side of the equation is empty")
		}
		if _, err := parser.Parse(p); err != nil {
			return err
		}
	}
	return nil
}

// splitEquation splits at single '=' signs that are not part of ==, <=,
// >= or !=.
func splitEquation(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			continue
		}
		prev := byte(0)
		if i > 0 {
			prev = s[i-1]
		}
		if i+1 < len(s) && s[i+1] == '=' {
			i++
			continue
		}
		if prev == '<' || prev == '>' || prev == '!' || prev == '=' {
			continue
		}
		parts = append(parts, s[start:i])
		start = i + 1
	}
	return append(parts, s[start:])
}

func verifyNumeric(_ context.Context, j *job) []Check {
	var in struct {
		Precision *int `json:"precision"`
	}
	var out struct {
		Result json.Number `json:"result"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	if in.Precision == nil {
		return []Check{pass(ckPrecision, "no precision requested")}
	}
	d := decimalPlaces(string(out.Result))
	if d > *in.Precision {
		return []Check{fail(ckPrecision, "result %s has %d decimal places; the buyer asked for at most %d: round it", out.Result, d, *in.Precision)}
	}
	return []Check{pass(ckPrecision, "%d decimal places (at most %d)", d, *in.Precision)}
}

// decimalPlaces counts the digits after the decimal point of a JSON number
// literal, with the exponent applied ("1.25e1" has 1).
func decimalPlaces(lit string) int {
	mant, exp := lit, 0
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant = lit[:i]
		exp, _ = strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+")) // a JSON exponent always parses
	}
	frac := ""
	if _, f, ok := strings.Cut(mant, "."); ok {
		frac = strings.TrimRight(f, "0")
	}
	return max(0, len(frac)-exp)
}
