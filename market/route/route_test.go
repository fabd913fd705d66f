package route_test

import (
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/market/route"
)

func newPeer(t testing.TB) peer.ID {
	_, pub, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	id, err := peer.IDFromPublicKey(pub)
	require.NoError(t, err)
	return id
}

// Three sellers of one capability: fast and dear, middling, slow and
// cheap. Each QoS class picks the one the rule says.
func TestRankByQoS(t *testing.T) {
	fast, mid, cheap := newPeer(t), newPeer(t), newPeer(t)
	cands := []route.Candidate{
		{Peer: cheap, Price: 10_000, LatencyMS: 900, FromHistory: true},
		{Peer: fast, Price: 90_000, LatencyMS: 50, FromHistory: true},
		{Peer: mid, Price: 30_000, LatencyMS: 300, FromHistory: true},
	}
	testCases := []struct {
		qos  route.QoS
		want peer.ID
	}{
		{route.P0, fast},
		{route.P1, mid},
		{route.P2, mid},
		{route.P3, cheap},
	}
	for _, tc := range testCases {
		t.Run(string(tc.qos), func(t *testing.T) {
			ds := route.Rank(cands, route.Request{Capability: "c.x", QoS: tc.qos, Explain: true})
			require.Len(t, ds, 3)
			require.True(t, ds[0].Chosen)
			require.Equal(t, tc.want, ds[0].Peer, "%+v", ds)
			require.Contains(t, ds[0].Reason, "chosen")
			for i, d := range ds {
				require.Equal(t, i+1, d.Rank)
			}
		})
	}
}

// Price caps (the request's and the policy's, the lower winning), deny and
// allow lists and a minimum rating drop candidates, each with its reason.
func TestRankDropsWithReasons(t *testing.T) {
	a, b, c, d := newPeer(t), newPeer(t), newPeer(t), newPeer(t)
	cands := []route.Candidate{
		{Peer: a, Price: 10_000, Rating: 5, LatencyMS: 10},
		{Peer: b, Price: 50_000, Rating: 5, LatencyMS: 10},
		{Peer: c, Price: 10_000, Rating: 2, LatencyMS: 10},
		{Peer: d, Price: 10_000, Rating: 5, LatencyMS: 10},
	}
	pol := &route.Policy{Match: "c", MaxPrice: 30_000, MinRating: 3, DenySellers: []peer.ID{d}}
	ds := route.Rank(cands, route.Request{Capability: "c.x", MaxPrice: 100_000, Policy: pol})
	byPeer := map[peer.ID]route.Decision{}
	for _, x := range ds {
		byPeer[x.Peer] = x
	}
	require.True(t, byPeer[a].Chosen)
	require.Contains(t, byPeer[b].Reason, "over the maximum 0.03")
	require.Contains(t, byPeer[c].Reason, "min_rating")
	require.Contains(t, byPeer[d].Reason, "deny_sellers")
	for _, p := range []peer.ID{b, c, d} {
		require.Zero(t, byPeer[p].Rank)
		require.False(t, byPeer[p].Chosen)
	}

	allow := &route.Policy{Match: "c", AllowSellers: []peer.ID{c}}
	ds = route.Rank(cands, route.Request{Capability: "c.x", Policy: allow})
	require.Equal(t, c, ds[0].Peer)
	require.Contains(t, ds[1].Reason, "allow_sellers")
}

func TestPoliciesMostSpecificWins(t *testing.T) {
	ps := route.Policies{
		{Match: "compute", MaxPrice: 1},
		{Match: "compute.statistics", MaxPrice: 2},
		{Match: "compute.statistics.mean", MaxPrice: 3},
		{Match: "cap.db"},
	}
	require.NoError(t, ps.Validate())
	testCases := []struct {
		capID string
		want  string
	}{
		{"compute.statistics.mean", "compute.statistics.mean"},
		{"compute.statistics.median", "compute.statistics"},
		{"compute.math.numeric", "compute"},
		{"computex.y", ""},
		{"cap.db.write", "cap.db"},
		{"text.summarize.short", ""},
	}
	for _, tc := range testCases {
		p := ps.For(tc.capID)
		if tc.want == "" {
			require.Nil(t, p, tc.capID)
			continue
		}
		require.NotNil(t, p, tc.capID)
		require.Equal(t, tc.want, p.Match)
	}
}

func TestPolicyValidateNamesTheKey(t *testing.T) {
	x := newPeer(t)
	testCases := []struct {
		p    route.Policy
		want string
	}{
		{route.Policy{}, "capability is missing"},
		{route.Policy{Match: "a..b"}, "capability"},
		{route.Policy{Match: "a", QoS: "P9"}, "qos"},
		{route.Policy{Match: "a", MinRating: 6}, "min_rating"},
		{route.Policy{Match: "a", MaxPrice: -1}, "max_price"},
		{route.Policy{Match: "a", AllowSellers: []peer.ID{x}, DenySellers: []peer.ID{x}}, "allow_sellers and deny_sellers"},
	}
	for _, tc := range testCases {
		err := tc.p.Validate()
		require.ErrorIs(t, err, route.ErrBadPolicy)
		require.Contains(t, err.Error(), tc.want)
	}
	require.ErrorContains(t, route.Policies{{Match: "a"}, {Match: "a"}}.Validate(), "two [[policy]] tables")
}

func TestCatalogTombstones(t *testing.T) {
	c, err := route.ParseCatalog([]byte(`{"capabilities":[
		{"id":"cap.doc.scan","status":"deprecated","superseded_by":"cap.doc.ocr","deprecated_catalog":"2.0.0","sunset_catalog":"4.0.0"},
		{"id":"cap.doc.ocr","status":"deprecated","superseded_by":"cap.doc.ocr2"},
		{"id":"cap.doc.ocr2","status":"active"}]}`))
	require.NoError(t, err)
	got, chain, err := c.Resolve("cap.doc.scan")
	require.NoError(t, err)
	require.Equal(t, "cap.doc.ocr2", got)
	require.Equal(t, []string{"cap.doc.scan", "cap.doc.ocr", "cap.doc.ocr2"}, chain)
	got, _, err = c.Resolve("text.summarize.short")
	require.NoError(t, err)
	require.Equal(t, "text.summarize.short", got, "IDs outside the catalog route as they are")

	testCases := []struct{ name, doc, want string }{
		{"loop", `{"capabilities":[{"id":"a.b","status":"deprecated","superseded_by":"a.c"},{"id":"a.c","status":"deprecated","superseded_by":"a.b"}]}`, "loop"},
		{"no successor", `{"capabilities":[{"id":"a.b","status":"deprecated"}]}`, "no superseded_by"},
		{"duplicate", `{"capabilities":[{"id":"a.b"},{"id":"a.b"}]}`, "twice"},
		{"not JSON", `{`, "invalid WCP catalog"},
		{"bad id", `{"capabilities":[{"id":""}]}`, "not a capability ID"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := route.ParseCatalog([]byte(tc.doc))
			require.ErrorIs(t, err, route.ErrBadCatalog)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestEstimateUsesTheOthersProcessingTime(t *testing.T) {
	cands := []route.Candidate{
		{LatencyMS: 110, RTTMS: 10, FromHistory: true},
		{LatencyMS: 220, RTTMS: 20, FromHistory: true},
		{RTTMS: 5},
	}
	route.Estimate(cands)
	require.InDelta(t, 5+150, cands[2].LatencyMS, 0.001)
	require.InDelta(t, 100, route.UpdateEWMA(0, 100), 0.001)
	require.InDelta(t, 0.3*200+0.7*100, route.UpdateEWMA(100, 200), 0.001)
}

func FuzzParseCatalogNoPanic(f *testing.F) {
	f.Add([]byte(`{"capabilities":[{"id":"a.b","status":"deprecated","superseded_by":"a.c"}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := route.ParseCatalog(data)
		if err == nil {
			for id := range 3 {
				_, _, _ = c.Resolve(fmt.Sprint("a.", id))
			}
		}
	})
}

// BenchmarkRank100 is one routing decision from the cache: 100 candidates
// ranked under P2 with a policy.
func BenchmarkRank100(b *testing.B) {
	cands := make([]route.Candidate, 100)
	for i := range cands {
		cands[i] = route.Candidate{Peer: newPeer(b), Price: int64(1000 + i*37%100*100), Rating: float64(i % 6), LatencyMS: float64(5 + i*13%200), RTTMS: 2, FromHistory: i%3 != 0}
	}
	pol := &route.Policy{Match: "compute", MaxPrice: 9_000, MinRating: 1}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		in := append([]route.Candidate(nil), cands...)
		route.Estimate(in)
		_ = route.Rank(in, route.Request{Capability: "compute.statistics.mean", QoS: route.P2, Policy: pol})
	}
}

// A seller that quoted off its signed listing ranks after every seller that
// never did, in every class, and the reason says so; among themselves such
// sellers keep the usual order.
func TestRankPutsMisquotersLast(t *testing.T) {
	liar, honest, liar2 := newPeer(t), newPeer(t), newPeer(t)
	cands := []route.Candidate{
		{Peer: liar, Price: 1_000, LatencyMS: 10, Misquotes: 1},
		{Peer: honest, Price: 90_000, LatencyMS: 900},
		{Peer: liar2, Price: 2_000, LatencyMS: 20, Misquotes: 3},
	}
	for _, q := range []route.QoS{route.P0, route.P1, route.P2, route.P3} {
		t.Run(string(q), func(t *testing.T) {
			ds := route.Rank(cands, route.Request{Capability: "c.x", QoS: q, Explain: true})
			require.Equal(t, []peer.ID{honest, liar, liar2}, []peer.ID{ds[0].Peer, ds[1].Peer, ds[2].Peer})
			require.Contains(t, ds[1].Reason, "quoted off its listing 1 time(s)")
			require.NotContains(t, ds[0].Reason, "quoted off")
		})
	}
}
