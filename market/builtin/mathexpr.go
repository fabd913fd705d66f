package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
	"github.com/shopspring/decimal"
)

// compute.math.numeric
//
// The expression is parsed by expr-lang/expr, then every node of the tree is
// checked against a whitelist before anything runs: number literals,
// variables from vars, the constants pi and e, unary + and -, binary
// + - * / ^ (also spelled **), parentheses, and calls of sqrt sin cos tan
// log (natural) log10 log2 exp abs floor ceil round min max pow. Strings,
// comparisons, member access, closures, builtins and everything else of the
// expr language are refused with 400. Every literal is a float64, so there
// is no integer overflow or integer division.
//
// precision (optional, 0..17) is the number of decimal places of the result,
// rounded half away from zero (shopspring/decimal Round) from the shortest
// decimal that represents the float64 result. Without precision the result
// is the float64 as computed. A result that is not finite (1/0, sqrt(-1),
// overflow) is a 400.

const (
	maxExprLen     = 4096
	maxExprNodes   = 2000
	maxVars        = 256
	maxPrecision   = 17 // the input schema's maximum (verify)
	exprEnvPi      = "pi"
	exprEnvE       = "e"
	numericCapName = CapMathNumeric
)

var varNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

type numericInput struct {
	Expression *string          `json:"expression"`
	Vars       map[string]any   `json:"vars"`
	Precision  *json.RawMessage `json:"precision"`
}

type mathFunc struct {
	arity int // -1: variadic, at least one argument
	fn    func(args []float64) float64
}

func mathFuncs() map[string]mathFunc {
	one := func(f func(float64) float64) mathFunc {
		return mathFunc{arity: 1, fn: func(a []float64) float64 { return f(a[0]) }}
	}
	return map[string]mathFunc{
		"sqrt": one(math.Sqrt), "sin": one(math.Sin), "cos": one(math.Cos), "tan": one(math.Tan),
		"log": one(math.Log), "log10": one(math.Log10), "log2": one(math.Log2), "exp": one(math.Exp),
		"abs": one(math.Abs), "floor": one(math.Floor), "ceil": one(math.Ceil), "round": one(math.Round),
		"pow": {arity: 2, fn: func(a []float64) float64 { return math.Pow(a[0], a[1]) }},
		"min": {arity: -1, fn: func(a []float64) float64 { return slices.Min(a) }},
		"max": {arity: -1, fn: func(a []float64) float64 { return slices.Max(a) }},
	}
}

func handleNumeric(_ context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in numericInput
	if err := decodeInput(numericCapName, input, &in); err != nil {
		return nil, err
	}
	prec, vars, reasons := checkNumericInput(in)
	if len(reasons) > 0 {
		return nil, inputErr(numericCapName, reasons...)
	}
	v, err := evalArithmetic(*in.Expression, vars)
	if err != nil {
		return nil, inputErr(numericCapName, err.Error())
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, inputErr(numericCapName, fmt.Sprintf("the expression does not evaluate to a finite number (got %v)", v))
	}
	out := decimal.NewFromFloat(v)
	if prec >= 0 {
		out = out.Round(int32(prec))
	}
	// The decimal string has no exponent, so the number of decimal places in
	// the JSON text is exactly what precision asked for (or fewer).
	return json.RawMessage(`{"result":` + out.String() + `}`), nil
}

func checkNumericInput(in numericInput) (prec int, vars map[string]float64, reasons []string) {
	prec = -1
	switch {
	case in.Expression == nil:
		reasons = append(reasons, "expression is required")
	case strings.TrimSpace(*in.Expression) == "":
		reasons = append(reasons, "expression is empty")
	case len(*in.Expression) > maxExprLen:
		reasons = append(reasons, fmt.Sprintf("expression is %d bytes, the limit is %d", len(*in.Expression), maxExprLen))
	}
	if in.Precision != nil && string(*in.Precision) != "null" {
		var p float64
		if err := json.Unmarshal(*in.Precision, &p); err != nil || p != math.Trunc(p) || p < 0 || p > maxPrecision {
			reasons = append(reasons, fmt.Sprintf("precision must be an integer from 0 to %d", maxPrecision))
		} else {
			prec = int(p)
		}
	}
	if len(in.Vars) > maxVars {
		reasons = append(reasons, fmt.Sprintf("vars has %d entries, the limit is %d", len(in.Vars), maxVars))
		return prec, nil, reasons
	}
	funcs := mathFuncs()
	vars = make(map[string]float64, len(in.Vars))
	names := make([]string, 0, len(in.Vars))
	for name := range in.Vars {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f, ok := in.Vars[name].(float64)
		switch {
		case !varNameRE.MatchString(name):
			reasons = append(reasons, fmt.Sprintf("vars: %q is not a valid name (letters, digits, _; not starting with a digit)", name))
		case name == exprEnvPi || name == exprEnvE || funcs[name].fn != nil:
			reasons = append(reasons, fmt.Sprintf("vars: %q is reserved (constant or function name)", name))
		case !ok:
			reasons = append(reasons, fmt.Sprintf("vars: %q must be a number", name))
		default:
			vars[name] = f
		}
	}
	return prec, vars, reasons
}

// arithmeticGuard is an expr patch visitor that records every node outside
// the arithmetic whitelist and turns integer literals into floats.
type arithmeticGuard struct {
	vars    map[string]float64
	funcs   map[string]mathFunc
	callees map[ast.Node]bool
	nodes   int
	bad     []string
}

func (g *arithmeticGuard) Visit(node *ast.Node) {
	g.nodes++
	switch n := (*node).(type) {
	case *ast.IntegerNode:
		ast.Patch(node, &ast.FloatNode{Value: float64(n.Value)})
	case *ast.FloatNode:
	case *ast.IdentifierNode:
		_, isVar := g.vars[n.Value]
		if !isVar && n.Value != exprEnvPi && n.Value != exprEnvE && !g.callees[n] {
			g.bad = append(g.bad, fmt.Sprintf("unknown name %q (not a var, pi or e)", n.Value))
		}
	case *ast.UnaryNode:
		if n.Operator != "-" && n.Operator != "+" {
			g.bad = append(g.bad, fmt.Sprintf("operator %q is not allowed", n.Operator))
		}
	case *ast.BinaryNode:
		switch n.Operator {
		case "+", "-", "*", "/", "^", "**":
		default:
			g.bad = append(g.bad, fmt.Sprintf("operator %q is not allowed", n.Operator))
		}
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		if !ok {
			g.bad = append(g.bad, "only calls of named math functions are allowed")
			return
		}
		f, known := g.funcs[id.Value]
		switch {
		case !known:
			g.bad = append(g.bad, fmt.Sprintf("function %q is not allowed", id.Value))
		case f.arity >= 0 && len(n.Arguments) != f.arity:
			g.bad = append(g.bad, fmt.Sprintf("%s takes %d argument(s), got %d", id.Value, f.arity, len(n.Arguments)))
		case f.arity < 0 && len(n.Arguments) == 0:
			g.bad = append(g.bad, fmt.Sprintf("%s needs at least one argument", id.Value))
		}
	case *ast.BuiltinNode:
		g.bad = append(g.bad, fmt.Sprintf("function %q is not allowed", n.Name))
	default:
		g.bad = append(g.bad, fmt.Sprintf("%s is not arithmetic", describeNode(n)))
	}
}

func describeNode(n ast.Node) string {
	s := strings.TrimPrefix(fmt.Sprintf("%T", n), "*ast.")
	return strings.TrimSuffix(strings.ToLower(s), "node") + " expression"
}

// calleeMarker finds identifiers used as call targets so the guard does not
// report them as unknown variables. It runs before arithmeticGuard.
type calleeMarker struct{ callees map[ast.Node]bool }

func (m calleeMarker) Visit(node *ast.Node) {
	if c, ok := (*node).(*ast.CallNode); ok {
		m.callees[c.Callee] = true
	}
}

func evalArithmetic(expression string, vars map[string]float64) (float64, error) {
	funcs := mathFuncs()
	env := make(map[string]any, len(vars)+2)
	for k, v := range vars {
		env[k] = v
	}
	env[exprEnvPi] = math.Pi
	env[exprEnvE] = math.E
	marker := calleeMarker{callees: make(map[ast.Node]bool)}
	guard := &arithmeticGuard{vars: vars, funcs: funcs, callees: marker.callees}
	opts := []expr.Option{
		expr.Env(env),
		expr.DisableAllBuiltins(),
		expr.Optimize(false),
		expr.MaxNodes(maxExprNodes),
		expr.Patch(marker),
		expr.Patch(guard),
		expr.AsFloat64(),
	}
	for name, f := range funcs {
		opts = append(opts, expr.Function(name, wrapMathFunc(name, f)))
	}
	program, err := expr.Compile(expression, opts...)
	if len(guard.bad) > 0 {
		return 0, fmt.Errorf("%w: %s", errNotArithmetic, strings.Join(dedupe(guard.bad), "; "))
	}
	if err != nil {
		return 0, fmt.Errorf("parse expression: %s", firstLine(err.Error()))
	}
	return runProgram(program, env)
}

func runProgram(program *vm.Program, env map[string]any) (float64, error) {
	out, err := expr.Run(program, env)
	if err != nil {
		return 0, fmt.Errorf("evaluate expression: %s", firstLine(err.Error()))
	}
	v, ok := out.(float64)
	if !ok {
		return 0, fmt.Errorf("%w: result is %T, not a number", errNotArithmetic, out)
	}
	return v, nil
}

func wrapMathFunc(name string, f mathFunc) func(params ...any) (any, error) {
	return func(params ...any) (any, error) {
		args := make([]float64, len(params))
		for i, p := range params {
			v, ok := p.(float64)
			if !ok {
				return nil, fmt.Errorf("%s: argument %d is not a number", name, i+1)
			}
			args[i] = v
		}
		if f.arity >= 0 && len(args) != f.arity || len(args) == 0 {
			return nil, fmt.Errorf("%s: wrong number of arguments", name)
		}
		return f.fn(args), nil
	}
}

func dedupe(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
