package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/internal/kv"
	"github.com/swarmwage/swarmwage/market"
)

// ErrNotOnline is returned by NeedDaemon when no daemon serves the repo:
// the command needs the network.
var ErrNotOnline = errors.New("this command needs the network: start 'swarmwage daemon' first (in another terminal, or with '&')")

// Access is how an Env opens a repo when no daemon runs.
type Access int

const (
	// ReadOnly opens the database read-only, so that the command works on
	// a full disk (a database that must be written first is opened for
	// writing; see OpenLocalReadOnly).
	ReadOnly Access = iota
	// ReadWrite opens it for writing.
	ReadWrite
)

// Env is the node a command works with, decided in one place (as Kubo's
// cmdenv does): the daemon's control API when a daemon runs on the repo,
// else the repo opened in this process, whose timers and network do not
// run (a daemon settles what falls due). Its methods are the same either
// way. Close it when done. Not safe for concurrent use.
type Env struct {
	// Repo is the opened repo.
	Repo *Repo
	// Client is the daemon's control API; nil offline.
	Client *controlapi.Client

	access  Access
	local   *Local
	esc     *escrow.Escrow
	settler *evm.Settler // offline on the evm rail
}

// OpenEnv opens the repo at dir and the node serving it: the running
// daemon if there is one, else the repo's database with access. A
// missing repo is a NoRepoError, a bad config.toml a *ConfigError; a repo
// another offline command holds past a short wait is ErrRepoLocked.
func OpenEnv(dir string, access Access) (*Env, error) {
	repo, err := Open(dir)
	if err != nil {
		return nil, err
	}
	cl, err := dialRunning(dir)
	if err != nil {
		return nil, err
	}
	e := &Env{Repo: repo, Client: cl, access: access}
	if cl != nil {
		return e, nil
	}
	open := OpenLocalReadOnly
	if access == ReadWrite {
		open = OpenLocal
	}
	if e.local, err = open(repo); err != nil {
		return nil, err
	}
	return e, nil
}

// NeedDaemon is OpenEnv for a command that needs the network: without a
// running daemon it returns ErrNotOnline.
func NeedDaemon(dir string) (*Env, error) {
	repo, err := Open(dir)
	if err != nil {
		return nil, err
	}
	cl, err := dialRunning(dir)
	if err != nil {
		return nil, err
	}
	if cl == nil {
		return nil, ErrNotOnline
	}
	return &Env{Repo: repo, Client: cl}, nil
}

// DialRunning returns a client of the daemon serving the repo at dir, or
// nil when none runs. The api files a killed daemon left behind are
// removed.
func DialRunning(dir string) (*controlapi.Client, error) { return dialRunning(dir) }

func dialRunning(dir string) (*controlapi.Client, error) {
	cl, err := controlapi.Dial(dir)
	if errors.Is(err, controlapi.ErrNoDaemon) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !DaemonRunning(dir) {
		RemoveStaleAPI(dir)
		return nil, nil
	}
	return cl, nil
}

// Online reports whether a daemon serves the Env.
func (e *Env) Online() bool { return e.Client != nil }

// Local is the repo opened in this process; nil when a daemon serves it.
func (e *Env) Local() *Local { return e.local }

// Close releases the repo (offline); the daemon goes on.
func (e *Env) Close() error {
	var errs []error
	if e.settler != nil {
		errs = append(errs, e.settler.Close())
		e.settler = nil
	}
	if e.esc != nil {
		errs = append(errs, e.esc.Close())
		e.esc = nil
	}
	if e.local != nil {
		errs = append(errs, e.local.Close())
		e.local = nil
	}
	return errors.Join(errs...)
}

// escrow opens the offline escrow on first use. Its log lines would only
// clutter a command's output.
func (e *Env) escrow() (*escrow.Escrow, error) {
	if e.esc != nil {
		return e.esc, nil
	}
	opts := []escrow.Option{escrow.WithLogger(discardLogger())}
	if e.settler == nil {
		s, err := NewSettler(e.Repo, discardLogger())
		if err != nil {
			return nil, fmt.Errorf("open the evm rail: %w", err)
		}
		e.settler = s
	}
	if e.settler != nil {
		opts = append(opts, escrow.WithRail(e.settler))
	}
	esc, err := escrow.New(e.local.DB, e.Repo.Key, opts...)
	if errors.Is(err, badger.ErrReadOnlyTxn) && e.local.ReadOnly {
		// The escrow was never opened on this repo: it must write its
		// schema first, so the database is opened for writing.
		if err := e.local.Close(); err != nil {
			return nil, err
		}
		if e.local, err = OpenLocal(e.Repo); err != nil {
			return nil, err
		}
		esc, err = escrow.New(e.local.DB, e.Repo.Key, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("open the escrow: %w", err)
	}
	if e.settler != nil {
		e.settler.Attach(esc)
	}
	e.esc = esc
	return esc, nil
}

// ID describes the node; offline its addresses come from the config.
func (e *Env) ID(ctx context.Context) (controlapi.IDInfo, error) {
	if e.Client != nil {
		return e.Client.ID(ctx)
	}
	return OfflineID(ctx, e.Repo, e.local.Store)
}

// Network is the node's network name.
func (e *Env) Network(ctx context.Context) (string, error) {
	if e.Client == nil {
		return e.Repo.Config.Network, nil
	}
	id, err := e.Client.ID(ctx)
	if err != nil {
		return "", err
	}
	return id.Network, nil
}

// Listings lists what the node sells.
func (e *Env) Listings(ctx context.Context) (controlapi.ListingsInfo, error) {
	if e.Client != nil {
		return e.Client.Listings(ctx)
	}
	return Listings(ctx, e.local.Store)
}

// AddListing lists a capability; a daemon announces it at once.
func (e *Env) AddListing(ctx context.Context, req controlapi.AddListingRequest) (controlapi.ListingInfo, error) {
	if e.Client != nil {
		return e.Client.AddListing(ctx, req)
	}
	return AddListingLocal(ctx, e.local.Store, req)
}

// RemoveListing stops selling capID.
func (e *Env) RemoveListing(ctx context.Context, capID string) error {
	if e.Client != nil {
		return e.Client.RemoveListing(ctx, capID)
	}
	return e.local.Store.Delete(ctx, capID)
}

// TestListing runs a listing's handler locally ('sell test').
func (e *Env) TestListing(ctx context.Context, req controlapi.TestListingRequest) (market.TestResult, error) {
	if e.Client != nil {
		return e.Client.TestListing(ctx, req)
	}
	return e.local.TestListing(ctx, req)
}

// Jobs lists at most limit job summaries of role (0: all), newest first.
func (e *Env) Jobs(ctx context.Context, role string, limit int) (controlapi.JobsInfo, error) {
	if e.Client != nil {
		return e.Client.ListJobs(ctx, role, limit)
	}
	return controlapi.JobsPage(ctx, e.jobView(), role, limit)
}

// jobView is the offline job view: the same service methods the daemon's
// market serves, over the repo's database read-only.
func (e *Env) jobView() *market.JobView {
	esc := e.escrowOrNil() // first: opening it may open the database again
	return market.OpenJobView(kv.OpenReadOnly(e.local.DB), esc)
}

// escrowOrNil is the offline escrow, or nil when it cannot be opened (a
// job's state then comes from its status alone).
func (e *Env) escrowOrNil() *escrow.Escrow {
	esc, err := e.escrow()
	if err != nil {
		return nil
	}
	return esc
}

// Job is one job record; market.ErrJobNotFound (offline) or a 404
// APIError when there is none.
func (e *Env) Job(ctx context.Context, id string) (market.JobRecord, error) {
	if e.Client != nil {
		return e.Client.Job(ctx, id)
	}
	return e.jobView().Job(ctx, id)
}

// Balance is the node's account.
func (e *Env) Balance(ctx context.Context) (escrow.Balance, error) {
	if e.Client != nil {
		return e.Client.Balance(ctx)
	}
	esc, err := e.escrow()
	if err != nil {
		return escrow.Balance{}, err
	}
	return esc.Balance(ctx)
}

// Deposit adds test credits and returns the new balance.
func (e *Env) Deposit(ctx context.Context, amount int64, memo string) (escrow.Balance, error) {
	if e.Client != nil {
		return e.Client.Deposit(ctx, amount, memo)
	}
	esc, err := e.escrow()
	if err != nil {
		return escrow.Balance{}, err
	}
	if e.settler != nil {
		return DepositEVM(ctx, esc, e.settler, amount)
	}
	if err := esc.Deposit(ctx, amount, memo); err != nil {
		return escrow.Balance{}, err
	}
	return esc.Balance(ctx)
}

// EscrowList lists escrow records, newest first.
func (e *Env) EscrowList(ctx context.Context, f escrow.Filter) ([]escrow.Record, error) {
	if e.Client != nil {
		return e.Client.EscrowList(ctx, f)
	}
	esc, err := e.escrow()
	if err != nil {
		return nil, err
	}
	return esc.List(ctx, f)
}

// EscrowGet is one job's escrow record.
func (e *Env) EscrowGet(ctx context.Context, jobID string) (escrow.Record, error) {
	if e.Client != nil {
		return e.Client.EscrowGet(ctx, jobID)
	}
	esc, err := e.escrow()
	if err != nil {
		return escrow.Record{}, err
	}
	return esc.Get(ctx, jobID)
}

// Evidence is the signed receipt of a job this node sold.
func (e *Env) Evidence(ctx context.Context, jobID string) (escrow.Receipt, error) {
	if e.Client != nil {
		return e.Client.Evidence(ctx, jobID)
	}
	esc, err := e.escrow()
	if err != nil {
		return escrow.Receipt{}, err
	}
	return esc.Evidence(ctx, jobID)
}

// History sums the escrow records since since per day (the node's local
// days) and per capability.
func (e *Env) History(ctx context.Context, since time.Time) (escrow.History, error) {
	if e.Client != nil {
		return e.Client.History(ctx, since)
	}
	esc, err := e.escrow()
	if err != nil {
		return escrow.History{}, err
	}
	return esc.History(ctx, since, time.Local)
}

// Wallet is the balance with the rail and, on evm, the chain's figures.
func (e *Env) Wallet(ctx context.Context) (controlapi.WalletInfo, error) {
	if e.Client != nil {
		return e.Client.Wallet(ctx)
	}
	esc, err := e.escrow()
	if err != nil {
		return controlapi.WalletInfo{}, err
	}
	return Wallet(ctx, esc, e.settler)
}

// Withdraw pays out to the node's address what it may take now (evm).
func (e *Env) Withdraw(ctx context.Context) (controlapi.WithdrawInfo, error) {
	if e.Client != nil {
		return e.Client.Withdraw(ctx)
	}
	if _, err := e.escrow(); err != nil {
		return controlapi.WithdrawInfo{}, err
	}
	return WithdrawEVM(ctx, e.settler)
}
