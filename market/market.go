// Package market owns the swarmwage agent market of one node, as two units
// over shared parts (the host and key, the DHT, the escrow, the offer
// store, the job records, the agent client):
//
//   - the Buyer (buyer.go), the node's one hire service: Hire runs resolve,
//     route (policy, QoS, reputation), quote, lock, run, verify, settle and
//     receipt, each a function (hire.go), and sends every settle through
//     one retry policy, the outbox (outbox.go); it finds sellers and checks
//     their signed listings (find.go, routing.go);
//   - the seller (seller.go): its signed listings and its agent endpoint
//     (HTTP over libp2p streams), where it serves quotes, accepts a lock,
//     runs the job's handler, delivers, and claims its money.
//
// Market composes them; Timers (timers.go) carries the escrow's timer
// callbacks to it, since the escrow is built before the market.
//
// The agent endpoint is HTTP/1.1 over libp2p streams of go-libp2p's p2p/http
// protocol ("/http/1.1"), named AgentProtocolID in its well-known map and
// mounted at the HTTP path AgentPath, so the same http.Handler can also
// listen on plain TCP for HTTP-only buyers. A seller behind NAT is reached
// through a relay (circuit v2), so agent streams may run over a limited
// (relayed) connection; a job goes over one only when no direct connection
// appears within HolePunchWait and its request fits the relay's data limit
// (transport.go). Routes:
//
//	GET  /capabilities                 every signed listing of the seller
//	GET  /capabilities/{id}            one signed listing (404 if not sold)
//	GET  /capabilities/{id}/schema     input and output JSON Schemas
//	GET  /capabilities/code.execute.sandboxed/runtime
//
// Every signed object is the stable JSON of the object with its type tag
// (TypeListing, TypeQuote), signed with the node's Ed25519 libp2p key
// (package internal/canon); a verifier recovers the key from the signer's
// peer ID, so a listing needs no certificate. Listings and quotes of older
// releases carry no tag: they verify until canon.UntaggedUntil, logged once
// per signer, and a seller signs its stored listings again with the tag at
// start.
//
// Storage: the market's keys (keys.go, jobindex.go) are read and written
// through internal/kv, the transaction interface escrow's changes also
// implement; a job's money, input and output are the escrow's, read through
// its API. JobView is the one way to read job records, for the daemon
// (Market.Jobs) and for offline commands (OpenJobView, read-only).
package market

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/canon"
	"github.com/swarmwage/swarmwage/internal/kv"
)

const (
	// AgentProtocolID names the agent endpoint in libp2p's HTTP well-known
	// protocol map. An incompatible change gets a new ID.
	AgentProtocolID protocol.ID = "/swarmwage/agent/1"

	// AgentPath is the HTTP path prefix the agent endpoint is mounted at.
	// Buyers use it directly instead of asking for the well-known map first,
	// which saves a round trip per seller.
	AgentPath = "/swarmwage/agent/1"

	// ServiceName is the resource-manager service of agent streams, inbound
	// (serve.go) and outbound (transport.go); the node gives it limits of
	// its own, per peer too, so that agent traffic cannot use up what
	// identify, the DHT or a relay service need.
	ServiceName = "swarmwage.agent"

	// listingVersion is the schema version of Listing.
	listingVersion = 1

	// maxListingSize caps a signed listing read from a peer. Listings carry
	// two JSON Schemas; 256 KiB is far above any standard one.
	maxListingSize = 256 << 10

	// maxListingsSize caps GET /capabilities: a seller with many listings.
	maxListingsSize = 4 << 20

	// fetchTimeout bounds fetching one seller's listing. Provider records of
	// dead sellers are normal (amino keeps them 48 h): skip them fast.
	fetchTimeout = 5 * time.Second

	// fetchConcurrency bounds how many sellers are asked at once.
	fetchConcurrency = 16
)

// ErrClosed is returned by calls on a closed Market.
var ErrClosed = errors.New("market closed")

// shared is what the buyer's and the seller's side of a market both use:
// the host and key, the DHT, the escrow, the offer store, the job
// records, the agent client and the market's lifecycle. Market builds it
// once and hands the same one to both sides.
type shared struct {
	cfg     config
	host    host.Host
	key     crypto.PrivKey
	routing *dht.Routing
	escrow  *escrow.Escrow
	store   *Store
	jobs    *jobs
	client  *agentClient
	log     *slog.Logger

	untaggedMu sync.Mutex
	untagged   map[string]bool // kinds and signers of untagged messages logged

	tradedMu sync.Mutex
	traded   map[peer.ID]struct{} // counterparties written (rememberCounterparty)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Market is one node's market, the composition of its two sides over the
// shared parts: the Buyer (buyer.go: the hire pipeline, its settle outbox,
// routing history and find cache) and the seller (seller.go: the agent
// endpoint's quotes, jobs, settles and receipts, with its handlers). The
// Buyer's methods are the Market's too. It is safe for concurrent use.
type Market struct {
	*shared
	*Buyer
	*seller
	server *server

	// decided holds the timer decisions whose job records decidedLoop has
	// yet to update (outbox.go).
	decidedMu   sync.Mutex
	decided     []escrow.Record
	decidedKick chan struct{}

	closeOnce sync.Once
}

// New wires a Market on h, keeping its state in db, its money in esc, and
// finding sellers through routing. It serves nothing until Start.
func New(h host.Host, db *badger.DB, key crypto.PrivKey, routing *dht.Routing, esc *escrow.Escrow, opts ...Option) (*Market, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	kdb := kv.Open(db)
	store, err := newStore(kdb, key)
	if err != nil {
		return nil, err
	}
	if rail := esc.RailName(); RailOf(Listing{Settlement: cfg.settlement}) != rail ||
		cfg.settlement != nil && cfg.settlement.PayTo != esc.RailAddress() {
		return nil, fmt.Errorf("market: the listing settlement (rail %s) is not the escrow's rail %s at %s", RailOf(Listing{Settlement: cfg.settlement}), rail, esc.RailAddress())
	}
	store.settlement = cfg.settlement
	store.terms.Store(cfg.terms())
	quoteSigs, err := lru.New[SignedQuote, struct{}](maxVerifiedQuotes)
	if err != nil {
		return nil, fmt.Errorf("market: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sh := &shared{
		cfg:      cfg,
		host:     h,
		key:      key,
		routing:  routing,
		escrow:   esc,
		store:    store,
		jobs:     &jobs{db: kdb, onChange: cfg.onJob},
		client:   &agentClient{host: h, holePunchWait: HolePunchWait},
		log:      cfg.logger,
		ctx:      ctx,
		cancel:   cancel,
		untagged: make(map[string]bool),
	}
	sh.client.untagged = sh.noteUntagged
	m := &Market{
		shared:      sh,
		Buyer:       newBuyer(sh),
		decidedKick: make(chan struct{}, 1),
	}
	m.seller = newSeller(sh, &handlers{builtin: cfg.builtin, http: cfg.httpClient, runners: cfg.runners}, quoteSigs)
	m.server = newServer(store, h.ID(), cfg)
	m.seller.register(m.server.mux)
	if cfg.timers != nil {
		cfg.timers.register(m)
	}
	return m, nil
}

// noteUntagged logs, once per kind and signer, a message accepted without
// a type tag: signed by a release from before tags, accepted until
// canon.UntaggedUntil.
func (m *shared) noteUntagged(kind string, signer peer.ID) {
	k := kind + " " + signer.String()
	m.untaggedMu.Lock()
	seen := m.untagged[k]
	m.untagged[k] = true
	m.untaggedMu.Unlock()
	if !seen {
		m.log.Warn("accepted a message signed without a type tag (an older release): it stops being accepted at "+canon.UntaggedUntil,
			"kind", kind, "signer", signer)
	}
}

// Start serves the agent endpoint and announces every stored listing.
func (m *Market) Start(ctx context.Context) error {
	if err := m.resignListings(ctx); err != nil {
		return err
	}
	// Before any job can change: the build reads a snapshot.
	if err := buildJobIndex(m.jobs.db); err != nil {
		return err
	}
	srv, ln, err := m.listenStreams()
	if err != nil {
		return err
	}
	m.wg.Add(1)
	go m.serveStreams(srv, ln)
	m.reconcile(ctx)
	m.loadOutbox()
	m.wg.Add(3)
	go m.outboxLoop()
	go m.ackLoop()
	go m.decidedLoop()
	offers, err := m.store.List(ctx)
	if err != nil {
		return err
	}
	for _, o := range offers {
		m.prepare(ctx, o.Handler)
		if err := m.routing.Announce(ctx, o.Signed.Listing.Capability); err != nil {
			return fmt.Errorf("announce %s: %w", o.Signed.Listing.Capability, err)
		}
	}
	return nil
}

// prepare asks the Runner of h's kind, if it is a Starter, to get ready
// for h (start an MCP server); a failure is logged, not fatal: the jobs of
// the listing fail until the runner recovers.
func (m *Market) prepare(ctx context.Context, h HandlerConfig) {
	st, ok := m.cfg.runners[h.Kind].(Starter)
	if !ok {
		return
	}
	if err := st.Prepare(ctx, h); err != nil {
		m.log.Warn("prepare handler", "handler", h.String(), "err", err)
	}
}

// Close stops the agent endpoint. It is idempotent.
func (m *Market) Close() error {
	m.closeOnce.Do(func() {
		m.cancel()
		m.wg.Wait()
		m.client.closeIdle()
	})
	return nil
}

// Handler is the agent endpoint as a plain http.Handler, for serving it on
// TCP to HTTP-only buyers.
func (m *Market) Handler() http.Handler { return m.server }

// Store is the offer store.
func (m *Market) Store() *Store { return m.store }

// AddListing stores a signed offer and announces it.
func (m *Market) AddListing(ctx context.Context, p ListingParams) (Offer, error) {
	o, err := m.store.Put(ctx, p)
	if err != nil {
		return Offer{}, err
	}
	m.prepare(ctx, o.Handler)
	if err := m.routing.Announce(ctx, p.Capability); err != nil {
		return Offer{}, fmt.Errorf("announce %s: %w", p.Capability, err)
	}
	return o, nil
}

// RemoveListing removes an offer and stops announcing it.
func (m *Market) RemoveListing(ctx context.Context, capID string) error {
	if err := m.store.Delete(ctx, capID); err != nil {
		return err
	}
	m.routing.Withdraw(capID)
	return nil
}
