package nattest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const (
	capID    = "compute.statistics.mean"
	capInput = `{"data":[3,1,4,1,5]}`
	price    = "0.01"
)

// TestSellerBehindNATIsFoundAndHired builds the topology of the package doc
// and runs the real binary in it: the seller behind a NAT learns that it is
// private, reserves a slot on the relay and announces its circuit address;
// a buyer on the public segment, one behind a cone NAT and one behind a
// symmetric NAT find it at that address and hire it; every job is verified
// and released, and each hire says whether it ran direct or relayed.
func TestSellerBehindNATIsFoundAndHired(t *testing.T) {
	tp := newTopology(t)
	checkIsolation(t, tp)
	network := fmt.Sprintf("nat%04x", rand.IntN(1<<16))

	relay := newPeer(t, tp, "relay", network)
	relay.start(t, "--relay-service")
	relayID := relay.id(t).PeerID
	boot := fmt.Sprintf("/ip4/%s/tcp/4747/p2p/%s", tp.addr["relay"], relayID)
	require.Equal(t, "public", relay.status(t).Reachability, "the relay of a private network is public")

	seller := newPeer(t, tp, "seller", network, "--bootstrap", boot)
	seller.setConfig(t, fmt.Sprintf("[p2p]\nreachability = \"auto\"\nrelays = [%q]", boot))
	r := seller.cli(t, "sell", "add", "--price", price, capID)
	require.Equal(t, 0, r.code, r.stderr)
	sellerStart := time.Now()
	seller.start(t)
	var relayAddrs []string
	waitFor(t, time.Minute, "the seller behind NAT to hold a relay reservation", func() (bool, string) {
		s := seller.status(t)
		relayAddrs = s.RelayAddrs
		return s.Reachability == "private" && len(s.RelayAddrs) > 0, fmt.Sprintf("%+v", s)
	})
	timeToRelay := time.Since(sellerStart)
	for _, a := range relayAddrs {
		require.Contains(t, a, "/p2p/"+relayID+"/p2p-circuit/p2p/", "a circuit address through the relay")
	}
	id := seller.id(t)
	require.Equal(t, "private", id.Reachability)
	require.Subset(t, id.Addrs, relayAddrs, "the seller announces its circuit addresses")
	sellerID := id.PeerID

	buyerA := newPeer(t, tp, "buyer-a", network, "--bootstrap", boot)
	buyerB := newPeer(t, tp, "buyer-b", network, "--bootstrap", boot)
	buyerC := newPeer(t, tp, "buyer-c", network, "--bootstrap", boot)
	// buyer-c says it is private instead of waiting for AutoNAT.
	buyerC.setConfig(t, "[p2p]\nreachability = \"private\"")
	for _, b := range []*peer{buyerA, buyerB, buyerC} {
		b.start(t)
		r := b.cli(t, "wallet", "deposit", "10")
		require.Equal(t, 0, r.code, r.stderr)
	}
	for b, want := range map[*peer]string{buyerA: "public", buyerB: "private", buyerC: "private"} {
		waitFor(t, time.Minute, b.role+" to learn its reachability", func() (bool, string) {
			s := b.status(t)
			return s.Reachability == want, s.Reachability
		})
	}

	hires := map[string]hireResult{}
	for _, b := range []*peer{buyerA, buyerB, buyerC} {
		waitFor(t, time.Minute, b.role+" to find the seller at its circuit address", func() (bool, string) {
			var f findResult
			b.cliJSON(t, &f, "find", "--json", "--timeout", "10s", capID)
			for _, s := range f.Sellers {
				if s.PeerID == sellerID && slices.ContainsFunc(s.Addrs, func(a string) bool { return strings.Contains(a, "/p2p-circuit") }) {
					return true, ""
				}
			}
			return false, fmt.Sprintf("%+v", f)
		})
		h := b.hire(t, capID, capInput)
		require.Equal(t, sellerID, h.Seller)
		require.True(t, h.Verification.Passed, "%s: %+v", b.role, h)
		require.Equal(t, "released", h.Escrow.State, "%s: %+v", b.role, h)
		require.JSONEq(t, `{"result":2.8}`, string(h.Output))
		require.Contains(t, []string{"direct", "relayed"}, h.Connection, b.role)
		hires[b.role] = h
	}
	// buyer-a is public: the seller dials it back at once (no hole punch
	// needed). buyer-c's NAT gives every connection a new port, so hole
	// punching cannot work and the job runs over the relay.
	require.Equal(t, "direct", hires["buyer-a"].Connection)
	require.Equal(t, "relayed", hires["buyer-c"].Connection)
	// The seller tried to punch a hole to both NAT'd buyers; the one to
	// buyer-c gives up only after libp2p's three tries.
	waitFor(t, time.Minute, "the seller's hole punches with buyer-b and buyer-c to end", func() (bool, string) {
		hp := seller.status(t).HolePunch
		return hp.Attempts >= 2 && hp.Last != nil, fmt.Sprintf("%+v", hp)
	})
	waitFor(t, 30*time.Second, "the seller to be paid for three jobs", func() (bool, string) {
		b := seller.status(t).Balance
		return b.Earned == "0.03", fmt.Sprintf("%+v", b)
	})

	for _, p := range []*peer{relay, seller, buyerA, buyerB, buyerC} {
		require.Contains(t, p.log(), "joined the network", p.role)
	}
	slog := seller.log()
	require.Contains(t, slog, "reachability changed: other nodes cannot dial this node")
	require.Contains(t, slog, "relay reservation made")

	// The measurement: hole punches between the two cone NATs, each with a
	// new buyer-b daemon whose NAT mappings the routers forgot; hire latency direct
	// (buyer-a) and relayed (buyer-c).
	punched := 0
	if hires["buyer-b"].Connection == "direct" {
		punched++
	}
	var bDurations []time.Duration
	before := seller.status(t).HolePunch
	for range *tries {
		buyerB.stop(t)
		tp.forgetHost("buyer-b")
		buyerB.start(t)
		waitFor(t, time.Minute, "buyer-b to join again", func() (bool, string) {
			s := buyerB.status(t)
			return s.DHTPeers > 0, fmt.Sprintf("%+v", s)
		})
		h := buyerB.hire(t, capID, capInput)
		require.Equal(t, "released", h.Escrow.State)
		if h.Connection == "direct" {
			punched++
		}
		bDurations = append(bDurations, time.Duration(h.DurationMS)*time.Millisecond)
	}
	require.Positive(t, punched, "hole punching between two cone NATs never made a direct connection in %d tries", *tries+1)
	after := seller.status(t).HolePunch
	var direct, relayed []time.Duration
	for range max(*tries, 3) {
		h := buyerA.hire(t, capID, capInput)
		require.Equal(t, "direct", h.Connection)
		direct = append(direct, time.Duration(h.DurationMS)*time.Millisecond)
		h = buyerC.hire(t, capID, capInput)
		require.Equal(t, "relayed", h.Connection)
		relayed = append(relayed, time.Duration(h.DurationMS)*time.Millisecond)
	}
	r = seller.cli(t, "status")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "reachability:  private (behind NAT; buyers reach this node through its relay)")
	t.Logf("the seller's 'swarmwage status':\n%s", r.stdout)
	t.Logf("time to a relay address: %s (seller daemon start to 'status' showing it)", timeToRelay.Round(time.Millisecond))
	t.Logf("hole punching between two cone NATs: %d of %d hires of a just-started buyer-b ran direct; in the %d restarts, the seller counted %d hole punches, %d worked",
		punched, *tries+1, *tries, after.Attempts-before.Attempts, after.Successes-before.Successes)
	t.Logf("first hire (find, connect, hire): direct %dms, relayed %dms (includes waiting up to 3s for a hole punch); buyer-b after a restart: %s",
		hires["buyer-a"].DurationMS, hires["buyer-c"].DurationMS, summary(bDurations))
	t.Logf("hire latency, connection already open: direct %s; relayed %s", summary(direct), summary(relayed))
}

// checkIsolation checks that the public segment has no route into a home
// and that no namespace has a route out of the topology.
func checkIsolation(t *testing.T, tp *topology) {
	t.Helper()
	for _, role := range []string{"relay", "buyer-a"} {
		for host, home := range tp.homes {
			out := tp.ip("-n", tp.ns[role], "route", "show", "match", nth(home, 2).String())
			require.Empty(t, strings.TrimSpace(out), "%s has a route into %s's home", role, host)
		}
		require.Empty(t, strings.TrimSpace(tp.ip("-n", tp.ns[role], "route", "show", "default")), "%s has a default route", role)
	}
	for _, nat := range []string{"nat1", "nat2", "nat3"} {
		require.Empty(t, strings.TrimSpace(tp.ip("-n", tp.ns[nat], "route", "show", "default")), "%s has a default route out of the topology", nat)
	}
}

// waitFor polls cond until it holds or timeout passes; cond's second
// result says what it saw, for the failure message.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; last saw: %s", timeout, what, saw)
		}
		<-tick.C
	}
}

// summary is the median and range of ds.
func summary(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("median %s (min %s, max %s, n=%d)", s[len(s)/2], s[0], s[len(s)-1], len(s))
}
