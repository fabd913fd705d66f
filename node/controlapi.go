package node

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/route"
	"github.com/swarmwage/swarmwage/node/ui"
)

// The control API is package controlapi's Server; the node listens, builds
// the dashboard and serves the API with itself as the backend
// (controlapi.Backend). The methods below are what the API needs of the
// node and nothing else reads.

var _ controlapi.Backend = (*Node)(nil)

// apiServer is the running control API with the dashboard's reachability
// watch.
type apiServer struct {
	n     *Node
	srv   *controlapi.Server
	reach *reachability
}

func startAPI(n *Node) (*apiServer, error) {
	ln, err := net.Listen("tcp", n.Config.API)
	if err != nil && n.Config.API == DefaultAPIAddr {
		// Another node on this machine has the default port. Clients find
		// the API through <repo>/api, so any free port serves as well.
		n.log.Warn("default control API port in use; using a free port", "addr", DefaultAPIAddr)
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("control API on %s: %w (choose another with --api, or port 0 for any free port)", n.Config.API, err)
	}
	a := &apiServer{n: n, reach: watchReachability(n)}
	dash, err := ui.New(dashboardBackend{n: n, reach: a.reach}, ui.Config{URL: controlapi.URLOf(ln), Logger: n.log})
	if err != nil {
		a.reach.close()
		ln.Close()
		return nil, err
	}
	if a.srv, err = controlapi.Serve(ln, n, controlapi.ServerConfig{Dir: n.Repo.Dir, Dashboard: dash}); err != nil {
		a.reach.close()
		return nil, err
	}
	return a, nil
}

func (a *apiServer) url() string { return a.srv.URL() }

func (a *apiServer) close() error {
	err := a.srv.Close()
	a.n.events.close()
	a.reach.close()
	return err
}

// Listings are the offers this node lists.
func (n *Node) Listings(ctx context.Context) (controlapi.ListingsInfo, error) {
	return Listings(ctx, n.Market.Store())
}

// CheckListing checks a listing request and turns it into market
// parameters.
func (n *Node) CheckListing(req controlapi.AddListingRequest) (market.ListingParams, error) {
	return listingParams(req)
}

// AddListing signs, stores and announces a listing.
func (n *Node) AddListing(ctx context.Context, p market.ListingParams) (controlapi.ListingInfo, error) {
	o, err := n.Market.AddListing(ctx, p)
	if err != nil {
		return controlapi.ListingInfo{}, err
	}
	return controlapi.NewListingInfo(o), nil
}

// RemoveListing withdraws the listing of capID.
func (n *Node) RemoveListing(ctx context.Context, capID string) error {
	return n.Market.RemoveListing(ctx, capID)
}

// ForgetRoute drops the cached sellers of capID.
func (n *Node) ForgetRoute(capID string) { n.Routing.Forget(capID) }

// Explain says how a hire of capID in class qos would route.
func (n *Node) Explain(ctx context.Context, capID string, qos route.QoS) (market.Routed, error) {
	return n.Market.Explain(ctx, capID, qos, 0)
}

// Wallet describes the node's wallet (package func Wallet).
func (n *Node) Wallet(ctx context.Context) (controlapi.WalletInfo, error) {
	return Wallet(ctx, n.Escrow, n.Settler)
}

// OnChain reports whether the node settles on the evm rail.
func (n *Node) OnChain() bool { return n.Settler != nil }

// DepositChain moves amount into the escrow contract (DepositEVM).
func (n *Node) DepositChain(ctx context.Context, amount int64) (escrow.Balance, error) {
	return DepositEVM(ctx, n.Escrow, n.Settler, amount)
}

// DepositCredits mints credits on a node that settles in credits.
func (n *Node) DepositCredits(ctx context.Context, req controlapi.DepositRequest) (escrow.Balance, error) {
	return Deposit(ctx, n.Escrow, n.Config.Network, req)
}

// Withdraw pays out what the node may take now (WithdrawEVM).
func (n *Node) Withdraw(ctx context.Context) (controlapi.WithdrawInfo, error) {
	return WithdrawEVM(ctx, n.Settler)
}

// Address is the node's address on the evm rail, or ErrNoRailAddress.
func (n *Node) Address() (string, error) {
	if n.Settler == nil {
		return "", ErrNoRailAddress
	}
	return n.Settler.Address(), nil
}

// Spent is what the node locked for hires of scope since then.
func (n *Node) Spent(ctx context.Context, scope string, since time.Time) (int64, error) {
	return n.Escrow.Spent(ctx, scope, since)
}

// History is what the node spent and earned since then, per day in loc.
func (n *Node) History(ctx context.Context, since time.Time, loc *time.Location) (escrow.History, error) {
	return n.Escrow.History(ctx, since, loc)
}

// Escrows lists the node's escrow records.
func (n *Node) Escrows(ctx context.Context, f escrow.Filter) ([]escrow.Record, error) {
	return n.Escrow.List(ctx, f)
}

// EscrowRecord is the escrow record of jobID.
func (n *Node) EscrowRecord(ctx context.Context, jobID string) (escrow.Record, error) {
	return n.Escrow.Get(ctx, jobID)
}

// Evidence is the signed evidence of jobID's escrow.
func (n *Node) Evidence(ctx context.Context, jobID string) (escrow.Receipt, error) {
	return n.Escrow.Evidence(ctx, jobID)
}

// RefundDelivered refunds a delivered job the buyer rejects.
func (n *Node) RefundDelivered(ctx context.Context, jobID, reason string) (escrow.Record, error) {
	return n.Market.RefundDelivered(ctx, jobID, reason)
}

// JobsPage is one page of job summaries.
func (n *Node) JobsPage(ctx context.Context, q market.JobQuery) ([]market.JobRecord, error) {
	return n.Market.JobsPage(ctx, q)
}

// Job is the record of jobID.
func (n *Node) Job(ctx context.Context, jobID string) (market.JobRecord, error) {
	return n.Market.Job(ctx, jobID)
}

// Rate rates a bought job.
func (n *Node) Rate(ctx context.Context, jobID string, score int) (market.JobRecord, error) {
	return n.Market.Rate(ctx, jobID, score)
}

// WatchJob returns a bought job's events so far and, while its hire runs
// in this daemon, a channel of the rest ending with the done event.
func (n *Node) WatchJob(ctx context.Context, jobID string) ([]controlapi.HireEvent, <-chan controlapi.HireEvent, *controlapi.HireInfo, error) {
	if l := n.hires.get(jobID); l != nil {
		past, live, res := l.watch()
		return past, live, res, nil
	}
	rec, err := n.Market.Job(ctx, jobID)
	if err != nil {
		return nil, nil, nil, err
	}
	var past []controlapi.HireEvent
	for _, ev := range rec.Events {
		past = append(past, controlapi.HireEvent{Event: market.Event{Type: ev.Type, JobID: jobID, Message: ev.Message, ElapsedMS: ev.ElapsedMS}})
	}
	return past, nil, nil, nil
}

// RequestShutdown asks the daemon's main loop to close the node
// (ShutdownRequested).
func (n *Node) RequestShutdown() {
	n.ShutdownRequested()
	n.stopReqOnce.Do(func() { close(n.stopCh) })
}

// ShutdownRequested is closed once a client asked the daemon to stop
// (POST /v1/shutdown): the daemon's main loop then closes the node.
func (n *Node) ShutdownRequested() <-chan struct{} {
	n.stopOnce.Do(func() { n.stopCh = make(chan struct{}) })
	return n.stopCh
}

// SubscribeEvents opens a stream of job events (GET /v1/events).
func (n *Node) SubscribeEvents() (controlapi.EventStream, bool) {
	s, cancel, ok := n.events.subscribe()
	if !ok {
		return controlapi.EventStream{}, false
	}
	return s.stream(cancel), true
}
