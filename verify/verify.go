package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Report is the result of verifying one output: every check that ran, in
// order. Passed is true only if every check passed.
type Report struct {
	Capability string  `json:"capability"`
	Passed     bool    `json:"passed"`
	Checks     []Check `json:"checks"`
}

// Check is one named verification step. Detail says what was found, in
// words a seller can act on; it is always set when the check failed.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
}

// Failed returns the checks that did not pass.
func (r Report) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.Passed {
			out = append(out, c)
		}
	}
	return out
}

// Summary is a one-line account of the report: "passed" or the failed
// checks with their details.
func (r Report) Summary() string {
	if r.Passed {
		return fmt.Sprintf("%s: passed %d checks", r.Capability, len(r.Checks))
	}
	var parts []string
	for _, c := range r.Failed() {
		parts = append(parts, c.Name+": "+c.Detail)
	}
	return fmt.Sprintf("%s: failed %s", r.Capability, strings.Join(parts, "; "))
}

// Names of the two checks every standard capability runs first.
const (
	checkInputSchema  = "input_schema"
	checkOutputSchema = "output_schema"
)

// verifier runs the capability-specific checks of the spec's Verification
// column, after both documents passed their schemas.
type verifier func(ctx context.Context, j *job) []Check

// job is what a verifier sees: the resolved ID and both documents.
type job struct {
	cap    Capability
	input  []byte
	output []byte
}

func (j *job) param(name string) string { return j.cap.Params[name] }

// decode unmarshals both documents into typed structs. Both passed their
// schemas, so this fails only on values the schema allows and Go does not
// (an integer written as 1.0).
func (j *job) decode(in, out any) error {
	if in != nil {
		if err := json.Unmarshal(j.input, in); err != nil {
			return fmt.Errorf("input: %w", err)
		}
	}
	if out != nil {
		if err := json.Unmarshal(j.output, out); err != nil {
			return fmt.Errorf("output: %w", err)
		}
	}
	return nil
}

// decodeFailed is the check reported when decode fails.
func decodeFailed(err error) []Check {
	return []Check{fail("decode", "%v; write integers without a fractional part", err)}
}

func pass(name, format string, args ...any) Check {
	return Check{Name: name, Passed: true, Detail: fmt.Sprintf(format, args...)}
}

func fail(name, format string, args ...any) Check {
	return Check{Name: name, Passed: false, Detail: fmt.Sprintf(format, args...)}
}

func result(name string, ok bool, passDetail, failDetail string) Check {
	if ok {
		return Check{Name: name, Passed: true, Detail: passDetail}
	}
	return Check{Name: name, Passed: false, Detail: failDetail}
}

// Verify checks output (and input) of the standard capability id: the input
// and output JSON Schemas, then every check of the spec's Verification
// column. It returns an error only when id is malformed or unknown, the
// capability is custom (use VerifyWithSchema), or input or output is not
// one JSON document; everything wrong with the output is a failed check.
func Verify(ctx context.Context, id string, input, output []byte) (Report, error) {
	c, err := Parse(id)
	if err != nil {
		return Report{}, err
	}
	if c.Custom {
		return Report{}, fmt.Errorf("verify %s: %w; verify against the seller's schema (VerifyWithSchema)", id, ErrNoStandardSchema)
	}
	inDoc, err := decodeJSON(input, "input", MaxInputSize)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Capability: id}
	outDoc, err := decodeJSON(output, "output", MaxOutputSize)
	switch {
	case errors.Is(err, ErrTooLarge):
		rep.add(fail(checkOutputSchema, "%v", err))
		return rep.finish(), nil
	case err != nil:
		return Report{}, err
	}
	inSchema, err := schemaFor(c, false)
	if err != nil {
		return Report{}, err
	}
	outSchema, err := schemaFor(c, true)
	if err != nil {
		return Report{}, err
	}
	rep.add(schemaCheck(checkInputSchema, inSchema.validate(id, "input", inDoc)))
	rep.add(schemaCheck(checkOutputSchema, outSchema.validate(id, "output", outDoc)))
	if len(rep.Failed()) > 0 {
		return rep.finish(), nil
	}
	spec := mustRegistry().spec(c.Template)
	if spec.verify != nil {
		if err := ctx.Err(); err != nil {
			return Report{}, fmt.Errorf("verify %s: %w", id, err)
		}
		for _, ch := range spec.verify(ctx, &job{cap: c, input: input, output: output}) {
			rep.add(ch)
		}
	}
	return rep.finish(), nil
}

// VerifyWithSchema checks output against a schema the seller published
// (custom.* and WCP capabilities, which have no standard schema). The
// report has one check, output_schema. The error is for a malformed ID or
// an output that is not JSON; an unusable seller schema is a failed check.
func VerifyWithSchema(ctx context.Context, id string, outputSchema json.RawMessage, output []byte) (Report, error) {
	if err := CheckID(id); err != nil {
		return Report{}, err
	}
	if err := ctx.Err(); err != nil {
		return Report{}, fmt.Errorf("verify %s: %w", id, err)
	}
	rep := Report{Capability: id}
	outDoc, err := decodeJSON(output, "output", MaxOutputSize)
	switch {
	case errors.Is(err, ErrTooLarge):
		rep.add(fail(checkOutputSchema, "%v", err))
		return rep.finish(), nil
	case err != nil:
		return Report{}, err
	}
	sch, err := compileSellerSchema(outputSchema)
	if err != nil {
		rep.add(fail(checkOutputSchema, "%v", err))
		return rep.finish(), nil
	}
	rep.add(schemaCheck(checkOutputSchema, sch.validate(id, "output", outDoc)))
	return rep.finish(), nil
}

func schemaCheck(name string, err error) Check {
	if err == nil {
		return pass(name, "matches the schema")
	}
	var se *SchemaError
	if errors.As(err, &se) {
		return fail(name, "%s", strings.Join(se.Reasons, "; "))
	}
	return fail(name, "%v", err)
}

func (r *Report) add(c Check) { r.Checks = append(r.Checks, c) }

func (r Report) finish() Report {
	r.Passed = len(r.Checks) > 0 && len(r.Failed()) == 0
	return r
}
