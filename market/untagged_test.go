package market

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/canon"
	"github.com/swarmwage/swarmwage/internal/kv"
	"github.com/swarmwage/swarmwage/market/builtin"
)

// signUntagged signs v as releases before type tags did: over its stable
// JSON, with no "type".
func signUntagged(t testing.TB, key crypto.PrivKey, v any) string {
	t.Helper()
	body, err := canon.LegacyBody(v)
	require.NoError(t, err)
	require.NotContains(t, string(body), `"type":"swarmwage/`)
	sig, err := canon.Sign(key, body)
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(sig)
}

func untaggedCutoff(t *testing.T) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, canon.UntaggedUntil)
	require.NoError(t, err)
	return at
}

// Listings and quotes of a release from before type tags verify until
// canon.UntaggedUntil and not after; a tag cannot be added to or removed
// from a signed message, and a tagged one verifies whenever.
func TestUntaggedListingsAndQuotesVerifyUntilTheCutoff(t *testing.T) {
	key, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	id, err := peer.IDFromPrivateKey(key)
	require.NoError(t, err)
	_, buyer, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	buyerID, err := peer.IDFromPublicKey(buyer)
	require.NoError(t, err)
	cutoff := untaggedCutoff(t)
	before, after := cutoff.Add(-time.Minute), cutoff

	l := Listing{Version: listingVersion, Capability: "compute.statistics.mean", Price: 10_000, Handler: HandlerBuiltin, Seller: id, CreatedAt: before.Truncate(time.Second)}
	oldListing := SignedListing{Listing: l, Signature: signUntagged(t, key, l)}
	newListing, err := SignListing(key, l)
	require.NoError(t, err)
	require.Equal(t, TypeListing, newListing.Listing.Type)
	relabelled := oldListing
	relabelled.Listing.Type = TypeListing
	stripped := newListing
	stripped.Listing.Type = ""
	otherKind := newListing
	otherKind.Listing.Type = TypeQuote

	q := Quote{Version: quoteVersion, QuoteID: "q1", Capability: "compute.statistics.mean", Price: 10_000, Seller: id, Buyer: buyerID,
		CreatedAt: before.Format(time.RFC3339Nano), ExpiresAt: after.Add(time.Hour).Format(time.RFC3339Nano), WindowMS: 60_000, MaxDurationMS: 60_000}
	oldQuote := SignedQuote{Quote: q, Signature: signUntagged(t, key, q)}
	newQuote, err := signQuote(key, q)
	require.NoError(t, err)
	require.Equal(t, TypeQuote, newQuote.Quote.Type)
	relabelledQ := oldQuote
	relabelledQ.Quote.Type = TypeQuote
	strippedQ := newQuote
	strippedQ.Quote.Type = ""

	testCases := []struct {
		name     string
		verify   func(now time.Time) error
		untagged bool
		before   error // nil: verifies
		after    error
	}{
		{"untagged listing", func(now time.Time) error { return oldListing.VerifyAt(id, l.Capability, now) }, true, nil, canon.ErrUntaggedExpired},
		{"tagged listing", func(now time.Time) error { return newListing.VerifyAt(id, l.Capability, now) }, false, nil, nil},
		{"untagged listing given a tag", func(now time.Time) error { return relabelled.VerifyAt(id, l.Capability, now) }, false, ErrBadSignature, ErrBadSignature},
		{"tagged listing stripped of its tag", func(now time.Time) error { return stripped.VerifyAt(id, l.Capability, now) }, true, ErrBadSignature, canon.ErrUntaggedExpired},
		{"listing tagged as a quote", func(now time.Time) error { return otherKind.VerifyAt(id, l.Capability, now) }, false, ErrListingMismatch, ErrListingMismatch},
		{"untagged quote", func(now time.Time) error { return oldQuote.Verify(id, buyerID, q.Capability, now) }, true, nil, canon.ErrUntaggedExpired},
		{"tagged quote", func(now time.Time) error { return newQuote.Verify(id, buyerID, q.Capability, now) }, false, nil, nil},
		{"untagged quote given a tag", func(now time.Time) error { return relabelledQ.Verify(id, buyerID, q.Capability, now) }, false, ErrBadSignature, ErrBadSignature},
		{"tagged quote stripped of its tag", func(now time.Time) error { return strippedQ.Verify(id, buyerID, q.Capability, now) }, true, ErrBadSignature, canon.ErrUntaggedExpired},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []struct {
				now  time.Time
				want error
			}{{before, tc.before}, {after, tc.after}} {
				err := tc.verify(c.now)
				if c.want == nil {
					require.NoError(t, err, "at %s", c.now)
				} else {
					require.ErrorIs(t, err, c.want, "at %s", c.now)
				}
			}
		})
	}
	require.True(t, oldListing.Untagged())
	require.False(t, newListing.Untagged())
	require.True(t, oldQuote.Untagged())
	require.False(t, newQuote.Untagged())
}

// logLines is a slog handler that keeps every message.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	})
	l.mu.Lock()
	l.lines = append(l.lines, b.String())
	l.mu.Unlock()
	return nil
}
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }

func (l *logLines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// A seller still on a release from before type tags (its listings and
// quotes untagged) is hired as before, and the buyer logs it once per
// kind, not per hire.
func TestSellerOfAnOlderReleaseIsHiredAndLoggedOnce(t *testing.T) {
	reg, err := builtin.New()
	require.NoError(t, err)
	var key crypto.PrivKey // the seller's, set once it is up
	untag := func(s *SignedListing) {
		s.Listing.Type = ""
		s.Signature = signUntagged(t, key, s.Listing)
	}
	untagQuote := func(s *SignedQuote) {
		s.Quote.Type = ""
		s.Signature = signUntagged(t, key, s.Quote)
	}
	logs := &logLines{}
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot, Builtin(reg), withTamper(t, untag), withTamperQuote(t, untagQuote))
	key = seller.key
	buyer := setupPeer(t, boot, Logger(slog.New(logs)))
	addListing(t, seller, "compute.statistics.mean", 50_000)
	waitProvided(t, boot, seller, buyer)
	require.NoError(t, buyer.market.escrow.Deposit(context.Background(), 10_000_000, "test"))

	for range 2 {
		res, err := buyer.market.Hire(context.Background(), HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Timeout: 20 * time.Second})
		require.NoError(t, err)
		require.Equal(t, escrow.StateReleased, res.State)
		buyer.market.dropQuote(seller.host.ID(), "compute.statistics.mean") // the second hire asks for a quote again
	}
	require.Equal(t, 1, logs.count("kind="+TypeListing+" signer="+seller.host.ID().String()), "%q", logs.lines)
	require.Equal(t, 1, logs.count("kind="+TypeQuote+" signer="+seller.host.ID().String()), "%q", logs.lines)
	require.Equal(t, 2, logs.count("without a type tag (an older release): it stops being accepted at "+canon.UntaggedUntil), "the lines say until when")
}

// A listing stored by a release from before tags is signed again with its
// tag when the seller starts, so buyers see only tagged listings from it.
func TestUntaggedStoredListingIsSignedAgainAtStart(t *testing.T) {
	p := setupPeer(t, nil)
	ctx := context.Background()
	addListing(t, p, "compute.statistics.median", 1000)
	o, err := p.market.Store().Get(ctx, "compute.statistics.median")
	require.NoError(t, err)
	l := o.Signed.Listing
	l.Type = ""
	o.Signed = SignedListing{Listing: l, Signature: signUntagged(t, p.key, l)}
	val, err := json.Marshal(o)
	require.NoError(t, err)
	require.NoError(t, p.market.jobs.db.Update(func(txn kv.Txn) error { return txn.Set(listingKey(l.Capability), val) }))
	// Written behind the store's back, as by the older release before
	// this start: the store read nothing of it yet.
	p.market.Store().forget(l.Capability)
	o, err = p.market.Store().Get(ctx, "compute.statistics.median")
	require.NoError(t, err)
	require.True(t, o.Signed.Untagged())

	require.NoError(t, p.market.resignListings(ctx))
	o, err = p.market.Store().Get(ctx, "compute.statistics.median")
	require.NoError(t, err)
	require.Equal(t, TypeListing, o.Signed.Listing.Type)
	require.NoError(t, o.Signed.VerifyAt(p.host.ID(), "compute.statistics.median", untaggedCutoff(t)), "verifies after the cutoff too")
}
