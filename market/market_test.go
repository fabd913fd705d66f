package market

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	libp2phttp "github.com/libp2p/go-libp2p/p2p/http"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/escrow"
)

const testNetwork = "markettest"

type testPeer struct {
	host    host.Host
	routing *dht.Routing
	market  *Market
	key     crypto.PrivKey
	db      *badger.DB
}

// setupPeer starts a real host on loopback, a private DHT and a market on a
// real Badger database.
func setupPeer(t *testing.T, boot *testPeer, opts ...Option) *testPeer {
	return setupPeerTB(t, boot, opts...)
}

// setupPeerTB is setupPeer for benchmarks and fuzz targets too.
func setupPeerTB(t testing.TB, boot *testPeer, opts ...Option) *testPeer {
	t.Helper()
	return startPeer(t, boot, nil, opts, nil)
}

// startPeer starts a test peer: a key, a host on loopback, a private DHT
// joined through boot (when there is one), a real Badger, an escrow with
// escOpts that tells the market about timer decisions (as node wires it)
// and the market with opts. started, if set, runs once the escrow has
// started and before the market does; what it registers with t.Cleanup
// runs after the market closes and before the escrow does.
func startPeer(t testing.TB, boot *testPeer, escOpts []escrow.Option, opts []Option, started func(*escrow.Escrow)) *testPeer {
	t.Helper()
	key, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	h, err := libp2p.New(libp2p.Identity(key), libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	require.NoError(t, err)
	t.Cleanup(func() { h.Close() })
	var dopts []dht.Option
	if boot != nil {
		dopts = append(dopts, dht.BootstrapPeers(peer.AddrInfo{ID: boot.host.ID(), Addrs: boot.host.Addrs()}))
	}
	r, err := dht.New(h, testNetwork, dopts...)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	require.NoError(t, r.Start())
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil).WithMemTableSize(8 << 20))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	var m *Market
	escOpts = append(escOpts, escrow.WithOnSettle(func(rec escrow.Record) { m.SettleDecided(rec) }))
	esc, err := escrow.New(db, key, escOpts...)
	require.NoError(t, err)
	t.Cleanup(func() { esc.Close() })
	m, err = New(h, db, key, r, esc, opts...)
	require.NoError(t, err)
	require.NoError(t, esc.Start(context.Background()))
	if started != nil {
		started(esc)
	}
	t.Cleanup(func() { m.Close() })
	require.NoError(t, m.Start(context.Background()))
	return &testPeer{host: h, routing: r, market: m, key: key, db: db}
}

func waitProvided(t *testing.T, peers ...*testPeer) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, p := range peers {
			if p.routing.RoutingTableSize() == 0 || p.routing.Pending() > 0 {
				return false
			}
		}
		return true
	}, 30*time.Second, 50*time.Millisecond)
}

func addListing(t *testing.T, p *testPeer, capID string, price int64) {
	addListingTB(t, p, capID, price)
}

func addListingTB(t testing.TB, p *testPeer, capID string, price int64) {
	t.Helper()
	_, err := p.market.AddListing(context.Background(), ListingParams{Capability: capID, Price: price, Handler: HandlerConfig{Kind: HandlerBuiltin}})
	require.NoError(t, err)
}

// TestTamperedListingsAreRejected: a seller (or a peer in the middle) that
// serves a listing changed after signing, or signed by another key, is
// dropped and counted as rejected; an honest seller of the same capability
// is still found.
func TestTamperedListingsAreRejected(t *testing.T) {
	otherKey, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	testCases := []struct {
		name   string
		tamper func(*SignedListing)
	}{
		{"price changed in transit", func(s *SignedListing) { s.Listing.Price = 1 }},
		{"capability changed in transit", func(s *SignedListing) { s.Listing.Capability = "custom.test.other" }},
		{"signed by another key", func(s *SignedListing) {
			sig, err := signTagged(otherKey, TypeListing, s.Listing)
			if err == nil {
				s.Signature = sig
			}
		}},
		{"signature removed", func(s *SignedListing) { s.Signature = "" }},
		{"signature not base64", func(s *SignedListing) { s.Signature = "!!" }},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			boot := setupPeer(t, nil)
			honest := setupPeer(t, boot)
			cheat := setupPeer(t, boot, withTamper(t, tc.tamper))
			buyer := setupPeer(t, boot)
			addListing(t, honest, "custom.test.cap", 50_000)
			addListing(t, cheat, "custom.test.cap", 40_000)
			waitProvided(t, boot, honest, cheat, buyer)

			// Provider records spread through the DHT; search again (not from
			// the cache) until both candidates have answered.
			var res FindResult
			require.Eventually(t, func() bool {
				buyer.routing.Forget("custom.test.cap")
				r, err := buyer.market.Find(context.Background(), "custom.test.cap", 10)
				res = r
				return err == nil && len(r.Sellers)+r.Rejected >= 2
			}, 20*time.Second, 100*time.Millisecond)
			require.Equal(t, 1, res.Rejected, "the tampered listing is rejected")
			require.Len(t, res.Sellers, 1)
			require.Equal(t, honest.host.ID(), res.Sellers[0].Peer.ID)
		})
	}
}

func TestSignedListingVerify(t *testing.T) {
	key, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	id, err := peer.IDFromPrivateKey(key)
	require.NoError(t, err)
	other, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	otherID, err := peer.IDFromPrivateKey(other)
	require.NoError(t, err)
	l := Listing{Version: listingVersion, Capability: "text.summarize.short", Price: Credits(50_000), Handler: HandlerBuiltin, Seller: id, CreatedAt: time.Unix(1700000000, 0).UTC()}
	signed, err := SignListing(key, l)
	require.NoError(t, err)

	testCases := []struct {
		name    string
		seller  peer.ID
		capID   string
		mutate  func(*SignedListing)
		wantErr error
	}{
		{"valid", id, "text.summarize.short", nil, nil},
		{"valid under prefix", id, "text", nil, nil},
		{"fetched from another peer", otherID, "text.summarize.short", nil, ErrListingMismatch},
		{"other capability", id, "text.summarize.long", nil, ErrListingMismatch},
		{"prefix that is not a dot boundary", id, "text.sum", nil, ErrListingMismatch},
		{"price changed", id, "text.summarize.short", func(s *SignedListing) { s.Listing.Price++ }, ErrBadSignature},
		{"zero price", id, "text.summarize.short", func(s *SignedListing) { s.Listing.Price = 0 }, ErrListingMismatch},
		{"handler changed", id, "text.summarize.short", func(s *SignedListing) { s.Listing.Handler = HandlerExec }, ErrBadSignature},
		{"unknown version", id, "text.summarize.short", func(s *SignedListing) { s.Listing.Version = 2 }, ErrListingMismatch},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			s := signed
			if tc.mutate != nil {
				tc.mutate(&s)
			}
			err := s.Verify(tc.seller, tc.capID)
			if tc.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
		})
	}

	_, err = SignListing(other, l)
	require.Error(t, err, "a key may only sign its own listings")
}

func TestListingJSONRoundTrip(t *testing.T) {
	key, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	id, _ := peer.IDFromPrivateKey(key)
	signed, err := SignListing(key, Listing{Version: 1, Capability: "custom.a.b", Price: 12_345_678, Handler: HandlerHTTP, Seller: id, CreatedAt: time.Now().UTC().Truncate(time.Second)})
	require.NoError(t, err)
	data, err := json.Marshal(signed)
	require.NoError(t, err)
	require.Contains(t, string(data), `"price":"12.345678"`)
	back, err := DecodeSignedListing(data)
	require.NoError(t, err)
	require.NoError(t, back.Verify(id, "custom.a.b"))
}

func FuzzDecodeSignedListingNoPanic(f *testing.F) {
	f.Add([]byte(`{"listing":{"v":1,"capability":"custom.a.b","price":"0.05","handler":"builtin","seller":"12D3KooWBFrp7Bb1ZBCfCmNxKxLGsihJ5RBhFfQnzcPhxgz4cZVG","created_at":"2026-01-01T00:00:00Z"},"signature":"AAAA"}`))
	f.Add([]byte(`{"listing":{"type":"swarmwage/market/listing/1","v":1,"capability":"custom.a.b","price":"0.05","handler":"builtin","seller":"12D3KooWBFrp7Bb1ZBCfCmNxKxLGsihJ5RBhFfQnzcPhxgz4cZVG","created_at":"2026-01-01T00:00:00Z"},"signature":"AAAA"}`))
	f.Add([]byte(`{"listing":{"price":"1e9"}}`))
	f.Add([]byte(`{"listing":{"v":1,"capability":"custom.a.b","price":"0.05","terms":{"window_ms":-1,"max_duration_ms":9223372036854775807,"accept_horizon_ms":1}},"signature":"AAAA"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeSignedListing(data)
		if err != nil {
			return
		}
		_ = s.Verify(s.Listing.Seller, s.Listing.Capability)
		_ = s.Listing.Unfit(time.Minute) // terms from a peer: never a panic
	})
}

func TestParseHandler(t *testing.T) {
	testCases := []struct {
		spec    string
		want    HandlerConfig
		wantErr bool
	}{
		{"builtin", HandlerConfig{Kind: HandlerBuiltin}, false},
		{"exec:python3 worker.py --fast", HandlerConfig{Kind: HandlerExec, Command: []string{"python3", "worker.py", "--fast"}}, false},
		{`exec:sh -c "echo hi; exit 1"`, HandlerConfig{Kind: HandlerExec, Command: []string{"sh", "-c", "echo hi; exit 1"}}, false},
		{"http:http://127.0.0.1:8080/run", HandlerConfig{Kind: HandlerHTTP, URL: "http://127.0.0.1:8080/run"}, false},
		{"exec:", HandlerConfig{}, true},
		{`exec:a "b`, HandlerConfig{}, true},
		{"http:ftp://x", HandlerConfig{}, true},
		{"builtin:x", HandlerConfig{}, true},
		{"shell:ls", HandlerConfig{}, true},
	}
	for _, tc := range testCases {
		t.Run(tc.spec, func(t *testing.T) {
			got, err := ParseHandler(tc.spec)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestSilentStreamIsClosed: a peer that opens an agent stream and sends
// nothing must not hold it (and a goroutine) forever.
func TestSilentStreamIsClosed(t *testing.T) {
	seller := setupPeer(t, nil, withReadHeaderTimeout(t, 300*time.Millisecond))
	buyer := setupPeer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, buyer.host.Connect(ctx, peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}))
	s, err := buyer.host.NewStream(ctx, seller.host.ID(), libp2phttp.ProtocolIDForMultistreamSelect)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.SetReadDeadline(time.Now().Add(5*time.Second)))
	start := time.Now()
	_, err = io.ReadAll(s)
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) {
		require.False(t, ne.Timeout(), "the seller kept the silent stream open")
	}
	require.Less(t, time.Since(start), 5*time.Second)
}

func TestRuntimeDescriptorIsServedForTheSandboxOnly(t *testing.T) {
	seller := setupPeer(t, nil, SandboxRuntime(func() any { return map[string]string{"language": "python", "engine": "wazero"} }))
	buyer := setupPeer(t, nil)
	addListing(t, seller, "code.execute.sandboxed", 10_000)
	addListing(t, seller, "compute.statistics.mean", 10_000)
	ctx := context.Background()
	info := peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}
	var rt map[string]string
	code, _, err := buyer.market.client.do(ctx, info, "GET", "/capabilities/code.execute.sandboxed/runtime", nil, maxListingSize, &rt)
	require.NoError(t, err)
	require.Equal(t, 200, code)
	require.Equal(t, "python", rt["language"])
	_, _, err = buyer.market.client.do(ctx, info, "GET", "/capabilities/compute.statistics.mean/runtime", nil, maxListingSize, nil)
	var se *StatusError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 404, se.Code)

	var schema SchemaResponse
	_, _, err = buyer.market.client.do(ctx, info, "GET", "/capabilities/compute.statistics.mean/schema", nil, maxListingSize, &schema)
	require.NoError(t, err)
	require.Contains(t, string(schema.InputSchema), `"data"`)
}
