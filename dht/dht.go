// Package dht owns how swarmwage uses the Kademlia DHT: the DHT key of a
// capability, announcing what a node sells (provide and reprovide), finding
// the sellers of a capability, the prefetch cache in front of those searches,
// and the network names that select the public (amino) or a private DHT.
//
// Key derivation (see ../shared/DESIGN.md, "Network"): the key of capability
// C on network N is the CIDv1 (raw codec, sha2-256 multihash) of the bytes
// "swarmwage/v0.1/N/C". A seller provides the key of every prefix of C too
// ("text", "text.translate", ...) so buyers can browse a domain.
//
// Provider records are unsigned: anyone can claim a key. A seller found here
// is only a candidate until its signed listing, fetched from it, checks out
// (package market does that).
package dht

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ipfs/go-cid"
	kaddht "github.com/libp2p/go-libp2p-kad-dht"
	"github.com/libp2p/go-libp2p-kad-dht/records"
	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	mh "github.com/multiformats/go-multihash"
)

const (
	// Amino is the network name of the public IPFS DHT, which swarmwage uses
	// as a rendezvous: sellers provide capability keys there.
	Amino = "amino"

	// KeyNamespace prefixes the bytes hashed into every capability key.
	// Changing it changes every key on every network: a breaking change.
	KeyNamespace = "swarmwage/v0.1"

	// DefaultLimit is how many sellers FindSellers returns when asked for 0.
	DefaultLimit = 20

	// DefaultFindTimeout bounds one DHT provider search.
	DefaultFindTimeout = 10 * time.Second

	// DefaultCacheRefresh is how often the prefetch cache refreshes the
	// capabilities searched recently (the WCP prefetch cache refreshes every
	// 60 s).
	DefaultCacheRefresh = 60 * time.Second

	// DefaultCacheIdle is how long a capability stays in the prefetch cache
	// after its last search. Older entries are dropped, not refreshed, so a
	// node does not query the DHT forever for something it searched once.
	DefaultCacheIdle = 10 * time.Minute

	// PrivateProvideValidity is how long DHT servers of a private network
	// keep a provider record. Amino keeps them 48 h, so a dead seller lingers
	// for two days; on our own networks a short validity lets it drop out in
	// hours.
	PrivateProvideValidity = 6 * time.Hour

	// PrivateReprovideInterval is how often a seller on a private network
	// provides its keys again: well inside PrivateProvideValidity so that
	// one missed round does not make a live seller disappear.
	PrivateReprovideInterval = 1 * time.Hour

	// AminoReprovideInterval matches Kubo's default (22 h) against amino's
	// 48 h record validity.
	AminoReprovideInterval = 22 * time.Hour

	// retryInterval is how soon a failed provide (typically: the routing
	// table was still empty) is tried again.
	retryInterval = 3 * time.Second

	// maxLimit caps the sellers one search may ask for, so a caller cannot
	// turn one request into an unbounded DHT walk.
	maxLimit = 200
)

var (
	// ErrClosed is returned by calls on a closed Routing.
	ErrClosed = errors.New("dht: routing closed")
	// ErrNoNetwork is returned when a network name is empty or malformed.
	ErrNoNetwork = errors.New("dht: invalid network name")
)

// Key returns the DHT key of capability capID on network.
func Key(network, capID string) (cid.Cid, error) {
	hash, err := mh.Sum([]byte(KeyNamespace+"/"+network+"/"+capID), mh.SHA2_256, -1)
	if err != nil {
		return cid.Undef, fmt.Errorf("hash capability key %s: %w", capID, err)
	}
	return cid.NewCidV1(cid.Raw, hash), nil
}

// Prefixes returns capID and every shorter dot-prefix of it, shortest first:
// "text.translate.en" gives "text", "text.translate", "text.translate.en".
func Prefixes(capID string) []string {
	parts := strings.Split(capID, ".")
	out := make([]string, 0, len(parts))
	for i := range parts {
		out = append(out, strings.Join(parts[:i+1], "."))
	}
	return out
}

// CheckNetwork checks a network name: lowercase letters, digits and hyphens,
// 1 to 32 characters, because it becomes part of a protocol ID.
func CheckNetwork(name string) error {
	if name == "" || len(name) > 32 {
		return fmt.Errorf("%w %q: must be 1 to 32 characters", ErrNoNetwork, name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("%w %q: only a-z, 0-9 and '-' are allowed", ErrNoNetwork, name)
		}
	}
	return nil
}

// ProtocolPrefix is the DHT protocol prefix of a network: amino uses the
// public "/ipfs" DHT, any other name a private DHT "/swarmwage/<name>".
func ProtocolPrefix(network string) protocol.ID {
	if network == Amino {
		return "/ipfs"
	}
	return protocol.ID("/swarmwage/" + network)
}

// Routing announces and finds capability sellers on one network. It is safe
// for concurrent use.
type Routing struct {
	cfg     config
	host    host.Host
	dht     *kaddht.IpfsDHT
	network string
	log     *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	announced map[string]bool      // capability ID -> provided successfully at least once this round
	provided  map[string]time.Time // capability ID -> when it was last provided successfully
	cache     map[string]*cacheEntry
	kick      chan struct{}

	queries  atomic.Int64
	provides atomic.Int64
	// rounds and refreshes count the loops' turns, for tests that move a
	// mock clock and wait for the loop to have acted.
	rounds    atomic.Int64
	refreshes atomic.Int64
}

type cacheEntry struct {
	sellers    []peer.AddrInfo
	limit      int // the limit of the search that filled it
	fetched    time.Time
	lastSearch time.Time
	warm       bool // kept and refreshed whether searched or not (KeepWarm)
}

// New builds the DHT for network on h. It does not dial anything until Start.
func New(h host.Host, network string, opts ...Option) (_ *Routing, err error) {
	if err := CheckNetwork(network); err != nil {
		return nil, err
	}
	cfg := defaultConfig(network)
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if err := cfg.validate(network); err != nil {
		return nil, err
	}
	dhtOpts := []kaddht.Option{
		kaddht.ProtocolPrefix(ProtocolPrefix(network)),
		kaddht.BootstrapPeers(cfg.bootstrap...),
		kaddht.Mode(cfg.mode),
	}
	if network != Amino {
		dhtOpts = append(dhtOpts,
			kaddht.ProviderManagerOpts(records.ProvideValidity(cfg.provideValidity)),
			kaddht.MaxRecordAge(cfg.provideValidity),
		)
	}
	if cfg.datastore != nil {
		dhtOpts = append(dhtOpts, kaddht.Datastore(cfg.datastore))
	}
	d, err := kaddht.New(h, dhtOpts...)
	if err != nil {
		return nil, fmt.Errorf("start DHT on network %s: %w", network, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Routing{
		cfg:       cfg,
		host:      h,
		dht:       d,
		network:   network,
		log:       cfg.logger,
		ctx:       ctx,
		cancel:    cancel,
		announced: make(map[string]bool),
		provided:  make(map[string]time.Time),
		cache:     make(map[string]*cacheEntry),
		kick:      make(chan struct{}, 1),
	}, nil
}

// Start connects to the bootstrap peers and launches the reprovide and cache
// refresh loops.
func (r *Routing) Start() error {
	if err := r.dht.Bootstrap(r.ctx); err != nil {
		return fmt.Errorf("bootstrap DHT: %w", err)
	}
	sub, err := r.host.EventBus().Subscribe(new(event.EvtPeerIdentificationCompleted))
	if err != nil {
		return fmt.Errorf("subscribe to peer events: %w", err)
	}
	r.wg.Add(3)
	go r.provideLoop()
	go r.refreshLoop()
	go r.watchPeers(sub)
	return nil
}

// watchPeers retries pending provides as soon as a peer is identified (it
// may have joined the routing table), instead of at the next retry tick:
// a lone seller's listings reach the network the moment a peer arrives.
func (r *Routing) watchPeers(sub event.Subscription) {
	defer r.wg.Done()
	defer sub.Close()
	for {
		select {
		case <-r.ctx.Done():
			return
		case _, ok := <-sub.Out():
			if !ok {
				return
			}
			if r.Pending() > 0 {
				r.trigger()
			}
		}
	}
}

// Close stops the loops and the DHT. It is idempotent.
func (r *Routing) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	return r.dht.Close()
}

// Network is the network name this Routing serves.
func (r *Routing) Network() string { return r.network }

// DHT exposes the underlying Kademlia DHT (for routing-table inspection).
func (r *Routing) DHT() *kaddht.IpfsDHT { return r.dht }

// Queries counts the provider searches sent to the DHT since New; searches
// served from the prefetch cache do not count.
func (r *Routing) Queries() int64 { return r.queries.Load() }

// RoutingTableSize is the number of peers in the DHT routing table.
func (r *Routing) RoutingTableSize() int { return r.dht.RoutingTable().Size() }
