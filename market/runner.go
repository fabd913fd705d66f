package market

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/swarmwage/swarmwage/verify"
)

// Handler kinds served by a Runner of another package (registered with
// the HandlerRunner option): an OpenAI-compatible model server
// (market/handler/openai) and one tool of an MCP server
// (market/handler/mcp), over stdio or Streamable HTTP.
const (
	HandlerOpenAI  = "openai"
	HandlerMCP     = "mcp"
	HandlerMCPHTTP = "mcp+http"
)

// DefaultRetries is how many times a Runner's output that fails the
// buyer's checks is asked for again before the job fails
// (HandlerConfig.Retries, 'sell add --retries').
const DefaultRetries = 2

// maxRetries bounds HandlerConfig.Retries: every retry is paid for by the
// seller (tokens) within one job deadline.
const maxRetries = 10

// Runner runs the jobs of one handler kind that lives outside this package,
// as escrow.Rail is a rail that lives outside package escrow: the market
// owns the job (input checked, deadline, escrow, delivery) and the check
// of the output, a Runner only produces an output. Before a Runner's output
// is delivered the seller verifies it exactly as the buyer will (the
// capability's verification function, or the listing's output schema);
// an output that fails is asked for again, with the failed checks in
// Attempt.Failed, up to the listing's retries and within the job's
// deadline, and the job fails (the buyer is refunded) if none passes. A
// seller never delivers what the buyer's check refuses.
//
// Run must return by ctx's deadline. Its errors fail the job: those made
// with Fail tell the buyer their class, any other error is told as
// "handler failed"; the detail stays in the seller's log. Implementations
// must be safe for concurrent use.
type Runner interface {
	Run(ctx context.Context, a Attempt) (Answer, error)
}

// Starter is a Runner with work to do when a listing of its kind is
// stored or the node starts with one (an MCP server process to start). A
// failure is logged; jobs of the listing then fail until it recovers.
type Starter interface {
	Prepare(ctx context.Context, h HandlerConfig) error
}

// Attempt is one try at a job's output.
type Attempt struct {
	Capability string
	Handler    HandlerConfig
	Input      json.RawMessage
	// InputSchema and OutputSchema are the listing's (the taxonomy's for a
	// standard capability).
	InputSchema, OutputSchema json.RawMessage
	// Number counts the attempts of the job from 1.
	Number int
	// Failed are the checks the previous attempt's output failed, what a
	// model is told to fix; empty on the first attempt.
	Failed []verify.Check
	// Previous is the output that failed them.
	Previous json.RawMessage
}

// Answer is what one attempt produced.
type Answer struct {
	Output json.RawMessage
	// Usage is what the attempt cost at the model server.
	Usage Usage
}

// Usage counts a job's model-server tokens and requests, summed over its
// attempts; the seller's job record keeps it ('jobs show').
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	// Requests counts the requests made, retried ones (429, 5xx) included.
	Requests int `json:"requests"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.TotalTokens += o.TotalTokens
	u.Requests += o.Requests
}

// AttemptReport is one attempt of a job as the seller's record keeps it.
type AttemptReport struct {
	Number int  `json:"attempt"`
	Passed bool `json:"passed"`
	// Failed are the checks the output failed, with their details.
	Failed []verify.Check `json:"failed,omitempty"`
	// Error is the class of the handler's failure, when it gave no output.
	Error string `json:"error,omitempty"`
}

// Public classes of a Runner's failures (Fail): all the buyer learns.
const (
	// ClassMisconfigured: the model server refused the seller's request
	// (401, 403, an unknown model); the seller must fix its listing.
	ClassMisconfigured = "seller misconfigured"
	// ClassUnavailable: the model or MCP server kept failing (429, 5xx,
	// refused connections) until the deadline.
	ClassUnavailable = "handler unavailable"
	// ClassBadAnswer: the server answered something that is not an output
	// (not JSON, no choices, a tool's isError).
	ClassBadAnswer = "handler gave no usable output"
	// ClassTimeout: the job's deadline passed while the handler ran.
	ClassTimeout = failTimeout
	// ClassTooLarge: the server's answer was over its size limit.
	ClassTooLarge = failTooLarge
	// ClassChecks: no attempt passed the buyer's checks.
	ClassChecks = "output failed the buyer's checks"
)

// Fail is a Runner's failure of class class: the buyer learns class only;
// detail goes to the seller's log.
func Fail(class string, detail error) error {
	if detail == nil {
		detail = errors.New(class)
	}
	return failed(class, detail)
}

// HandlerRunner registers r for handler kind (HandlerOpenAI, HandlerMCP,
// HandlerMCPHTTP). Listings of a kind without a runner fail their jobs.
func HandlerRunner(kind string, r Runner) Option {
	return func(c *config) error {
		if c.runners == nil {
			c.runners = make(map[string]Runner)
		}
		c.runners[kind] = r
		return nil
	}
}

// retries is how many times the handler's output is asked for again.
func (h HandlerConfig) retries() int {
	if h.Retries == nil {
		return DefaultRetries
	}
	return min(max(*h.Retries, 0), maxRetries)
}

// CheckRetries checks a --retries value.
func CheckRetries(n int) error {
	if n < 0 || n > maxRetries {
		return fmt.Errorf("retries %d: want 0 to %d", n, maxRetries)
	}
	return nil
}

// outcome is what running a job's handler gave: the output (nil on error),
// the usage, the attempts and the error.
type outcome struct {
	out      json.RawMessage
	usage    Usage
	attempts []AttemptReport
	err      error
}

// runChecked runs a Runner's job: each output is verified as the buyer will
// verify it; a failed one is asked for again with its failed checks while
// retries and the deadline allow.
func (h *handlers) runChecked(ctx context.Context, r Runner, o Offer, input json.RawMessage) outcome {
	l := o.Signed.Listing
	var res outcome
	var (
		failedChecks []verify.Check
		previous     json.RawMessage
	)
	for n := 1; ; n++ {
		ans, err := r.Run(ctx, Attempt{
			Capability: l.Capability, Handler: o.Handler, Input: input,
			InputSchema: l.InputSchema, OutputSchema: l.OutputSchema, Number: n,
			Failed: failedChecks, Previous: previous,
		})
		res.usage.Add(ans.Usage)
		if err == nil && !json.Valid(ans.Output) {
			err = failedf(failNotJSON, "%s handler's output is not valid JSON (got %q)", o.Handler.Kind, tail(string(ans.Output), 200))
		}
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				var he *handlerError
				if !errors.As(err, &he) || he.class != failTimeout {
					err = failed(failTimeout, err)
				}
			}
			msg, _, _ := publicFailure(err)
			res.attempts = append(res.attempts, AttemptReport{Number: n, Error: msg})
			res.err = err
			return res
		}
		rep := verifyOutput(ctx, l, input, ans.Output)
		ar := AttemptReport{Number: n, Passed: rep.Passed, Failed: rep.Failed()}
		res.attempts = append(res.attempts, ar)
		if rep.Passed {
			res.out = ans.Output
			return res
		}
		if n > o.Handler.retries() || ctx.Err() != nil || time.Until(deadlineOf(ctx)) <= 0 {
			names := make([]string, len(ar.Failed))
			for i, c := range ar.Failed {
				names[i] = c.Name
			}
			res.err = failedf(ClassChecks+": "+strings.Join(names, ", "), "%d attempts, the last failed %s", n, rep.Summary())
			res.out = ans.Output
			return res
		}
		failedChecks, previous = ar.Failed, ans.Output
	}
}

// verifyOutput verifies out as the buyer of the listing will: the
// taxonomy's checks for a standard capability, the listing's output schema
// for the others.
func verifyOutput(ctx context.Context, l Listing, input, out json.RawMessage) verify.Report {
	var (
		rep verify.Report
		err error
	)
	if standard := verify.ValidateInput(l.Capability, input) == nil; standard {
		rep, err = verify.Verify(ctx, l.Capability, input, out)
	} else {
		rep, err = verify.VerifyWithSchema(ctx, l.Capability, l.OutputSchema, out)
	}
	if err != nil {
		return verify.Report{Capability: l.Capability, Checks: []verify.Check{{Name: "output_json", Detail: err.Error()}}}
	}
	return rep
}
