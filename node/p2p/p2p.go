// Package p2p owns the node's libp2p host: its place on the network below
// the market. The [p2p] config becomes libp2p host options (forced
// reachability, relay service, AutoRelay with static relays first, hole
// punching, the resource manager with the agent's service scope); State
// follows what libp2p learns (AutoNAT verdicts, relay reservations, hole
// punches, DHT peers), logs the changes and answers status.
package p2p

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/p2p/host/autorelay"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"
	libp2phttp "github.com/libp2p/go-libp2p/p2p/http"
	circuitclient "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/client"
	relayv2 "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"

	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/market"
)

// Values of [p2p] reachability.
const (
	// ReachabilityAuto lets AutoNAT find out whether others can dial this
	// node.
	ReachabilityAuto = "auto"
	// ReachabilityPublic declares that others can dial this node.
	ReachabilityPublic = "public"
	// ReachabilityPrivate declares that they cannot: the node reserves a
	// slot on a relay at once and announces its circuit address.
	ReachabilityPrivate = "private"
	// ReachabilityUnknown is what status says while AutoNAT has not
	// decided; it is not a config value.
	ReachabilityUnknown = "unknown"
)

// Config is what the host and its State need of the node's config.
type Config struct {
	// Key is the node's identity.
	Key crypto.PrivKey
	// Listen are the multiaddrs to listen on.
	Listen []string
	// Peerstore keeps what the host learns of peers.
	Peerstore peerstore.Peerstore
	// UserAgent is sent in identify.
	UserAgent string
	// Network names the network: dht.Amino or a private one.
	Network string
	// Reachability is ReachabilityAuto, ReachabilityPublic or
	// ReachabilityPrivate, as [p2p] reachability and the network make it.
	Reachability string
	// RelayService runs a relay for other nodes ([p2p] relay_service).
	RelayService bool
	// Relays are the [p2p] static relays, offered to AutoRelay first.
	Relays []peer.AddrInfo
	// Bootstrap tells whether this node joins through bootstrap peers (a
	// node with none is a private network's first node).
	Bootstrap bool
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// New starts the libp2p host: TCP and QUIC, Noise and TLS, yamux (the
// defaults), with what cfg asks for: AutoNAT v2 and the AutoNAT service,
// hole punching, AutoRelay with the relay v2 client, a relay service only
// when told to, and the resource manager with the agent's own limits;
// extra are more options (the node's fault injector). The State follows
// the host until Close; give it the DHT with SetRouting once that exists.
func New(cfg Config, extra ...libp2p.Option) (host.Host, *State, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	st := newState(cfg, log)
	p2p, err := options(st)
	if err != nil {
		return nil, nil, err
	}
	opts := append([]libp2p.Option{
		libp2p.Identity(cfg.Key),
		libp2p.ListenAddrStrings(cfg.Listen...),
		libp2p.Peerstore(cfg.Peerstore),
		libp2p.UserAgent(cfg.UserAgent),
	}, p2p...)
	h, err := libp2p.New(append(opts, extra...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("start libp2p host: %w", err)
	}
	if err := st.start(h); err != nil {
		return nil, nil, errors.Join(err, h.Close())
	}
	return h, st, nil
}

// Limits of this node's relay service ([p2p] relay_service), per relayed
// connection and in total. libp2p's defaults (2 minutes, 128 KiB each way)
// carry a text or compute job but not a chart or an image, nor a job that
// runs longer than two minutes: a relay run for a swarmwage network raises
// them to what a job of the default [market] limits needs, and leaves
// larger jobs to hole punching or a public address.
const (
	// RelayLimitDuration is how long one relayed connection may last:
	// market.max_job_duration's default (5m) plus the quote and settle.
	RelayLimitDuration = 10 * time.Minute
	// RelayLimitData is how many bytes one relayed connection may carry in
	// each direction.
	RelayLimitData = 4 << 20
	// RelayMaxReservations is how many NAT'd nodes may hold a slot at once.
	RelayMaxReservations = 128
	// RelayMaxCircuits is how many relayed connections one NAT'd node may
	// have open at once.
	RelayMaxCircuits = 16
	// relayReservationTTL is how long a reservation lasts before the
	// client refreshes it (libp2p's default).
	relayReservationTTL = time.Hour
	// PrivateRelayPerIP is how many connections, and reservations, one IPv4
	// address may hold at a relay of a private network: its members may
	// all sit behind one NAT (an office), where libp2p's 8 would let only a
	// few of them in. On amino a relay keeps libp2p's 8, against one
	// address taking it all.
	PrivateRelayPerIP = 64
)

// Resource-manager limits of agent streams (market.ServiceName). A seller
// runs max(4, 2 x cores) jobs at once and queues 64; each job holds one
// stream while it runs, and a hire opens a few short ones (listing, quote,
// settle). Per peer, the caps keep one buyer from holding all of them, but
// stay above what one buyer's hires may legitimately hold at once: the
// seller admits up to (concurrency + queue) / 2 jobs per buyer (34 with
// the defaults), each with a job stream plus quote, status and settle
// streams. At 32 streams a buyer hiring 32 at once had streams refused,
// and those hires waited out their deadlines (bench hire: 15 of 300
// failed, 9 hires/s).
var (
	agentServiceLimit = rcmgr.BaseLimit{StreamsInbound: 256, StreamsOutbound: 256, Streams: 512, Memory: 32 << 20}
	// agentServiceIncrease is added per GiB of memory the node has.
	agentServiceIncrease = rcmgr.BaseLimitIncrease{StreamsInbound: 128, StreamsOutbound: 128, Streams: 256, Memory: 16 << 20}
	agentPeerLimit       = rcmgr.BaseLimit{StreamsInbound: 128, StreamsOutbound: 128, Streams: 256, Memory: 16 << 20}
)

// Join reporting.
const (
	// joinWarnAfter is how long a node may have no DHT peer before the
	// daemon warns.
	joinWarnAfter = 30 * time.Second
	// joinPoll is how often the routing table is looked at.
	joinPoll = time.Second
)

// resourceManager is libp2p's default resource manager (scaled to the
// machine) with limits of its own for agent streams, in total and per peer,
// and, on a relay, for the relay service, so that neither can use up what
// the other protocols of the node need.
func resourceManager(relayService bool, netName string) (network.ResourceManager, error) {
	limits := rcmgr.DefaultLimits
	libp2p.SetDefaultServiceLimits(&limits)
	limits.AddServiceLimit(market.ServiceName, agentServiceLimit, agentServiceIncrease)
	limits.AddServicePeerLimit(market.ServiceName, agentPeerLimit, rcmgr.BaseLimitIncrease{})
	// The agent's streams are all of the "/http/1.1" protocol: without a
	// protocol limit as large, the default protocol limit would bind first.
	limits.AddProtocolLimit(libp2phttp.ProtocolIDForMultistreamSelect, agentServiceLimit, agentServiceIncrease)
	limits.AddProtocolPeerLimit(libp2phttp.ProtocolIDForMultistreamSelect, agentPeerLimit, rcmgr.BaseLimitIncrease{})
	if relayService {
		// Each circuit holds two buffers of the relay's BufferSize (2 KiB);
		// longer and larger circuits (RelayLimitDuration, RelayLimitData)
		// hold them longer, not more of them.
		limits.AddServiceLimit(relayv2.ServiceName,
			rcmgr.BaseLimit{StreamsInbound: 512, StreamsOutbound: 512, Streams: 512, Memory: 16 << 20},
			rcmgr.BaseLimitIncrease{StreamsInbound: 256, StreamsOutbound: 256, Streams: 256, Memory: 16 << 20})
		limits.AddServicePeerLimit(relayv2.ServiceName,
			rcmgr.BaseLimit{StreamsInbound: 2 * RelayMaxCircuits, StreamsOutbound: 2 * RelayMaxCircuits, Streams: 2 * RelayMaxCircuits, Memory: 1 << 20},
			rcmgr.BaseLimitIncrease{})
	}
	var opts []rcmgr.Option
	if relayService && netName != dht.Amino {
		opts = append(opts, rcmgr.WithLimitPerSubnet([]rcmgr.ConnLimitPerSubnet{{PrefixLength: 32, ConnCount: PrivateRelayPerIP}}, nil))
	}
	m, err := rcmgr.NewResourceManager(rcmgr.NewFixedLimiter(limits.AutoScale()), opts...)
	if err != nil {
		return nil, fmt.Errorf("resource manager: %w", err)
	}
	return m, nil
}

// relayResources are the relay service's limits on network.
func relayResources(netName string) relayv2.Resources {
	rc := relayv2.DefaultResources()
	rc.Limit = &relayv2.RelayLimit{Duration: RelayLimitDuration, Data: RelayLimitData}
	rc.ReservationTTL = relayReservationTTL
	rc.MaxReservations = RelayMaxReservations
	rc.MaxCircuits = RelayMaxCircuits
	if netName != dht.Amino {
		rc.MaxReservationsPerIP = PrivateRelayPerIP
	}
	return rc
}

// options are the libp2p options that [p2p] (and the network) asks for.
func options(st *State) ([]libp2p.Option, error) {
	cfg := st.cfg
	rm, err := resourceManager(cfg.RelayService, cfg.Network)
	if err != nil {
		return nil, err
	}
	arOpts := []autorelay.Option{}
	if cfg.Network != dht.Amino {
		// A private network may have a single relay: use the first
		// candidate instead of waiting (3 minutes) for four to compare.
		arOpts = append(arOpts, autorelay.WithMinCandidates(1))
	} else if n := len(st.static); n > 0 {
		arOpts = append(arOpts, autorelay.WithMinCandidates(min(n, 4)))
	}
	opts := []libp2p.Option{
		libp2p.ResourceManager(rm),
		libp2p.EnableHolePunching(holepunch.WithMetricsAndEventTracer(st.punches, st.punches)),
		libp2p.EnableAutoNATv2(),
		// When AutoNAT finds this node unreachable, reserve a slot on a
		// relay, static ones first, so buyers can reach a NAT'd seller
		// through a circuit address (and hole punching upgrades it).
		libp2p.EnableAutoRelayWithPeerSource(st.relayCandidates, arOpts...),
		// Circuit addresses through static relays that have no public
		// address, which AutoRelay does not announce (staticRelays).
		libp2p.AddrsFactory(st.addrsFactory),
	}
	reach := cfg.Reachability
	if cfg.Network == dht.Amino || reach == ReachabilityPublic {
		// Answer other nodes' AutoNAT v1 dial-backs (rate-limited by
		// libp2p): that is how a node behind NAT learns that it is. Kubo
		// does it on every node; on a private network the relay, which is
		// public by definition, does it for its members.
		opts = append(opts, libp2p.EnableNATService())
	}
	switch reach {
	case ReachabilityPublic:
		opts = append(opts, libp2p.ForceReachabilityPublic())
	case ReachabilityPrivate:
		opts = append(opts, libp2p.ForceReachabilityPrivate())
	}
	if cfg.RelayService {
		ropts := []relayv2.Option{relayv2.WithResources(relayResources(cfg.Network))}
		if cfg.Network != dht.Amino {
			// On a private network the relay's own addresses are private
			// ones: give them to the nodes that reserve a slot.
			ropts = append(ropts, relayv2.WithReservationAddressFilter(func(ma.Multiaddr) bool { return true }))
		}
		opts = append(opts, libp2p.EnableRelayService(ropts...))
	}
	return opts, nil
}

// State follows this node's reachability, relay reservations, hole
// punches and DHT peers, from libp2p's events, and logs their changes. It
// is created before the host (AutoRelay and hole punching call into it),
// started once the host exists, and given the DHT once that exists. It is
// safe for concurrent use.
type State struct {
	cfg     Config
	log     *slog.Logger
	network string
	forced  string // ReachabilityPublic or ReachabilityPrivate from config, else ""
	// static are [p2p] relays, offered to AutoRelay first.
	static []peer.AddrInfo
	// bootstrap tells whether this node joins through bootstrap peers (a
	// node with none is a private network's first node).
	bootstrap bool
	// routing is set once the DHT exists; AutoRelay may ask for relay
	// candidates before that.
	routing atomic.Pointer[dht.Routing]
	// dhtPeers is the routing table's size, set with routing.
	dhtPeers atomic.Pointer[func() int]
	punches  *holePunches
	host     host.Host

	mu          sync.Mutex
	autonat     network.Reachability // AutoNAT v1's verdict
	reachable   []ma.Multiaddr       // AutoNAT v2: addresses others dialled
	unreachable []ma.Multiaddr       // AutoNAT v2: addresses they could not
	relayAddrs  []ma.Multiaddr       // circuit addresses of the reservations held
	// ownCircuits are circuit addresses through private static relays,
	// by relay, while this node holds a reservation there.
	ownCircuits map[peer.ID][]ma.Multiaddr
	logged      string // reachability last logged

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newState(cfg Config, log *slog.Logger) *State {
	st := &State{
		cfg:       cfg,
		log:       log,
		network:   cfg.Network,
		static:    cfg.Relays,
		bootstrap: cfg.Bootstrap,
		punches:   &holePunches{log: log},
		logged:    ReachabilityUnknown,
	}
	if r := cfg.Reachability; r != "" && r != ReachabilityAuto {
		st.forced = r
	}
	return st
}

// relayCandidates offers AutoRelay the static relays, then peers of the DHT
// routing table; AutoRelay only asks while this node is unreachable, and
// checks that a candidate runs a relay before it reserves a slot.
func (st *State) relayCandidates(ctx context.Context, num int) <-chan peer.AddrInfo {
	ch := make(chan peer.AddrInfo)
	go func() {
		defer close(ch)
		send := func(ai peer.AddrInfo) bool {
			if num <= 0 {
				return false
			}
			select {
			case ch <- ai:
				num--
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, ai := range st.static {
			if !send(ai) {
				return
			}
		}
		// Only the atomic routing is read here: AutoRelay may ask while
		// New is still building the node.
		r := st.routing.Load()
		if r == nil {
			return
		}
		ps := r.DHT().Host().Peerstore()
		for _, p := range r.DHT().RoutingTable().ListPeers() {
			if slices.ContainsFunc(st.static, func(ai peer.AddrInfo) bool { return ai.ID == p }) {
				continue
			}
			if !send(ps.PeerInfo(p)) {
				return
			}
		}
	}()
	return ch
}

// start subscribes to the host's events and follows them until Close.
func (st *State) start(h host.Host) error {
	st.host = h
	sub, err := h.EventBus().Subscribe([]any{
		new(event.EvtLocalReachabilityChanged),
		new(event.EvtHostReachableAddrsChanged),
		new(event.EvtAutoRelayAddrsUpdated),
	})
	if err != nil {
		return fmt.Errorf("subscribe to reachability events: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st.cancel = cancel
	st.wg.Add(2)
	go st.follow(ctx, sub)
	go st.watchJoin(ctx)
	for _, ai := range st.static {
		if !slices.ContainsFunc(ai.Addrs, manet.IsPublicAddr) {
			st.wg.Add(1)
			go st.keepReservation(ctx, ai)
		}
	}
	return nil
}

// SetRouting gives the state the DHT, for relay candidates and join reports.
func (st *State) SetRouting(r *dht.Routing) {
	size := r.RoutingTableSize
	st.dhtPeers.Store(&size)
	st.routing.Store(r)
}

// Close stops following events; it is idempotent.
func (st *State) Close() {
	if st.cancel != nil {
		st.cancel()
	}
	st.wg.Wait()
}

func (st *State) follow(ctx context.Context, sub event.Subscription) {
	defer st.wg.Done()
	defer sub.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-sub.Out():
			if !ok {
				return
			}
			switch ev := e.(type) {
			case event.EvtLocalReachabilityChanged:
				st.mu.Lock()
				st.autonat = ev.Reachability
				st.mu.Unlock()
			case event.EvtHostReachableAddrsChanged:
				st.mu.Lock()
				st.reachable, st.unreachable = ev.Reachable, ev.Unreachable
				st.mu.Unlock()
			case event.EvtAutoRelayAddrsUpdated:
				st.relaysUpdated(ev.RelayAddrs)
			}
			st.logReachability()
		}
	}
}

// logReachability logs the reachability when it changed since last logged.
func (st *State) logReachability() {
	r := st.Reachability()
	st.mu.Lock()
	prev := st.logged
	st.logged = r
	st.mu.Unlock()
	if r == prev {
		return
	}
	switch r {
	case ReachabilityPrivate:
		st.log.Info("reachability changed: other nodes cannot dial this node; it reserves a slot on a relay and announces the circuit address",
			"reachability", r, "was", prev, "forced", st.forced != "")
	default:
		st.log.Info("reachability changed", "reachability", r, "was", prev, "forced", st.forced != "")
	}
}

// relaysUpdated records the circuit addresses of the reservations held and
// logs each relay gained or lost.
func (st *State) relaysUpdated(addrs []ma.Multiaddr) {
	st.mu.Lock()
	before := relayPeers(st.relayAddrs)
	st.relayAddrs = slices.Clone(addrs)
	st.mu.Unlock()
	after := relayPeers(addrs)
	for p, a := range after {
		if _, ok := before[p]; !ok {
			st.log.Info("relay reservation made: buyers can reach this node through the relay", "relay", p, "addr", a)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			st.log.Info("relay reservation lost", "relay", p)
		}
	}
}

// relayPeers maps the relays of circuit addresses to one address of each.
func relayPeers(addrs []ma.Multiaddr) map[peer.ID]string {
	out := make(map[peer.ID]string)
	for _, a := range addrs {
		relay, _ := ma.SplitFunc(a, func(c ma.Component) bool { return c.Code() == ma.P_CIRCUIT })
		if ai, err := peer.AddrInfoFromP2pAddr(relay); err == nil {
			if _, ok := out[ai.ID]; !ok {
				out[ai.ID] = a.String()
			}
		}
	}
	return out
}

// watchJoin logs when the node joins the network's DHT, warns when it has
// no DHT peer joinWarnAfter after the start, and when it loses them all.
func (st *State) watchJoin(ctx context.Context) {
	defer st.wg.Done()
	start := time.Now()
	t := time.NewTicker(joinPoll)
	defer t.Stop()
	joined, warned := false, false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		size := st.dhtPeers.Load()
		if size == nil {
			continue
		}
		n := (*size)()
		switch {
		case n > 0 && !joined:
			joined = true
			st.log.Info("joined the network", "network", st.network, "dht_peers", n, "after", time.Since(start).Round(time.Millisecond))
		case n == 0 && joined:
			joined, warned, start = false, false, time.Now()
			st.log.Warn("lost every DHT peer; buyers cannot find this node's listings until it joins again", "network", st.network)
		case n == 0 && !warned && time.Since(start) >= joinWarnAfter:
			warned = true
			if !st.bootstrap && st.network != dht.Amino {
				st.log.Warn("no DHT peers yet: nobody has joined through this node; others join with --bootstrap and one of the addresses of 'swarmwage id'",
					"network", st.network, "after", joinWarnAfter)
			} else {
				st.log.Warn("failed to join the network: no DHT peers; check the bootstrap addresses and that this machine can reach them",
					"network", st.network, "after", joinWarnAfter)
			}
		}
	}
}

// Reservations on static relays without a public address. AutoRelay builds
// circuit addresses from a relay's public addresses only, so on a private
// network on private addresses it would reserve a slot and announce
// nothing: State holds those reservations itself, and announces the
// relay's configured addresses as circuit addresses (addrsFactory).
const (
	// reservationRetry is how soon a failed reservation is tried again.
	reservationRetry = 10 * time.Second
	// reservationRefresh is how long before it expires a reservation is
	// renewed.
	reservationRefresh = 5 * time.Minute
	// reservePoll is how often a node waits to learn that it is private.
	reservePoll = time.Second
)

// keepReservation holds a reservation on relay while this node is private.
func (st *State) keepReservation(ctx context.Context, relay peer.AddrInfo) {
	defer st.wg.Done()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if st.Reachability() != ReachabilityPrivate {
			st.setOwnCircuits(relay, nil)
			t.Reset(reservePoll)
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, time.Minute)
		rsvp, err := circuitclient.Reserve(rctx, st.host, relay)
		cancel()
		if err != nil {
			st.log.Debug("reserve a slot on a static relay", "relay", relay.ID, "err", err)
			st.setOwnCircuits(relay, nil)
			t.Reset(reservationRetry)
			continue
		}
		circuits := make([]ma.Multiaddr, 0, len(relay.Addrs))
		for _, a := range relay.Addrs {
			circuits = append(circuits, a.Encapsulate(ma.StringCast("/p2p/"+relay.ID.String()+"/p2p-circuit")))
		}
		st.setOwnCircuits(relay, circuits)
		t.Reset(max(time.Until(rsvp.Expiration)-reservationRefresh, reservationRetry))
	}
}

// setOwnCircuits records the circuit addresses through relay (none: no
// reservation) and logs a reservation made or lost.
func (st *State) setOwnCircuits(relay peer.AddrInfo, circuits []ma.Multiaddr) {
	st.mu.Lock()
	if st.ownCircuits == nil {
		st.ownCircuits = make(map[peer.ID][]ma.Multiaddr)
	}
	_, had := st.ownCircuits[relay.ID]
	if len(circuits) == 0 {
		delete(st.ownCircuits, relay.ID)
	} else {
		st.ownCircuits[relay.ID] = circuits
	}
	st.mu.Unlock()
	switch {
	case !had && len(circuits) > 0:
		st.log.Info("relay reservation made: buyers can reach this node through the relay", "relay", relay.ID, "addr", circuits[0].String())
	case had && len(circuits) == 0:
		st.log.Info("relay reservation lost", "relay", relay.ID)
	}
}

// addrsFactory adds the circuit addresses through private static relays to
// the addresses the host announces.
func (st *State) addrsFactory(addrs []ma.Multiaddr) []ma.Multiaddr {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, c := range st.ownCircuits {
		addrs = append(addrs, c...)
	}
	return addrs
}

// Reachability is what this node knows of whether others can dial it:
// ReachabilityPublic, ReachabilityPrivate or ReachabilityUnknown. A forced
// [p2p] reachability wins; else an address that AutoNAT v2 saw dialled
// makes it public, then AutoNAT v1's verdict counts, then addresses that
// AutoNAT v2 could not dial make it private.
func (st *State) Reachability() string {
	if st.forced != "" {
		return st.forced
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case len(st.reachable) > 0 || st.autonat == network.ReachabilityPublic:
		return ReachabilityPublic
	case st.autonat == network.ReachabilityPrivate || len(st.unreachable) > 0:
		return ReachabilityPrivate
	}
	return ReachabilityUnknown
}

// RelayAddrs are the circuit addresses of the relay reservations held,
// ending in /p2p/<this node>, so they can be dialled as they are.
func (st *State) RelayAddrs() []string {
	st.mu.Lock()
	addrs := slices.Clone(st.relayAddrs)
	for _, c := range st.ownCircuits {
		addrs = append(addrs, c...)
	}
	st.mu.Unlock()
	if st.host == nil || len(addrs) == 0 {
		return []string{}
	}
	return Addrs(peer.AddrInfo{ID: st.host.ID(), Addrs: addrs})
}

// holePunches counts this node's hole punches (DCUtR) and keeps the last
// one's outcome. libp2p calls it as the hole punching service's tracer;
// it is safe for concurrent use.
type holePunches struct {
	log *slog.Logger

	mu        sync.Mutex
	attempts  int
	successes int
	last      *HolePunchResult
	lastPeer  peer.ID // peer of the last hole punch event, for failures
}

var (
	_ holepunch.MetricsTracer = (*holePunches)(nil)
	_ holepunch.EventTracer   = (*holePunches)(nil)
)

// Trace notes the peer of each hole punch (a failed one's outcome names no
// peer) and records a hole punch that ended in a protocol error, such as a
// peer that could not take part yet: libp2p enables hole punching on a node
// only once identify has shown it a public address of its own.
func (h *holePunches) Trace(e *holepunch.Event) {
	switch e.Type {
	case holepunch.StartHolePunchEvtT, holepunch.EndHolePunchEvtT:
		h.mu.Lock()
		h.lastPeer = e.Remote
		h.mu.Unlock()
	case holepunch.ProtocolErrorEvtT:
		msg := ""
		if pe, ok := e.Evt.(*holepunch.ProtocolErrorEvt); ok {
			msg = pe.Error
		}
		h.mu.Lock()
		h.attempts++
		h.last = &HolePunchResult{Peer: e.Remote.String(), At: time.Now().UTC().Format(time.RFC3339Nano), Error: msg}
		h.mu.Unlock()
		h.log.Info("hole punch failed; the connection stays relayed", "remote_peer", e.Remote, "err", msg)
	}
}

// HolePunchFinished records one hole punch, after its retries: it worked
// when it left a direct connection.
func (h *holePunches) HolePunchFinished(side string, attempts int, _, _ []ma.Multiaddr, direct network.ConnMultiaddrs) {
	ok := direct != nil
	h.mu.Lock()
	p := h.lastPeer
	if c, isConn := direct.(network.Conn); isConn && c != nil {
		p = c.RemotePeer()
	}
	h.attempts++
	if ok {
		h.successes++
	}
	h.last = &HolePunchResult{Peer: p.String(), Success: ok, Side: side, Attempts: attempts, At: time.Now().UTC().Format(time.RFC3339Nano)}
	h.mu.Unlock()
	if ok {
		h.log.Info("hole punch made a direct connection", "remote_peer", p, "side", side, "attempts", attempts)
	} else {
		h.log.Info("hole punch failed; the connection stays relayed", "remote_peer", p, "side", side, "attempts", attempts)
	}
}

// DirectDialFinished is a direct dial made instead of a hole punch (the
// other side was dialable); it is not counted as one.
func (h *holePunches) DirectDialFinished(bool) {}

// HolePunches is the status of this node's hole punches so far.
func (st *State) HolePunches() HolePunchInfo { return st.punches.info() }

// info is the status of the hole punches so far.
func (h *holePunches) info() HolePunchInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := HolePunchInfo{Attempts: h.attempts, Successes: h.successes}
	if h.last != nil {
		last := *h.last
		out.Last = &last
	}
	return out
}

// HolePunchInfo counts hole punches (DCUtR), each after its retries, and
// says how the last one ended.
type HolePunchInfo struct {
	Attempts  int `json:"attempts"`
	Successes int `json:"successes"`
	// Last is the latest hole punch; null before the first.
	Last *HolePunchResult `json:"last"`
}

// HolePunchResult is the outcome of one hole punch.
type HolePunchResult struct {
	// Peer is the other side.
	Peer string `json:"peer"`
	// Success: it left a direct connection.
	Success bool `json:"success"`
	// Side is "initiator" (this node was dialled through its relay and
	// started it) or "receiver"; empty when it failed before it started.
	Side string `json:"side,omitempty"`
	// Attempts is how many tries it took (libp2p retries up to 3 times).
	Attempts int `json:"attempts"`
	// At is when it ended (RFC 3339, UTC).
	At string `json:"at"`
	// Error says why a hole punch could not even be tried, e.g. the other
	// node had no public address to offer yet.
	Error string `json:"error,omitempty"`
}
