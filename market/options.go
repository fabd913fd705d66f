package market

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/swarmwage/swarmwage/market/route"
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"github.com/swarmwage/swarmwage/market/builtin"
)

// Defaults of a seller's terms and limits.
const (
	// DefaultWindow is the verification window a seller quotes: how long
	// after delivery a buyer may still refund. Buyers that verify at once
	// settle in milliseconds; the window only matters when one crashes.
	DefaultWindow = 10 * time.Minute
	// DefaultMaxDuration is the longest job deadline a seller accepts.
	DefaultMaxDuration = 5 * time.Minute
	// DefaultQuoteTTL is how long a quote stays valid.
	DefaultQuoteTTL = time.Minute
	// DefaultMaxPrice is the most one hire pays when neither the hire
	// (HireRequest.MaxPrice) nor a [[policy]] says otherwise: 1 in the
	// rail's unit (a credit, a token), in micro units. One mistyped script
	// must not drain a wallet.
	DefaultMaxPrice = 1_000_000
	// DefaultQueue is how many jobs may wait for a free slot before quotes
	// answer 429.
	DefaultQueue = 64
	// defaultOutboxInterval is the first wait before an unsent settle is
	// tried again; each failure doubles it (see outbox.go).
	defaultOutboxInterval = time.Second
)

// Option configures a Market.
type Option func(*config) error

type config struct {
	logger         *slog.Logger
	runtime        func() any
	builtin        *builtin.Registry
	httpClient     *http.Client
	window         time.Duration
	maxDuration    time.Duration
	quoteTTL       time.Duration
	concurrency    int
	queue          int
	outboxInterval time.Duration
	allowRisk3     bool
	maxPrice       int64
	// acceptHorizon is signed into listings when set (AcceptHorizon).
	acceptHorizon    time.Duration
	acceptHorizonSet bool
	// admit, when set, may refuse new quotes and hires (Admission).
	admit func(context.Context) error
	// readHeaderTimeout bounds a stream's request headers.
	readHeaderTimeout time.Duration
	now               func() time.Time
	// tamper rewrites listings before they are served (tests only).
	tamper func(*SignedListing)
	// publishPayloads serves inputs and outputs with receipts.
	publishPayloads bool
	// refuseFalseRefunders refuses quotes to buyers shown to have refunded
	// output the capability's verifier accepts.
	refuseFalseRefunders bool
	// policies and catalog route hires (package route).
	policies route.Policies
	catalog  *route.Catalog
	// settlement is this node's rail and payout address (ListingSettlement).
	settlement *Settlement
	// quotePrice rewrites the price of every quote (tests only).
	quotePrice func(Credits) Credits
	// tamperQuote rewrites every signed quote before it is sent (tests
	// only).
	tamperQuote func(*SignedQuote)
	// acceptGrace is how long a job's handler runs before its lock is
	// written on its own (acceptGrace, the constant; tests change it).
	acceptGrace time.Duration
	// dropEarly, when set, ends a stream after its early delivery and
	// writes nothing, as a crash before the commit would (tests only).
	dropEarly bool
	// runHandler replaces every handler (tests only).
	runHandler func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)
	// runners run the handler kinds of other packages (HandlerRunner).
	runners map[string]Runner
	// onJob is called after each job record write (OnJob).
	onJob func(r JobRecord, created bool)
	// timers receives the escrow's timer callbacks for this market
	// (WithTimers).
	timers *Timers
}

func defaultConfig() config {
	return config{
		logger:            slog.Default().With("subsystem", "swarmwage/market"),
		httpClient:        &http.Client{},
		window:            DefaultWindow,
		maxDuration:       DefaultMaxDuration,
		quoteTTL:          DefaultQuoteTTL,
		concurrency:       max(4, 2*runtime.NumCPU()),
		queue:             DefaultQueue,
		maxPrice:          DefaultMaxPrice,
		outboxInterval:    defaultOutboxInterval,
		readHeaderTimeout: readHeaderTimeout,
		acceptGrace:       acceptGrace,
		now:               time.Now,
	}
}

func (c *config) validate() error {
	switch {
	case c.window <= 0 || c.window > 30*24*time.Hour:
		return errors.New("market: VerificationWindow must be between 1ms and 30 days")
	case c.maxDuration <= 0:
		return errors.New("market: MaxJobDuration must be positive")
	case c.quoteTTL <= 0:
		return errors.New("market: QuoteTTL must be positive")
	case c.maxPrice <= 0:
		return errors.New("market: MaxPrice must be positive")
	case c.concurrency < 1 || c.queue < 0:
		return errors.New("market: Concurrency must be at least 1 and Queue at least 0")
	}
	return nil
}

// OnJob registers a hook called with a job record (without its input and
// output) after each write of it is committed: created (created is true),
// updated, rated. It runs on the goroutine that wrote the record, so it must
// not block; the node's event bus feeds the dashboard from it. Defaults to
// none.
func OnJob(f func(r JobRecord, created bool)) Option {
	return func(c *config) error { c.onJob = f; return nil }
}

// Logger sets the logger. Defaults to slog.Default().
func Logger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l.With("subsystem", "swarmwage/market"); return nil }
}

// SandboxRuntime sets the function that describes the sandbox runtime served
// at GET /capabilities/code.execute.sandboxed/runtime. Defaults to none.
func SandboxRuntime(f func() any) Option {
	return func(c *config) error { c.runtime = f; return nil }
}

// Builtin sets the registry of built-in handlers. Defaults to none: builtin
// listings then fail their jobs.
func Builtin(r *builtin.Registry) Option {
	return func(c *config) error { c.builtin = r; return nil }
}

// HTTPClient sets the client of http: handlers. Defaults to a plain client
// (a seller's http handler is its own, usually local, server).
func HTTPClient(h *http.Client) Option {
	return func(c *config) error { c.httpClient = h; return nil }
}

// VerificationWindow sets the window this seller quotes. Defaults to
// DefaultWindow.
func VerificationWindow(d time.Duration) Option {
	return func(c *config) error { c.window = d; return nil }
}

// MaxJobDuration sets the longest job deadline this seller accepts.
// Defaults to DefaultMaxDuration.
func MaxJobDuration(d time.Duration) Option {
	return func(c *config) error { c.maxDuration = d; return nil }
}

// QuoteTTL sets how long quotes stay valid. Defaults to DefaultQuoteTTL.
func QuoteTTL(d time.Duration) Option {
	return func(c *config) error { c.quoteTTL = d; return nil }
}

// Concurrency sets how many jobs run at once and how many more may queue.
// Defaults to max(4, 2*NumCPU) and DefaultQueue.
func Concurrency(running, queued int) Option {
	return func(c *config) error { c.concurrency, c.queue = running, queued; return nil }
}

// MaxPrice sets the most one hire pays, in micro units of the rail, when
// neither the hire's own MaxPrice nor a [[policy]] max_price applies (the
// hire's may be higher: it is the caller's explicit choice). Defaults to
// DefaultMaxPrice.
func MaxPrice(micro int64) Option {
	return func(c *config) error { c.maxPrice = micro; return nil }
}

// AllowRiskTier3 lets this node hire risk tier 3 capabilities without a
// per-hire confirmation. Defaults to off: each such hire needs Confirm.
func AllowRiskTier3() Option {
	return func(c *config) error { c.allowRisk3 = true; return nil }
}

// Admission sets a check asked before this node quotes and before it
// hires: while it returns an error, POST /quotes answers 507 Insufficient
// Storage and Hire returns that error before anything is locked. Jobs
// already accepted or locked go on. The node uses it for its free-space
// watermark. Defaults to none.
func Admission(f func(context.Context) error) Option {
	return func(c *config) error { c.admit = f; return nil }
}

// admission asks the Admission check, if any.
func (c *config) admission(ctx context.Context) error {
	if c.admit == nil {
		return nil
	}
	return c.admit(ctx)
}

// OutboxInterval sets the first wait before an unsent settle is retried;
// later waits double up to 5 minutes. Defaults to 1 s.
func OutboxInterval(d time.Duration) Option {
	return func(c *config) error { c.outboxInterval = d; return nil }
}

// Policies sets the buyer's [[policy]] tables; they must be valid
// (route.Policies.Validate). Defaults to none.
func Policies(ps route.Policies) Option {
	return func(c *config) error {
		if err := ps.Validate(); err != nil {
			return err
		}
		c.policies = ps
		return nil
	}
}

// Catalog sets the WCP catalog whose tombstones send a retired ID to its
// successor. Defaults to none.
func Catalog(cat *route.Catalog) Option {
	return func(c *config) error { c.catalog = cat; return nil }
}

// PublishPayloads makes GET /receipts serve each job's input and output
// when asked (?payloads=1), not only their hashes. Defaults to off.
func PublishPayloads() Option {
	return func(c *config) error { c.publishPayloads = true; return nil }
}

// RefuseFalseRefunders makes the seller refuse quotes to a buyer once it
// refunded delivered output that the capability's standard verifier
// accepts (checked by the seller on its stored input and output). Defaults
// to off: the false refund is only logged and kept as evidence.
func RefuseFalseRefunders() Option {
	return func(c *config) error { c.refuseFalseRefunders = true; return nil }
}
