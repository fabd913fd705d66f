package market

import (
	"crypto/rand"
	"testing"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"
)

// A seller checks the signature of a quote a buyer reuses for many jobs
// once (the market's quoteSigs cache); what the cache remembers must never
// let a quote through that Verify refuses: other terms or another
// signature are checked in full, and so are expiry and the parties every
// time.
func TestVerifiedQuoteCacheRefusesWhatVerifyRefuses(t *testing.T) {
	sellerKey, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	otherKey, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	seller, err := peer.IDFromPrivateKey(sellerKey)
	require.NoError(t, err)
	buyer, err := peer.IDFromPrivateKey(otherKey)
	require.NoError(t, err)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	q := Quote{Version: quoteVersion, QuoteID: "q1", Capability: "compute.statistics.mean", Price: 1000,
		Seller: seller, Buyer: buyer, CreatedAt: now.Format(time.RFC3339Nano), ExpiresAt: now.Add(time.Minute).Format(time.RFC3339Nano),
		WindowMS: 60_000, MaxDurationMS: 30_000}
	good, err := signQuote(sellerKey, q)
	require.NoError(t, err)
	seen, err := lru.New[SignedQuote, struct{}](8)
	require.NoError(t, err)
	require.NoError(t, good.verify(seller, buyer, "", now, seen))
	require.Equal(t, 1, seen.Len(), "a quote that checked out is remembered")

	cheaper := good
	cheaper.Quote.Price = 1 // the signed terms changed, the signature kept
	forged, err := signQuote(otherKey, q)
	require.NoError(t, err)
	testCases := []struct {
		name          string
		q             SignedQuote
		seller, buyer peer.ID
		at            time.Time
	}{
		{"terms changed after signing", cheaper, seller, buyer, now},
		{"signed by another key", forged, seller, buyer, now},
		{"remembered quote, expired", good, seller, buyer, now.Add(time.Hour)},
		{"remembered quote, another buyer", good, seller, seller, now},
		{"remembered quote, another seller", good, buyer, buyer, now},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.q.Verify(tc.seller, tc.buyer, "", tc.at)
			require.ErrorIs(t, want, ErrBadQuote)
			require.ErrorIs(t, tc.q.verify(tc.seller, tc.buyer, "", tc.at, seen), ErrBadQuote)
		})
	}
	require.Equal(t, 1, seen.Len(), "a refused quote is not remembered")
}

// BenchmarkSellerQuoteCheck measures the seller's check of the quote that
// comes with every job: the buyer reuses one quote for many jobs, so with
// the cache only the first pays for the Ed25519 verification.
func BenchmarkSellerQuoteCheck(b *testing.B) {
	sellerKey, _, _ := crypto.GenerateEd25519Key(rand.Reader)
	buyerKey, _, _ := crypto.GenerateEd25519Key(rand.Reader)
	seller, _ := peer.IDFromPrivateKey(sellerKey)
	buyer, _ := peer.IDFromPrivateKey(buyerKey)
	now := time.Now()
	sq, err := signQuote(sellerKey, Quote{Version: quoteVersion, QuoteID: "q1", Capability: "compute.statistics.mean", Price: 1000,
		Seller: seller, Buyer: buyer, CreatedAt: now.Format(time.RFC3339Nano), ExpiresAt: now.Add(time.Hour).Format(time.RFC3339Nano),
		WindowMS: 60_000, MaxDurationMS: 30_000})
	if err != nil {
		b.Fatal(err)
	}
	for _, cached := range []bool{false, true} {
		b.Run(map[bool]string{false: "verify-each", true: "verified-once"}[cached], func(b *testing.B) {
			var seen *lru.Cache[SignedQuote, struct{}]
			if cached {
				seen, _ = lru.New[SignedQuote, struct{}](maxVerifiedQuotes)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := sq.verify(seller, buyer, "", now, seen); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
