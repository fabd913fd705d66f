package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/itchyny/gojq"
	"github.com/urfave/cli/v2"
)

// jqFlag filters a command's --json document through a jq expression, as
// gh does: every command that takes --json takes --jq too (completeTree).
const jqFlag = "jq"

func jqFlagDef() cli.Flag {
	return &cli.StringFlag{Name: jqFlag, Usage: "with --json: print what the jq `EXPR` makes of the document (strings raw, one result a line), e.g. --jq .available"}
}

// jqExpr is the --jq of the command, if any.
func jqExpr(c *cli.Context) string {
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && hasFlag(ctx.Command.Flags, jqFlag) && ctx.IsSet(jqFlag) {
			return ctx.String(jqFlag)
		}
	}
	return ""
}

// printJQ writes what expr makes of the JSON document doc to w: strings
// as they are, other values as compact JSON, one a line.
func printJQ(w io.Writer, expr string, doc []byte) error {
	q, err := gojq.Parse(expr)
	if err != nil {
		return usageErrf("--jq %q: %v", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return usageErrf("--jq %q: %v", expr, err)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("--jq: decode the document: %w", err)
	}
	v = fromNumbers(v)
	iter := code.Run(v)
	for {
		out, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := out.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return fmt.Errorf("--jq %q: %w", expr, err)
		}
		if s, ok := out.(string); ok {
			fmt.Fprintln(w, s)
			continue
		}
		line, err := gojq.Marshal(out)
		if err != nil {
			return fmt.Errorf("--jq %q: %w", expr, err)
		}
		fmt.Fprintf(w, "%s\n", line)
	}
}

// fromNumbers turns json.Number into the int or float64 gojq computes
// with.
func fromNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = fromNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = fromNumbers(x[k])
		}
	}
	return v
}
