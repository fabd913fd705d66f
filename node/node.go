// Package node is the composition root of one swarmwage node: it builds,
// starts and stops the parts (the repo directory with config, identity and
// lock; the libp2p host of package node/p2p; the Badger database of package
// node/storage; the capability DHT, the escrow and the market) and serves
// the local control API of package controlapi with itself as its backend
// (controlapi.Backend, met in controlapi.go).
//
// Repo layout:
//
//	<repo>/identity.key   Ed25519 libp2p private key (0600)
//	<repo>/config.toml    Config
//	<repo>/data/          the one Badger database (market, escrow, DHT, peerstore),
//	                      and the disk reserves (package node/storage)
//	<repo>/cache/         caches that may be deleted (compiled sandbox module)
//	<repo>/repo.lock      flock held by the process that has the data open
//	<repo>/api            control API URL, present while a daemon serves
//	<repo>/api.token      control API bearer token (0600), same lifetime
package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/common"
	badgerds "github.com/ipfs/go-ds-badger4"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/p2p/host/peerstore/pstoreds"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/builtin"
	mcphandler "github.com/swarmwage/swarmwage/market/handler/mcp"
	"github.com/swarmwage/swarmwage/market/handler/openai"
	"github.com/swarmwage/swarmwage/node/p2p"
	"github.com/swarmwage/swarmwage/node/storage"
	"github.com/swarmwage/swarmwage/sandbox"
)

// UserAgent is sent in libp2p identify.
const UserAgent = "swarmwage/0.1"

// Options override the repo's config for one run of a node.
type Options struct {
	// Network overrides Config.Network when set.
	Network string
	// Listen overrides Config.Listen when set.
	Listen []string
	// Bootstrap overrides Config.Bootstrap when set.
	Bootstrap []string
	// API overrides Config.API when set.
	API string
	// AgentHTTP overrides Config.AgentHTTP when set.
	AgentHTTP string
	// RelayService turns [p2p] relay_service on for this run.
	RelayService bool
	// Version is the binary's version, for status.
	Version string
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// DHTOptions are extra options for the capability DHT (tests shorten
	// intervals with them).
	DHTOptions []dht.Option
	// MarketOptions are extra options for the market.
	MarketOptions []market.Option
	// EscrowOptions are extra options for the escrow (tests shorten its
	// timers with them).
	EscrowOptions []escrow.Option
	// Gateway overrides Config.Gateway.Listen when set ('daemon
	// --gateway').
	Gateway string
	// StartGateway starts the gateway when Config.Gateway.Listen is set:
	// Start calls it after the control API serves, and Close closes what it
	// returns first. It is a hook (the command wires package gateway in),
	// because the gateway imports this package.
	StartGateway func(context.Context, *Node) (io.Closer, error)
}

// Node is a running swarmwage node.
type Node struct {
	Repo    *Repo
	Config  Config
	Host    host.Host
	DB      *badger.DB
	Routing *dht.Routing
	Market  *market.Market
	Escrow  *escrow.Escrow
	// Settler is the evm settlement rail; nil on credits.
	Settler *evm.Settler

	log       *slog.Logger
	version   string
	net       *p2p.State
	ds        *badgerds.Datastore
	pstore    peerstore.Peerstore
	api       *apiServer
	agentHTTP *http.Server
	// agentHTTPAddr is the plain-HTTP agent endpoint's address.
	agentHTTPAddr string
	sandbox       *lazySandbox
	// mcp runs the MCP servers of mcp:CMD and mcp+http:URL listings.
	mcp   *mcphandler.Runner
	hires *hireHub
	guard *storage.Guard
	gc    *storage.ValueLogGC
	// horizonPending: the seller's accept horizon was unknown at start
	// (its chain never reached); horizon learns it in the background.
	horizonPending bool
	horizon        *horizonLearner
	horizonEvery   time.Duration // tests: 0 means horizonRetry
	closeOnce      sync.Once
	closeErr       error
	// stopCh is closed when a client asked the daemon to stop (api_ops.go).
	stopOnce, stopReqOnce sync.Once
	stopCh                chan struct{}
	// events feeds GET /v1/events (the dashboard's live jobs).
	events *eventBus
	faults faultInjector // partitions peers; only under the failpoints build tag
	// startGateway and gateway: Options.StartGateway and what it started.
	startGateway func(context.Context, *Node) (io.Closer, error)
	gateway      io.Closer
}

// New builds a node from repo: it takes the repo lock, opens the database,
// starts the libp2p host and wires the DHT and the market. Nothing is
// announced and no API is served until Start.
func New(ctx context.Context, repo *Repo, opts Options) (_ *Node, err error) {
	cfg, err := effectiveConfig(repo.Config, opts)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	// A read-only command (a script polling 'status' while the daemon
	// starts) holds the lock for milliseconds: wait for it.
	if err := lockWaiting(repo); err != nil {
		return nil, err
	}
	n := &Node{Repo: repo, Config: cfg, log: log, version: opts.Version, hires: newHireHub(), events: newEventBus(), startGateway: opts.StartGateway}
	// If construction fails partway, close what was already started.
	defer func() {
		if err != nil {
			err = errors.Join(err, n.Close())
		}
	}()
	minFree, err := cfg.Storage.minFree()
	if err != nil {
		return nil, err
	}
	n.guard = storage.NewGuard(repo.DataDir(), minFree, log)
	if err := n.guard.CheckOpen(); err != nil {
		return nil, fmt.Errorf("start the node: %w", err)
	}
	if n.ds, err = storage.Open(repo.DataDir(), false); err != nil {
		return nil, err
	}
	n.DB = n.ds.DB
	n.guard.Tick() // make the reserves at once
	if err := checkSchema(n.DB); err != nil {
		return nil, err
	}
	if n.pstore, err = pstoreds.NewPeerstore(ctx, n.ds, pstoreds.DefaultOpts()); err != nil {
		return nil, fmt.Errorf("open peerstore: %w", err)
	}
	cfg.Listen = freeDefaultListen(cfg.Listen, log)
	boot, err := ParseBootstrap(cfg.Bootstrap)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	static, err := ParseBootstrap(cfg.P2P.Relays)
	if err != nil {
		return nil, fmt.Errorf("p2p relays: %w", err)
	}
	pcfg := p2p.Config{
		Key: repo.Key, Listen: cfg.Listen, Peerstore: n.pstore, UserAgent: UserAgent, Network: cfg.Network,
		Reachability: cfg.P2P.reachability(cfg.Network), RelayService: cfg.P2P.RelayService,
		Relays: static, Bootstrap: len(boot) > 0, Logger: log,
	}
	if n.Host, n.net, err = p2p.New(pcfg, n.faults.hostOptions()...); err != nil {
		return nil, err
	}
	dopts := []dht.Option{dht.Datastore(n.ds), dht.Logger(log)}
	if len(boot) > 0 || cfg.Network != dht.Amino {
		dopts = append(dopts, dht.BootstrapPeers(boot...))
	}
	if n.Routing, err = dht.New(n.Host, cfg.Network, append(dopts, opts.DHTOptions...)...); err != nil {
		return nil, err
	}
	n.net.SetRouting(n.Routing)
	// The escrow is built before the market, so its timer callbacks go to
	// the market's Timers, which the market registers with (WithTimers).
	timers := new(market.Timers)
	eopts := append([]escrow.Option{escrow.WithLogger(log), escrow.WithOnSettle(func(r escrow.Record) {
		timers.Settled(r)
		n.events.settled(r)
	}), escrow.WithUndecided(timers.Undecided)}, opts.EscrowOptions...)
	if n.Settler, err = NewSettler(repo, log); err != nil {
		return nil, err
	}
	if n.Settler != nil {
		eopts = append(eopts, escrow.WithRail(n.Settler))
	}
	if n.Escrow, err = escrow.New(n.DB, repo.Key, eopts...); err != nil {
		return nil, err
	}
	n.sandbox = &lazySandbox{opts: []sandbox.Option{sandbox.WithCacheDir(filepath.Join(repo.CacheDir(), "wazero"))}}
	reg, err := builtin.New(builtin.WithSandbox(n.sandbox))
	if err != nil {
		return nil, err
	}
	mcfg, err := cfg.Market.options()
	if err != nil {
		return nil, err
	}
	ropts, pols, err := cfg.routeOptions(repo.Dir)
	if err != nil {
		return nil, err
	}
	// Capabilities a policy names are routed from the prefetch cache: keep
	// them warm, so their hires need no DHT query.
	n.Routing.KeepWarm(pols.Matches()...)
	mcfg = append(mcfg, ropts...)
	mopts := []market.Option{
		market.Logger(log),
		market.OnJob(n.events.jobChanged),
		market.Builtin(reg),
		market.SandboxRuntime(func() any { rt, _ := reg.SandboxRuntime(); return rt }),
		market.Admission(n.guard.Admit),
		market.WithTimers(timers),
		market.HandlerRunner(market.HandlerOpenAI, openai.New(openai.Options{Logger: log})),
	}
	n.mcp = mcphandler.New(mcphandler.Options{Logger: log})
	mopts = append(mopts, market.HandlerRunner(market.HandlerMCP, n.mcp), market.HandlerRunner(market.HandlerMCPHTTP, n.mcp))
	if n.Settler != nil {
		mopts = append(mopts, market.ListingSettlement(&market.Settlement{
			Rail: RailEVM, Escrow: common.HexToAddress(cfg.Settlement.Escrow).Hex(), PayTo: n.Settler.Address(),
		}))
		hopts, pending := acceptHorizon(ctx, n.Settler, n.Escrow, cfg.Market, log)
		mopts = append(mopts, hopts...)
		n.horizonPending = pending
	}
	mopts = append(append(mopts, mcfg...), opts.MarketOptions...)
	if n.Market, err = market.New(n.Host, n.DB, repo.Key, n.Routing, n.Escrow, mopts...); err != nil {
		return nil, err
	}
	return n, nil
}

// effectiveConfig applies opts over the repo config and validates the result.
func effectiveConfig(cfg Config, opts Options) (Config, error) {
	if opts.Network != "" {
		cfg.Network = opts.Network
	}
	if len(opts.Listen) > 0 {
		cfg.Listen = opts.Listen
	}
	if len(opts.Bootstrap) > 0 {
		cfg.Bootstrap = opts.Bootstrap
	}
	if opts.API != "" {
		cfg.API = opts.API
	}
	if opts.AgentHTTP != "" {
		cfg.AgentHTTP = opts.AgentHTTP
	}
	if opts.RelayService {
		cfg.P2P.RelayService = true
	}
	if opts.Gateway != "" {
		cfg.Gateway.Listen = opts.Gateway
	}
	return cfg, cfg.Validate()
}

// Start bootstraps the DHT, serves the agent endpoint, announces every
// listing and serves the control API (writing <repo>/api once it listens).
func (n *Node) Start(ctx context.Context) error {
	if err := n.Routing.Start(); err != nil {
		return err
	}
	n.guard.Start()
	n.gc = storage.NewValueLogGC(n.DB, n.guard.Tight, n.log)
	n.gc.Start()
	if err := n.Escrow.Start(ctx); err != nil {
		return err
	}
	if n.Settler != nil {
		if err := n.Settler.Start(n.Escrow); err != nil {
			return err
		}
	}
	if err := n.Market.Start(ctx); err != nil {
		return err
	}
	if n.horizonPending {
		every := n.horizonEvery
		if every <= 0 {
			every = horizonRetry
		}
		n.horizon = retryAcceptHorizon(n.Settler, n.Market, n.Config.Market, n.log, every)
	}
	if _, err := n.Market.Store().Get(ctx, builtin.CapCodeSandboxed); err == nil {
		n.sandbox.warm()
	}
	if n.Config.AgentHTTP != "" {
		if err := n.serveAgentHTTP(); err != nil {
			return err
		}
	}
	api, err := startAPI(n)
	if err != nil {
		return err
	}
	n.api = api
	if n.Config.Gateway.Listen != "" {
		if n.startGateway == nil {
			return fmt.Errorf("config gateway.listen = %q: this program has no gateway to start", n.Config.Gateway.Listen)
		}
		if n.gateway, err = n.startGateway(ctx, n); err != nil {
			return fmt.Errorf("start the gateway: %w", err)
		}
	}
	return nil
}

// serveAgentHTTP serves the agent endpoint on plain HTTP (Config.AgentHTTP).
func (n *Node) serveAgentHTTP() error {
	ln, err := net.Listen("tcp", n.Config.AgentHTTP)
	if err != nil {
		return fmt.Errorf("agent endpoint on %s: %w", n.Config.AgentHTTP, err)
	}
	n.agentHTTP = &http.Server{
		Handler:           n.Market.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
	go func() { _ = n.agentHTTP.Serve(ln) }()
	n.agentHTTPAddr = ln.Addr().String()
	return nil
}

// GatewayAddr is where the gateway listens, if it runs.
func (n *Node) GatewayAddr() string {
	if a, ok := n.gateway.(interface{ Addr() string }); ok {
		return a.Addr()
	}
	return ""
}

// AgentHTTPAddr is where the plain-HTTP agent endpoint listens, if it does.
func (n *Node) AgentHTTPAddr() string { return n.agentHTTPAddr }

// APIURL is the control API's URL, once Start has run.
func (n *Node) APIURL() string {
	if n.api == nil {
		return ""
	}
	return n.api.url()
}

// Close stops everything in reverse order and releases the repo. It is
// idempotent.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		var errs []error
		if n.gc != nil {
			n.gc.Stop()
		}
		if n.gateway != nil {
			errs = append(errs, n.gateway.Close())
		}
		if n.api != nil {
			errs = append(errs, n.api.close())
		}
		if n.agentHTTP != nil {
			errs = append(errs, n.agentHTTP.Close())
		}
		n.hires.close()
		n.horizon.stop()
		if n.Market != nil {
			errs = append(errs, n.Market.Close())
		}
		if n.mcp != nil {
			errs = append(errs, n.mcp.Close())
		}
		if n.sandbox != nil {
			errs = append(errs, n.sandbox.close())
		}
		if n.Settler != nil {
			errs = append(errs, n.Settler.Close())
		}
		if n.Escrow != nil {
			errs = append(errs, n.Escrow.Close())
		}
		if n.net != nil {
			n.net.Close()
		}
		if n.Routing != nil {
			errs = append(errs, n.Routing.Close())
		}
		if n.Host != nil {
			errs = append(errs, n.Host.Close())
		}
		if n.pstore != nil {
			errs = append(errs, n.pstore.Close())
		}
		if n.guard != nil {
			n.guard.Stop()
		}
		if n.ds != nil {
			if n.guard == nil || n.guard.RoomToClose() {
				errs = append(errs, n.ds.Close())
			} else {
				n.log.Warn("disk full: leaving the database for the next start to replay; every write was synced, nothing is lost", "dir", n.Repo.DataDir())
			}
		}
		errs = append(errs, n.Repo.Unlock())
		n.closeErr = errors.Join(errs...)
	})
	return n.closeErr
}

// Local is a repo opened without the network, for commands that read or
// edit local state while no daemon runs.
type Local struct {
	Repo  *Repo
	DB    *badger.DB
	Store *market.Store
	// ReadOnly is set when the database was opened read-only: writes fail
	// with badger.ErrReadOnlyTxn.
	ReadOnly bool

	ds    *badgerds.Datastore
	guard *storage.Guard
}

// OpenLocal locks repo and opens its database for reading and writing. On
// a disk with less than the database needs to open safely, it returns a
// *DiskFullError instead.
func OpenLocal(repo *Repo) (*Local, error) { return openLocal(repo, false) }

// OpenLocalReadOnly locks repo and opens its database read-only, which
// writes nothing and so works on a full disk. A database that must be
// written before it can be read (a fresh repo, or one a crash left with a
// write-ahead log to replay) is opened for writing instead, if there is
// room for that.
func OpenLocalReadOnly(repo *Repo) (*Local, error) { return openLocal(repo, true) }

func openLocal(repo *Repo, readOnly bool) (_ *Local, err error) {
	if err := lockWaiting(repo); err != nil {
		return nil, err
	}
	l := &Local{Repo: repo}
	defer func() {
		if err != nil {
			err = errors.Join(err, l.Close())
		}
	}()
	var roErr error
	if readOnly {
		if roErr = l.openReadOnly(); roErr == nil {
			return l, nil
		}
	}
	l.guard = storage.NewGuard(repo.DataDir(), 0, discardLogger())
	if err := l.guard.CheckOpen(); err != nil {
		if roErr != nil {
			return nil, fmt.Errorf("%w (read-only, the database did not open either: %v)", err, roErr)
		}
		return nil, err
	}
	if l.ds, err = storage.Open(repo.DataDir(), false); err != nil {
		return nil, err
	}
	l.DB = l.ds.DB
	if err := checkSchema(l.DB); err != nil {
		return nil, err
	}
	if l.Store, err = market.NewStore(l.DB, repo.Key); err != nil {
		return nil, err
	}
	return l, nil
}

// openReadOnly opens the database read-only; on failure it leaves l closed.
func (l *Local) openReadOnly() (err error) {
	if l.ds, err = storage.Open(l.Repo.DataDir(), true); err != nil {
		l.ds = nil
		return err
	}
	l.DB, l.ReadOnly = l.ds.DB, true
	if err = checkSchema(l.DB); err == nil {
		l.Store, err = market.NewStore(l.DB, l.Repo.Key)
	}
	if err != nil {
		err = errors.Join(err, l.ds.Close())
		l.ds, l.DB, l.ReadOnly = nil, nil, false
	}
	return err
}

// Close closes the database and releases the repo.
func (l *Local) Close() error {
	var errs []error
	if l.ds != nil && (l.guard == nil || l.guard.RoomToClose()) {
		// Unclosed on a full disk: the next open replays its synced log.
		errs = append(errs, l.ds.Close())
	}
	errs = append(errs, l.Repo.Unlock())
	return errors.Join(errs...)
}

// discardLogger drops everything; benchmarks print figures, not logs.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// freeDefaultListen keeps the default listen addresses when their port is
// free and otherwise moves them to a free port: a second node on the same
// machine with the default config should start, not fail on a port the
// first one holds. Addresses a user chose are never changed.
func freeDefaultListen(listen []string, log *slog.Logger) []string {
	if !slices.Equal(listen, DefaultListen()) {
		return listen
	}
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", DefaultPort))
	if err == nil {
		ln.Close()
		return listen
	}
	log.Warn("default port in use; listening on a free port instead", "port", DefaultPort)
	out := make([]string, len(listen))
	for i, a := range listen {
		out[i] = strings.Replace(a, fmt.Sprintf("/%d", DefaultPort), "/0", 1)
	}
	return out
}

// localLockWait is how long an offline command waits for another offline
// command (which holds the repo for milliseconds) to finish. A daemon holds
// the lock for good; commands reach it through its API instead.
const localLockWait = 5 * time.Second

// lockWaiting takes the repo lock, waiting a little while another short
// command holds it, so that scripts may run commands side by side (and a
// daemon may start while one runs). It waits with backoff, from 20ms to
// 250ms between tries, and not at all when a daemon serves the repo (its
// api file exists): a daemon holds the lock for good.
func lockWaiting(repo *Repo) error {
	deadline := time.Now().Add(localLockWait)
	pause := 20 * time.Millisecond
	for {
		err := repo.Lock()
		if err == nil || !errors.Is(err, ErrRepoLocked) || time.Now().After(deadline) || exists(filepath.Join(repo.Dir, controlapi.URLFile)) {
			return err
		}
		if repo.lockWaited != nil {
			repo.lockWaited()
		}
		time.Sleep(pause)
		pause = min(2*pause, 250*time.Millisecond)
	}
}
