package market

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/swarmwage/swarmwage/market/builtin"
	"github.com/swarmwage/swarmwage/verify"
)

// ErrTestInput is returned by TestOffer when the input does not fit the
// listing: it is not JSON, or it does not match the input schema.
var ErrTestInput = errors.New("input rejected")

// TestResult is one local run of a listing's handler with the buyer's
// verification of its output ('swarmwage sell test'): what a buyer would
// get and check, without the network or escrow.
type TestResult struct {
	Capability string          `json:"capability"`
	Handler    string          `json:"handler"`
	Output     json.RawMessage `json:"output,omitempty"`
	// Error is why the handler failed, in full: this is the seller's own
	// machine (a buyer learns only its first part, the class).
	Error        string        `json:"error,omitempty"`
	Verification verify.Report `json:"verification"`
	// Passed is true when the handler gave an output that passed every check.
	Passed     bool  `json:"passed"`
	DurationMS int64 `json:"duration_ms"`
	// Attempts and Usage are those of an openai or mcp handler: each try
	// with the checks it failed (and was retried for), and the tokens.
	Attempts []AttemptReport `json:"attempts,omitempty"`
	Usage    *Usage          `json:"usage,omitempty"`
}

// TestOffer runs o's handler on input as a job would (input checked against
// the listing's schema, the same handler, environment and output limits)
// and verifies the output as a buyer would: the taxonomy's checks for a
// standard capability, the listing's output schema for the others. reg
// runs built-in handlers (nil: none); hc makes the requests of http
// handlers (nil: a client that follows no redirects). A handler failure is
// a result, not an error; an input that does not fit is ErrTestInput.
func TestOffer(ctx context.Context, o Offer, input json.RawMessage, reg *builtin.Registry, hc *http.Client) (TestResult, error) {
	return TestOfferWith(ctx, o, input, reg, hc, nil)
}

// TestOfferWith is TestOffer with the runners of the openai and mcp kinds
// (by kind, as HandlerRunner registers them): their output is verified and
// retried before it counts, as in a job, and the result lists the attempts.
func TestOfferWith(ctx context.Context, o Offer, input json.RawMessage, reg *builtin.Registry, hc *http.Client, runners map[string]Runner) (TestResult, error) {
	l := o.Signed.Listing
	res := TestResult{Capability: l.Capability, Handler: o.Handler.String()}
	if !json.Valid(input) {
		return res, fmt.Errorf("%w: the input is not valid JSON", ErrTestInput)
	}
	if err := validateInput(l, input); err != nil {
		return res, fmt.Errorf("%w: %w", ErrTestInput, err)
	}
	h := &handlers{builtin: reg, http: hc, runners: runners}
	start := time.Now()
	oc := h.runJob(ctx, o, input)
	out, err := oc.out, oc.err
	res.DurationMS = time.Since(start).Milliseconds()
	if len(oc.attempts) > 0 {
		res.Attempts, res.Usage = oc.attempts, &oc.usage
	}
	if err != nil && out != nil {
		// The last attempt's output, which failed the checks: show it
		// with its report.
		res.Error = err.Error()
		res.Output = out
		res.Verification = verifyOutput(ctx, l, input, out)
		return res, nil
	}
	if err != nil {
		res.Error = err.Error()
		res.Verification = verify.Report{Capability: l.Capability, Checks: []verify.Check{}}
		return res, nil
	}
	res.Output = out
	rep := verifyOutput(ctx, l, input, out)
	res.Verification, res.Passed = rep, rep.Passed
	return res, nil
}

// TestListing is TestOffer of this node's listing of capID, with the
// node's own built-in handlers and http client. A capability not listed
// here is ErrNotListed.
func (m *Market) TestListing(ctx context.Context, capID string, input json.RawMessage) (TestResult, error) {
	o, err := m.store.Get(ctx, capID)
	if err != nil {
		return TestResult{}, err
	}
	return TestOfferWith(ctx, o, input, m.seller.handlers.builtin, m.seller.handlers.http, m.seller.handlers.runners)
}
