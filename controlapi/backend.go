package controlapi

import (
	"context"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/route"
)

// Backend is what the server answers its routes from: a running node
// (*node.Node meets it). It is made of one small interface per group of
// routes, each saying only what those routes need.
type Backend interface {
	InfoBackend
	ListingBackend
	WalletBackend
	EscrowBackend
	JobBackend
	HireBackend
	OpsBackend
	EventBackend
}

// InfoBackend answers GET /v1/id, /v1/status, /v1/peers and /v1/find.
type InfoBackend interface {
	ID(ctx context.Context) (IDInfo, error)
	Status(ctx context.Context) (StatusInfo, error)
	Peers() PeersInfo
	// Find finds sellers of capID (at most limit, 0 for the default).
	Find(ctx context.Context, capID string, limit int) (FindInfo, error)
	// ForgetRoute drops what the node cached of capID's sellers, so the
	// next Find asks the DHT (find --refresh).
	ForgetRoute(capID string)
	// Explain says how a hire of capID would route (find --explain).
	Explain(ctx context.Context, capID string, qos route.QoS) (market.Routed, error)
}

// ListingBackend answers the /v1/listings routes.
type ListingBackend interface {
	Listings(ctx context.Context) (ListingsInfo, error)
	// CheckListing checks a listing request and turns it into market
	// parameters; its errors are the request's fault.
	CheckListing(req AddListingRequest) (market.ListingParams, error)
	AddListing(ctx context.Context, p market.ListingParams) (ListingInfo, error)
	RemoveListing(ctx context.Context, capID string) error
	TestListing(ctx context.Context, req TestListingRequest) (market.TestResult, error)
}

// WalletBackend answers the /v1/wallet routes.
type WalletBackend interface {
	Wallet(ctx context.Context) (WalletInfo, error)
	// OnChain reports whether the node settles on a chain (the evm rail)
	// rather than in credits.
	OnChain() bool
	// DepositChain moves amount from the node's address into escrow.
	DepositChain(ctx context.Context, amount int64) (escrow.Balance, error)
	// DepositCredits mints credits (credits rail).
	DepositCredits(ctx context.Context, req DepositRequest) (escrow.Balance, error)
	Withdraw(ctx context.Context) (WithdrawInfo, error)
	// Address is the node's address on its rail, or ErrNoRailAddress.
	Address() (string, error)
	Spent(ctx context.Context, scope string, since time.Time) (int64, error)
	History(ctx context.Context, since time.Time, loc *time.Location) (escrow.History, error)
}

// EscrowBackend answers the /v1/escrow routes.
type EscrowBackend interface {
	Escrows(ctx context.Context, f escrow.Filter) ([]escrow.Record, error)
	EscrowRecord(ctx context.Context, jobID string) (escrow.Record, error)
	Evidence(ctx context.Context, jobID string) (escrow.Receipt, error)
	RefundDelivered(ctx context.Context, jobID, reason string) (escrow.Record, error)
}

// JobBackend answers the /v1/jobs routes but the hire's own.
type JobBackend interface {
	JobsPage(ctx context.Context, q market.JobQuery) ([]market.JobRecord, error)
	Job(ctx context.Context, jobID string) (market.JobRecord, error)
	Rate(ctx context.Context, jobID string, score int) (market.JobRecord, error)
	CancelJob(ctx context.Context, jobID string) (escrow.Record, error)
}

// HireBackend answers POST /v1/hire and GET /v1/jobs/{id}/events.
type HireBackend interface {
	// RunHire runs a hire to its end, calling progress with each event.
	RunHire(ctx context.Context, req market.HireRequest, progress func(market.Event)) HireInfo
	// Detach starts a hire that runs on after the client leaves.
	Detach(req market.HireRequest) HireInfo
	// WatchJob returns a bought job's events so far and, while its hire
	// runs in this daemon, a channel of the rest ending with the done
	// event (nil otherwise); res is the result when the hire is known to
	// have ended in this daemon.
	WatchJob(ctx context.Context, jobID string) (past []HireEvent, live <-chan HireEvent, res *HireInfo, err error)
	// JobResult describes a finished bought job as a hire result.
	JobResult(ctx context.Context, jobID string) (HireInfo, error)
}

// OpsBackend answers POST /v1/peers/connect and /v1/shutdown.
type OpsBackend interface {
	Connect(ctx context.Context, addr string) (PeerInfo, error)
	// RequestShutdown asks the daemon to stop; it returns at once.
	RequestShutdown()
}

// EventBackend answers GET /v1/events.
type EventBackend interface {
	// SubscribeEvents opens an event stream, or reports false when no
	// more may open (MaxEventStreams) or the node is closing.
	SubscribeEvents() (EventStream, bool)
}

// EventStream is one open stream of job events.
type EventStream struct {
	// C carries the events; it is closed when the stream ends.
	C <-chan Event
	// Lost reports, and clears, whether events were dropped since the
	// last call (the reader was slow).
	Lost func() bool
	// Cancel ends the stream.
	Cancel func()
}
