package dht

import (
	"errors"
	"log/slog"
	"time"

	"github.com/benbjohnson/clock"
	ds "github.com/ipfs/go-datastore"
	kaddht "github.com/libp2p/go-libp2p-kad-dht"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Option configures a Routing.
type Option func(*config) error

type config struct {
	bootstrap         []peer.AddrInfo
	bootstrapSet      bool
	mode              kaddht.ModeOpt
	provideValidity   time.Duration
	reprovideInterval time.Duration
	cacheRefresh      time.Duration
	cacheIdle         time.Duration
	findTimeout       time.Duration
	datastore         ds.Batching
	logger            *slog.Logger
	clock             clock.Clock
}

func defaultConfig(network string) config {
	cfg := config{
		// A private network may run on private addresses, where AutoNAT
		// never decides: a server then, so that small networks form at
		// all. A node that AutoNAT finds behind NAT (or whose config says
		// so) becomes a client, so that others' queries do not wait on a
		// server they cannot dial.
		mode:              kaddht.ModeAutoServer,
		provideValidity:   PrivateProvideValidity,
		reprovideInterval: PrivateReprovideInterval,
		cacheRefresh:      DefaultCacheRefresh,
		cacheIdle:         DefaultCacheIdle,
		findTimeout:       DefaultFindTimeout,
		logger:            slog.Default().With("subsystem", "swarmwage/dht"),
		clock:             clock.New(),
	}
	if network == Amino {
		// On the public DHT a node behind NAT must not claim to be a server:
		// let AutoNAT decide.
		cfg.mode = kaddht.ModeAuto
		cfg.reprovideInterval = AminoReprovideInterval
		cfg.bootstrap = kaddht.GetDefaultBootstrapPeerAddrInfos()
	}
	return cfg
}

func (c *config) validate(network string) error {
	if network == Amino && c.provideValidity != PrivateProvideValidity {
		return errors.New("dht: ProvideValidity cannot be changed on amino: its servers keep records 48 h whatever we ask")
	}
	if c.reprovideInterval <= 0 || c.cacheRefresh <= 0 || c.cacheIdle <= 0 || c.findTimeout <= 0 {
		return errors.New("dht: intervals and timeouts must be positive")
	}
	if network != Amino && c.reprovideInterval >= c.provideValidity {
		return errors.New("dht: ReprovideInterval must be shorter than ProvideValidity, or sellers disappear between rounds")
	}
	return nil
}

// BootstrapPeers sets the peers to join through. On amino it replaces
// libp2p's default bootstrap peers; on a private network it is the only way
// in (no peers: this node is the first and others bootstrap from it).
func BootstrapPeers(peers ...peer.AddrInfo) Option {
	return func(c *config) error {
		if c.bootstrapSet {
			return errors.New("dht: BootstrapPeers given twice")
		}
		c.bootstrapSet = true
		c.bootstrap = peers
		return nil
	}
}

// ProvideValidity sets how long this node, as a DHT server of a private
// network, keeps provider records. Defaults to PrivateProvideValidity. Not
// allowed on amino.
func ProvideValidity(d time.Duration) Option {
	return func(c *config) error { c.provideValidity = d; return nil }
}

// ReprovideInterval sets how often announced capabilities are provided again.
// Defaults to PrivateReprovideInterval, or AminoReprovideInterval on amino.
func ReprovideInterval(d time.Duration) Option {
	return func(c *config) error { c.reprovideInterval = d; return nil }
}

// CacheRefresh sets how often the prefetch cache is refreshed. Defaults to
// DefaultCacheRefresh.
func CacheRefresh(d time.Duration) Option {
	return func(c *config) error { c.cacheRefresh = d; return nil }
}

// FindTimeout bounds one DHT provider search. Defaults to DefaultFindTimeout.
func FindTimeout(d time.Duration) Option {
	return func(c *config) error { c.findTimeout = d; return nil }
}

// Datastore keeps routing data (provider records this node stores as a
// server) across restarts. Defaults to kad-dht's in-memory store.
func Datastore(d ds.Batching) Option {
	return func(c *config) error { c.datastore = d; return nil }
}

// Logger sets the logger. Defaults to slog.Default().
func Logger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l.With("subsystem", "swarmwage/dht"); return nil }
}

// WithClock sets the clock of the reprovide rounds, their retries, the
// prefetch cache's refreshes and its idle time. Defaults to the real clock;
// tests pass a *clock.Mock and move time themselves. (DHT queries keep
// real-time deadlines: they wait on the network.)
func WithClock(c clock.Clock) Option {
	return func(cfg *config) error {
		if c == nil {
			return errors.New("dht: WithClock(nil)")
		}
		cfg.clock = c
		return nil
	}
}

// ForceClientMode makes this node a DHT client only: it searches and
// provides but stores no records for others.
func ForceClientMode() Option {
	return func(c *config) error { c.mode = kaddht.ModeClient; return nil }
}
