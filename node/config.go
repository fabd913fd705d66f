package node

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/atomicfile"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node/p2p"
	"github.com/swarmwage/swarmwage/node/storage"
)

// Defaults of a new repo's config.
const (
	// DefaultNetwork is the public network: the IPFS DHT as a rendezvous.
	DefaultNetwork = dht.Amino
	// DefaultAPIAddr is the control API's loopback address.
	DefaultAPIAddr = "127.0.0.1:5747"
)

// DefaultPort is the default libp2p port, for TCP and QUIC.
const DefaultPort = 4747

// DefaultListen listens on TCP and QUIC on every interface, DefaultPort.
func DefaultListen() []string {
	p := strconv.Itoa(DefaultPort)
	return []string{
		"/ip4/0.0.0.0/tcp/" + p,
		"/ip4/0.0.0.0/udp/" + p + "/quic-v1",
		"/ip6/::/tcp/" + p,
		"/ip6/::/udp/" + p + "/quic-v1",
	}
}

// Config is the repo's config.toml. See docs in README.md ("Config file").
type Config struct {
	// Network is "amino" (public) or the name of a private network.
	Network string `toml:"network"`
	// Listen are the libp2p listen multiaddrs.
	Listen []string `toml:"listen"`
	// Bootstrap are the multiaddrs (with /p2p/) of peers to join through. On
	// amino, empty means libp2p's default bootstrap peers.
	Bootstrap []string `toml:"bootstrap"`
	// API is the control API's host:port; it must be a loopback address.
	API string `toml:"api"`
	// AgentHTTP, when set, also serves the agent endpoint over plain HTTP
	// on this host:port, for buyers without libp2p. They can browse
	// listings and schemas; hiring needs a libp2p peer ID (the escrow is
	// signed with it). Default empty: off.
	AgentHTTP string `toml:"agent_http,omitempty"`
	// Market holds the seller's terms and limits.
	Market MarketConfig `toml:"market,omitempty"`
	// P2P is how this node takes part in the network: reachability, relays.
	P2P P2PConfig `toml:"p2p,omitempty"`
	// WCP names the WCP catalog whose tombstones route retired IDs.
	WCP WCPConfig `toml:"wcp,omitempty"`
	// Policy are the buyer's [[policy]] tables.
	Policy []PolicyConfig `toml:"policy,omitempty"`
	// Storage holds the disk-space limits.
	Storage StorageConfig `toml:"storage,omitempty"`
	// Settlement is the settlement rail (config_settlement.go): credits
	// (default) or evm.
	Settlement SettlementConfig `toml:"settlement,omitempty"`
	// Gateway is the A2A and x402 door (config_gateway.go); off by default.
	Gateway GatewayConfig `toml:"gateway,omitempty"`
}

// StorageConfig is the [storage] section.
type StorageConfig struct {
	// MinFree is the free space on the disk of <repo>/data below which
	// the node refuses new quotes and hires (running jobs still settle):
	// "64MiB", "1GB", "0" turns the check off. Default storage.DefaultMinFree.
	MinFree string `toml:"min_free,omitempty"`
}

// minFree is MinFree in bytes.
func (s StorageConfig) minFree() (uint64, error) {
	if s.MinFree == "" {
		return storage.DefaultMinFree, nil
	}
	v, err := storage.ParseSize(s.MinFree)
	if err != nil {
		return 0, fmt.Errorf("config storage.min_free: %w", err)
	}
	return v, nil
}

// MarketConfig is the [market] section: the terms this node quotes as a
// seller and its limits. Durations are Go durations ("10m", "90s").
type MarketConfig struct {
	// VerificationWindow is how long after delivery a buyer may refund
	// before the hold is released to this seller. Default "10m".
	VerificationWindow string `toml:"verification_window,omitempty"`
	// MaxJobDuration is the longest job deadline accepted. Default "5m".
	MaxJobDuration string `toml:"max_job_duration,omitempty"`
	// Concurrency is how many jobs run at once. Default max(4, 2 x cores).
	Concurrency int `toml:"concurrency,omitempty"`
	// Queue is how many jobs may wait for a slot before quotes answer 429.
	// Default 64.
	Queue int `toml:"queue,omitempty"`
	// MaxPrice is the most one hire pays, as a decimal in the rail's unit
	// (credits, tokens), unless the hire names its own (hire --max-price,
	// max_price in the control API and MCP) or a [[policy]] max_price
	// applies. Default "1" (market.DefaultMaxPrice).
	MaxPrice string `toml:"max_price,omitempty"`
	// AllowRiskTier3 lets this node, as a buyer, hire risk tier 3
	// capabilities (SkillCards that ask for explicit confirmation) without
	// 'hire --confirm'. Default false.
	AllowRiskTier3 bool `toml:"allow_risk_tier_3,omitempty"`
	// PublishPayloads serves each sold job's input and output with its
	// receipt (GET /receipts?payloads=1), not only their hashes. Default
	// false.
	PublishPayloads bool `toml:"publish_payloads,omitempty"`
	// RefuseFalseRefunders refuses quotes to buyers that refunded output
	// the capability's standard verifier accepts. Default false.
	RefuseFalseRefunders bool `toml:"refuse_false_refunders,omitempty"`
}

// P2PConfig is the [p2p] section: how this node takes part in the network
// below the market. The top-level key network names the network.
type P2PConfig struct {
	// Reachability is "auto" (default: AutoNAT decides), "public" or
	// "private", for networks where AutoNAT cannot decide, such as a
	// private network on private addresses (Kubo's forced reachability).
	Reachability string `toml:"reachability,omitempty"`
	// RelayService runs a circuit relay v2 service for nodes behind NAT,
	// with the limits in README ("Relays"). Default false: only a node told
	// to is a relay. On amino it starts once AutoNAT finds the node
	// publicly reachable; on a private network it starts at once.
	RelayService bool `toml:"relay_service,omitempty"`
	// Relays are static relays (multiaddrs ending in /p2p/<peer-id>),
	// tried before relays found among DHT peers.
	Relays []string `toml:"relays,omitempty"`
}

// validate checks the section.
func (p P2PConfig) validate() error {
	switch p.Reachability {
	case "", p2p.ReachabilityAuto, p2p.ReachabilityPublic, p2p.ReachabilityPrivate:
	default:
		return fmt.Errorf("config p2p.reachability = %q: want \"auto\", \"public\" or \"private\"", p.Reachability)
	}
	if p.RelayService && p.Reachability == p2p.ReachabilityPrivate {
		return errors.New("config p2p.relay_service: a node with p2p.reachability = \"private\" cannot be dialled, so it cannot be a relay; set reachability to \"auto\" or \"public\", or relay_service = false")
	}
	if _, err := ParseBootstrap(p.Relays); err != nil {
		return fmt.Errorf("config p2p.relays: %w", err)
	}
	return nil
}

// reachability is the effective [p2p] reachability on network: a relay of
// a private network is public by definition (its members dial it), even
// where AutoNAT cannot tell, on private addresses.
func (p P2PConfig) reachability(network string) string {
	r := p.Reachability
	if r == "" {
		r = p2p.ReachabilityAuto
	}
	if r == p2p.ReachabilityAuto && p.RelayService && network != dht.Amino {
		return p2p.ReachabilityPublic
	}
	return r
}

// options turns the section into market options; unset keys keep the
// market's defaults.
func (m MarketConfig) options() ([]market.Option, error) {
	var opts []market.Option
	for _, d := range []struct {
		key, val string
		opt      func(time.Duration) market.Option
	}{
		{"market.verification_window", m.VerificationWindow, market.VerificationWindow},
		{"market.max_job_duration", m.MaxJobDuration, market.MaxJobDuration},
	} {
		if d.val == "" {
			continue
		}
		v, err := time.ParseDuration(d.val)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("config %s = %q: want a positive duration such as \"10m\"", d.key, d.val)
		}
		opts = append(opts, d.opt(v))
	}
	if m.MaxPrice != "" {
		v, err := escrow.ParseAmount(m.MaxPrice)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("config market.max_price = %q: want a positive amount such as \"1\" or \"0.25\" (the most one hire pays, in the rail's unit)", m.MaxPrice)
		}
		opts = append(opts, market.MaxPrice(v))
	}
	if m.AllowRiskTier3 {
		opts = append(opts, market.AllowRiskTier3())
	}
	if m.PublishPayloads {
		opts = append(opts, market.PublishPayloads())
	}
	if m.RefuseFalseRefunders {
		opts = append(opts, market.RefuseFalseRefunders())
	}
	if m.Concurrency < 0 || m.Queue < 0 {
		return nil, errors.New("config market.concurrency and market.queue must not be negative")
	}
	if m.Concurrency > 0 || m.Queue > 0 {
		c, q := m.Concurrency, m.Queue
		if c == 0 {
			c = max(4, 2*runtime.NumCPU())
		}
		if q == 0 {
			q = market.DefaultQueue
		}
		opts = append(opts, market.Concurrency(c, q))
	}
	return opts, nil
}

// DefaultConfig is the config of a new repo on network.
func DefaultConfig(network string) Config {
	if network == "" {
		network = DefaultNetwork
	}
	return Config{Network: network, Listen: DefaultListen(), API: DefaultAPIAddr}
}

// Validate checks every field and names the one that is wrong. The error
// is a *ConfigError.
func (c Config) Validate() error {
	if err := c.validate(); err != nil {
		return &ConfigError{Err: err}
	}
	return nil
}

func (c Config) validate() error {
	if err := dht.CheckNetwork(c.Network); err != nil {
		return fmt.Errorf("config network: %w", err)
	}
	if len(c.Listen) == 0 {
		return errors.New("config listen: at least one address is needed")
	}
	for _, a := range c.Listen {
		if _, err := ma.NewMultiaddr(a); err != nil {
			return fmt.Errorf("config listen: bad multiaddr %q: %w", a, err)
		}
	}
	if _, err := ParseBootstrap(c.Bootstrap); err != nil {
		return fmt.Errorf("config bootstrap: %w", err)
	}
	if err := checkAPIAddr(c.API); err != nil {
		return fmt.Errorf("config api: %w", err)
	}
	if c.AgentHTTP != "" {
		if _, _, err := net.SplitHostPort(c.AgentHTTP); err != nil {
			return fmt.Errorf("config agent_http: %q is not host:port: %w", c.AgentHTTP, err)
		}
	}
	if _, err := c.Market.options(); err != nil {
		return err
	}
	if err := c.P2P.validate(); err != nil {
		return err
	}
	if _, err := policies(c.Policy); err != nil {
		return err
	}
	if _, err := c.Storage.minFree(); err != nil {
		return err
	}
	if err := c.Settlement.validate(); err != nil {
		return err
	}
	if err := c.Gateway.validate(); err != nil {
		return err
	}
	return nil
}

// ParseBootstrap parses bootstrap multiaddrs, each ending in /p2p/<peer-id>.
func ParseBootstrap(addrs []string) ([]peer.AddrInfo, error) {
	var out []peer.AddrInfo
	for _, a := range addrs {
		m, err := ma.NewMultiaddr(a)
		if err != nil {
			return nil, fmt.Errorf("bad multiaddr %q: %w", a, err)
		}
		ai, err := peer.AddrInfoFromP2pAddr(m)
		if err != nil {
			return nil, fmt.Errorf("multiaddr %q must end in /p2p/<peer-id>: %w", a, err)
		}
		out = append(out, *ai)
	}
	return out, nil
}

// checkAPIAddr accepts host:port on a loopback address (port 0: any free port).
func checkAPIAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port: %w", addr, err)
	}
	if port == "" {
		return fmt.Errorf("%q has no port", addr)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q: the control API listens on loopback only (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}

// ConfigError is a config that cannot be used: a config.toml that is
// unreadable, not TOML or has an unknown key, or any config (a file, the
// file with a command's flags over it, a seller file) with a bad value.
// Commands report it as a usage error (exit 2): the fix is in the file or
// the flags.
type ConfigError struct {
	// Path is the config file; empty when the config is not one file's
	// (Validate's errors), whose message then names the key alone.
	Path string
	Err  error
}

func (e *ConfigError) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("config %s: %v", e.Path, e.Err)
}
func (e *ConfigError) Unwrap() error { return e.Err }

var _ error = (*ConfigError)(nil)

func loadConfig(path string) (Config, error) {
	var c Config
	md, err := toml.DecodeFile(path, &c)
	if err != nil {
		return Config{}, &ConfigError{Path: path, Err: fmt.Errorf("read: %w", err)}
	}
	if und := md.Undecoded(); len(und) > 0 {
		return Config{}, &ConfigError{Path: path, Err: fmt.Errorf("unknown key %q", und[0].String())}
	}
	if err := c.Validate(); err != nil {
		return Config{}, &ConfigError{Path: path, Err: err}
	}
	return c, nil
}

func (c Config) write(path string) error {
	var buf bytes.Buffer
	buf.WriteString("# swarmwage node config. See README.md, \"Config file\".\n")
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	return atomicfile.Write(path, buf.Bytes(), 0o600)
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
