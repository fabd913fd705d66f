// Package builtin holds the seller handlers a swarmwage node can run by itself,
// without any worker process: statistics, numeric expressions, charts, image
// upscaling, structured extraction from a URL, extractive summarization,
// sentiment classification and, when a sandbox is configured, sandboxed code
// execution.
//
// Every handler implements one capability of the taxonomy in
// docs/specs/capability-taxonomy-v0.1.md (swarmwage/v0.1) and produces
// output that passes the capability's verifier in package verify.
//
// # Errors
//
// A handler returns *InputError when the input is wrong (the agent endpoint
// answers HTTP 400 with the reasons) and *TooLargeError when the page that
// data.extract.from-url fetched exceeds max_response_kb (HTTP 415). Both have
// an HTTPStatus() int method, so the endpoint can use
//
//	var st interface{ HTTPStatus() int }
//	if errors.As(err, &st) { code = st.HTTPStatus() }
//
// Any other error is a failure of the seller (failed job, refund).
//
// # Capabilities and their definitions
//
//   - compute.statistics.mean: arithmetic mean (gonum stat.Mean).
//   - compute.statistics.median: the middle value of the sorted data; for an
//     even count, the mean of the two middle values.
//   - compute.statistics.variance, compute.statistics.stddev: SAMPLE variance
//     and standard deviation (divisor n-1), as gonum stat.Variance and
//     stat.StdDev compute them; they need at least two values. (verify
//     accepts the sample and the population form.)
//   - compute.statistics.percentile-95: linear interpolation between closest
//     ranks (Hyndman and Fan type 7, the default of numpy.percentile, R
//     quantile and Excel PERCENTILE.INC): h = (n-1)*0.95, result =
//     x[floor(h)] + (h-floor(h))*(x[floor(h)+1]-x[floor(h)]).
//     Mean, median and percentile-95 are verify.Statistic, the definition
//     the verifier recomputes. All statistics reject empty data, non-finite
//     values and results that overflow float64.
//   - compute.math.numeric: see mathexpr.go; arithmetic only.
//   - chart.generate.from-data: see chart.go.
//   - image.upscale.2x, image.upscale.4x: Catmull-Rom resampling, PNG out.
//   - data.extract.from-url: see extract.go.
//   - text.summarize.short|medium|long: see summarize.go.
//   - classify.text.sentiment: VADER, see sentiment.go.
//   - code.execute.sandboxed: package sandbox behind the handler (only
//     registered with WithSandbox).
//
// A Registry and its handlers are safe for concurrent use.
package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Capability IDs served by this package.
const (
	CapStatsMean       = "compute.statistics.mean"
	CapStatsMedian     = "compute.statistics.median"
	CapStatsStddev     = "compute.statistics.stddev"
	CapStatsVariance   = "compute.statistics.variance"
	CapStatsP95        = "compute.statistics.percentile-95"
	CapMathNumeric     = "compute.math.numeric"
	CapChart           = "chart.generate.from-data"
	CapUpscale2x       = "image.upscale.2x"
	CapUpscale4x       = "image.upscale.4x"
	CapExtractFromURL  = "data.extract.from-url"
	CapSummarizeShort  = "text.summarize.short"
	CapSummarizeMedium = "text.summarize.medium"
	CapSummarizeLong   = "text.summarize.long"
	CapSentiment       = "classify.text.sentiment"
	CapCodeSandboxed   = "code.execute.sandboxed"
)

// maxInputBytes caps every handler's raw input. The agent endpoint has its own
// body cap; this one protects callers that use the handlers directly. 32 MiB
// leaves room for a base64 image at the upscale limit.
const maxInputBytes = 32 << 20

var (
	// ErrUnknownCapability is returned for a capability this package does not serve.
	ErrUnknownCapability = errors.New("builtin: unknown capability")

	// errBlockedDestination marks a URL whose destination the SSRF guard
	// refuses; the extractor turns it into an *InputError.
	errBlockedDestination = errors.New("destination is not allowed")
	// errNotArithmetic marks an expression outside the arithmetic whitelist.
	errNotArithmetic = errors.New("expression is not plain arithmetic")
)

// Handler runs one capability: it takes the job input and returns the job
// output, both JSON documents.
type Handler interface {
	Handle(ctx context.Context, input json.RawMessage) (json.RawMessage, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	return f(ctx, input)
}

// InputError says that the job input is invalid for the capability. The agent
// endpoint answers it with HTTP 400 and the reasons.
type InputError struct {
	Capability string
	Reasons    []string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("invalid input for %s: %s", e.Capability, strings.Join(e.Reasons, "; "))
}

// HTTPStatus is 400 Bad Request.
func (e *InputError) HTTPStatus() int { return 400 }

// TooLargeError says that a fetched page is larger than the buyer's
// max_response_kb (data.extract.from-url). The spec asks for HTTP 415.
type TooLargeError struct {
	Capability string
	URL        string
	LimitKB    int
	// SizeBytes is the announced Content-Length, or a lower bound (the
	// number of bytes read before giving up) when the server sent none.
	SizeBytes int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: page %s is larger than max_response_kb=%d (at least %d bytes)",
		e.Capability, e.URL, e.LimitKB, e.SizeBytes)
}

// HTTPStatus is 415, as the taxonomy requires for an oversized page.
func (e *TooLargeError) HTTPStatus() int { return 415 }

func inputErr(capID string, reasons ...string) *InputError {
	return &InputError{Capability: capID, Reasons: reasons}
}

// Registry maps capability IDs to handlers. It is immutable after New and safe
// for concurrent use.
type Registry struct {
	handlers map[string]Handler
}

// New builds the registry of built-in handlers. code.execute.sandboxed is only
// present when WithSandbox is given.
func New(opts ...Option) (*Registry, error) {
	cfg := defaultConfig()
	for _, opt := range opts {
		if err := opt(cfg); err != nil {
			return nil, fmt.Errorf("builtin: %w", err)
		}
	}
	r := &Registry{handlers: make(map[string]Handler)}
	for _, op := range statOps() {
		r.handlers[op.capID] = statsHandler{op: op}
	}
	r.handlers[CapMathNumeric] = HandlerFunc(handleNumeric)
	r.handlers[CapChart] = HandlerFunc(handleChart)
	r.handlers[CapUpscale2x] = upscaleHandler{capID: CapUpscale2x, factor: 2}
	r.handlers[CapUpscale4x] = upscaleHandler{capID: CapUpscale4x, factor: 4}
	ex, err := newExtractor(cfg)
	if err != nil {
		return nil, fmt.Errorf("builtin: %w", err)
	}
	r.handlers[CapExtractFromURL] = ex
	for _, l := range summaryLengths() {
		r.handlers[l.capID] = summarizeHandler{length: l}
	}
	r.handlers[CapSentiment] = newSentimentHandler()
	if cfg.sandbox != nil {
		r.handlers[CapCodeSandboxed] = sandboxHandler{runner: cfg.sandbox}
	}
	return r, nil
}

// Lookup returns the handler for capID.
func (r *Registry) Lookup(capID string) (Handler, bool) {
	h, ok := r.handlers[capID]
	return h, ok
}

// Handle runs capID's handler, or returns ErrUnknownCapability.
func (r *Registry) Handle(ctx context.Context, capID string, input json.RawMessage) (json.RawMessage, error) {
	h, ok := r.handlers[capID]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownCapability, capID)
	}
	return h.Handle(ctx, input)
}

// Capabilities lists the capability IDs this registry serves, sorted.
func (r *Registry) Capabilities() []string {
	ids := make([]string, 0, len(r.handlers))
	for id := range r.handlers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// AllCapabilities lists, sorted, every capability this package can serve,
// code.execute.sandboxed included (it needs WithSandbox at run time). It is
// what `swarmwage caps list --builtin` marks.
func AllCapabilities() []string {
	ids := []string{
		CapStatsMean, CapStatsMedian, CapStatsStddev, CapStatsVariance, CapStatsP95, CapMathNumeric, CapChart,
		CapUpscale2x, CapUpscale4x, CapExtractFromURL, CapSummarizeShort, CapSummarizeMedium, CapSummarizeLong,
		CapSentiment, CapCodeSandboxed,
	}
	slices.Sort(ids)
	return ids
}

// decodeInput unmarshals a job input into v. Unknown fields are ignored
// (capabilities only gain optional fields within a major version).
func decodeInput(capID string, input json.RawMessage, v any) error {
	if len(input) > maxInputBytes {
		return inputErr(capID, fmt.Sprintf("input is %d bytes, the limit is %d", len(input), maxInputBytes))
	}
	if err := json.Unmarshal(input, v); err != nil {
		return inputErr(capID, fmt.Sprintf("input is not a valid JSON object for this capability: %v", err))
	}
	return nil
}

// encodeOutput marshals an output document.
func encodeOutput(capID string, v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: encode output: %w", capID, err)
	}
	return b, nil
}
