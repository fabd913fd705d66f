package builtin

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func numericRaw(t *testing.T, r *Registry, in map[string]any) string {
	t.Helper()
	out, err := run(t, r, CapMathNumeric, in)
	require.NoError(t, err)
	var o struct{ Result json.RawMessage }
	require.NoError(t, json.Unmarshal(out, &o))
	return string(o.Result)
}

func TestNumericEvaluates(t *testing.T) {
	r := newTestRegistry(t)
	testCases := []struct {
		name string
		in   map[string]any
		want string
	}{
		{"precedence and power", map[string]any{"expression": "2 + 3 * 4 ^ 2"}, "50"},
		{"power is right-assoc", map[string]any{"expression": "2 ^ 3 ^ 2"}, "512"},
		{"double star power", map[string]any{"expression": "2 ** 10"}, "1024"},
		{"division is real", map[string]any{"expression": "7 / 2"}, "3.5"},
		{"unary minus", map[string]any{"expression": "-(3 - 5) * -2"}, "-4"},
		{"constants", map[string]any{"expression": "pi", "precision": 4}, "3.1416"},
		{"e", map[string]any{"expression": "log(e)"}, "1"},
		{"vars", map[string]any{"expression": "a * x + b", "vars": map[string]any{"a": 2, "x": 3.5, "b": -1}}, "6"},
		{"functions", map[string]any{"expression": "sqrt(16) + abs(-2) + floor(2.7) + ceil(2.1) + min(4, 1, 9) + max(1, 5)", "precision": 0}, "17"},
		{"trig", map[string]any{"expression": "sin(pi/2) + cos(0) + tan(0)", "precision": 6}, "2"},
		{"exp and pow", map[string]any{"expression": "exp(0) + pow(2, 0.5) ^ 2", "precision": 10}, "3"},
		{"round half away from zero", map[string]any{"expression": "2.5", "precision": 0}, "3"},
		{"round negative half away from zero", map[string]any{"expression": "-2.5", "precision": 0}, "-3"},
		{"precision 2", map[string]any{"expression": "0.1 + 0.2", "precision": 2}, "0.3"},
		{"no integer overflow", map[string]any{"expression": "3000000000 * 4000000000"}, "12000000000000000000"},
		{"small result without exponent", map[string]any{"expression": "1 / 10000000", "precision": 8}, "0.0000001"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, numericRaw(t, r, tc.in))
		})
	}
}

func TestNumericRejections(t *testing.T) {
	r := newTestRegistry(t)
	testCases := []struct {
		name string
		in   map[string]any
	}{
		{"missing expression", map[string]any{}},
		{"empty expression", map[string]any{"expression": "  "}},
		{"syntax error", map[string]any{"expression": "2 +"}},
		{"string literal", map[string]any{"expression": `"a" + "b"`}},
		{"comparison", map[string]any{"expression": "1 < 2"}},
		{"ternary", map[string]any{"expression": "true ? 1 : 2"}},
		{"builtin", map[string]any{"expression": "len([1,2])"}},
		{"array", map[string]any{"expression": "[1,2]"}},
		{"member access", map[string]any{"expression": "a.b", "vars": map[string]any{"a": 1}}},
		{"closure", map[string]any{"expression": "map([1], # * 2)"}},
		{"let", map[string]any{"expression": "let x = 1; x"}},
		{"modulo", map[string]any{"expression": "7 % 2"}},
		{"unknown var", map[string]any{"expression": "x + 1"}},
		{"unknown function", map[string]any{"expression": "now()"}},
		{"wrong arity", map[string]any{"expression": "sqrt(1, 2)"}},
		{"division by zero", map[string]any{"expression": "1 / 0"}},
		{"sqrt of negative", map[string]any{"expression": "sqrt(-1)"}},
		{"overflow", map[string]any{"expression": "10 ^ 400"}},
		{"bad precision", map[string]any{"expression": "1", "precision": -1}},
		{"fractional precision", map[string]any{"expression": "1", "precision": 1.5}},
		{"huge precision", map[string]any{"expression": "1", "precision": 99}},
		{"reserved var", map[string]any{"expression": "pi", "vars": map[string]any{"pi": 3}}},
		{"var not a number", map[string]any{"expression": "x", "vars": map[string]any{"x": "1"}}},
		{"bad var name", map[string]any{"expression": "1", "vars": map[string]any{"1x": 1}}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, r, CapMathNumeric, tc.in)
			requireInputError(t, err)
		})
	}
}

func TestNumericPrecisionHonoured(t *testing.T) {
	r := newTestRegistry(t)
	for p := 0; p <= maxPrecision; p++ {
		raw := numericRaw(t, r, map[string]any{"expression": "sqrt(2) * 1000", "precision": p})
		v := mustFloat(t, raw)
		require.InDelta(t, math.Sqrt(2)*1000, v, math.Pow(10, -float64(p))/2+1e-9)
		require.LessOrEqual(t, decimalsIn(raw), p, raw)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var v float64
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	return v
}

func decimalsIn(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return len(s) - i - 1
		}
	}
	return 0
}
