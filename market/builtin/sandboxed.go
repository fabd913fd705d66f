package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/swarmwage/swarmwage/sandbox"
)

// code.execute.sandboxed
//
// The handler decodes the taxonomy input, refuses a language the runtime
// does not list (HTTP 400 naming the ones it runs, as the spec requires) and hands the job to the
// SandboxRunner. A guest failure (exception, timeout) is a normal output with
// its exit code; sandbox.ErrInvalidRequest and the errors that wrap it
// (ErrUnsupportedLanguage, ErrTimeoutTooLarge) become *InputError.

// SandboxRunner runs one sandboxed job; *sandbox.Sandbox implements it.
type SandboxRunner interface {
	Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error)
	Runtime() sandbox.Runtime
}

// WithSandbox registers code.execute.sandboxed, backed by runner. The
// registry does not own runner: the caller closes it.
func WithSandbox(runner SandboxRunner) Option {
	return func(c *config) error {
		if runner == nil {
			return errors.New("WithSandbox: nil runner")
		}
		c.sandbox = runner
		return nil
	}
}

// SandboxRuntime returns the runtime served at
// GET /capabilities/code.execute.sandboxed/runtime, if a sandbox is configured.
func (r *Registry) SandboxRuntime() (sandbox.Runtime, bool) {
	h, ok := r.handlers[CapCodeSandboxed].(sandboxHandler)
	if !ok {
		return sandbox.Runtime{}, false
	}
	return h.runner.Runtime(), true
}

type sandboxInput struct {
	Code      *string  `json:"code"`
	Language  *string  `json:"language"`
	Stdin     *string  `json:"stdin"`
	TimeoutMS *float64 `json:"timeout_ms"`
}

type sandboxHandler struct{ runner SandboxRunner }

func (h sandboxHandler) Handle(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in sandboxInput
	if err := decodeInput(CapCodeSandboxed, input, &in); err != nil {
		return nil, err
	}
	req, reasons := h.request(in)
	if len(reasons) > 0 {
		return nil, inputErr(CapCodeSandboxed, reasons...)
	}
	res, err := h.runner.Run(ctx, req)
	if errors.Is(err, sandbox.ErrInvalidRequest) {
		return nil, inputErr(CapCodeSandboxed, err.Error())
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CapCodeSandboxed, err)
	}
	return encodeOutput(CapCodeSandboxed, res)
}

func (h sandboxHandler) request(in sandboxInput) (sandbox.Request, []string) {
	var req sandbox.Request
	var reasons []string
	if in.Code == nil || *in.Code == "" {
		reasons = append(reasons, "code is required")
	} else {
		req.Code = *in.Code
	}
	if in.Language != nil && *in.Language != "" {
		rt := h.runner.Runtime()
		langs := rt.Languages
		if len(langs) == 0 { // a runner from before v0.2 lists only its default
			langs = []string{rt.Language}
		}
		if !slices.Contains(langs, *in.Language) {
			reasons = append(reasons, fmt.Sprintf("language %q is not run by this seller, which runs %s; see GET /capabilities/%s/runtime",
				*in.Language, strings.Join(langs, ", "), CapCodeSandboxed))
		}
		req.Language = *in.Language
	}
	if in.Stdin != nil {
		req.Stdin = *in.Stdin
	}
	if in.TimeoutMS != nil {
		v := *in.TimeoutMS
		if v != math.Trunc(v) || v < 1 || v > sandbox.MaxTimeoutMS {
			reasons = append(reasons, fmt.Sprintf("timeout_ms must be an integer from 1 to %d", sandbox.MaxTimeoutMS))
		} else {
			req.TimeoutMS = int(v)
		}
	}
	return req, reasons
}
