package market

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// quoteVersion is the schema version of Quote.
const quoteVersion = 1

// ErrBadQuote is returned when a quote is forged, expired, or not for this
// buyer, seller or capability.
var ErrBadQuote = errors.New("bad quote")

// QuoteRequest is the body of POST /quotes.
type QuoteRequest struct {
	Capability string `json:"capability"`
}

// Quote is a seller's signed offer to run one job of a capability for one
// buyer at a price, valid until ExpiresAt.
type Quote struct {
	// Type is TypeQuote; empty in a quote signed before tags
	// (SignedQuote.Untagged).
	Type       string  `json:"type,omitempty"`
	Version    int     `json:"v"`
	QuoteID    string  `json:"quote_id"`
	Capability string  `json:"capability"`
	Price      Credits `json:"price"`
	Seller     peer.ID `json:"seller"`
	Buyer      peer.ID `json:"buyer"`
	CreatedAt  string  `json:"created_at"`
	ExpiresAt  string  `json:"expires_at"`
	// WindowMS is the verification window: how long after delivery the
	// buyer may refund before the hold is released.
	WindowMS int64 `json:"window_ms"`
	// MaxDurationMS is the longest job deadline the seller accepts.
	MaxDurationMS int64 `json:"max_duration_ms"`
	// QueueEstimateMS is the seller's estimate of the wait before the job
	// starts.
	QueueEstimateMS int64 `json:"queue_estimate_ms"`
}

// SignedQuote is a Quote with the seller's signature over its stable JSON.
type SignedQuote struct {
	Quote     Quote  `json:"quote"`
	Signature string `json:"signature"`
}

// Window is the verification window of the quote.
func (q Quote) Window() time.Duration { return time.Duration(q.WindowMS) * time.Millisecond }

// Expires is when the quote stops being valid.
func (q Quote) Expires() (time.Time, error) { return time.Parse(time.RFC3339Nano, q.ExpiresAt) }

func signQuote(key crypto.PrivKey, q Quote) (SignedQuote, error) {
	q.Type = TypeQuote
	sig, err := signTagged(key, TypeQuote, q)
	if err != nil {
		return SignedQuote{}, fmt.Errorf("sign quote: %w", err)
	}
	return SignedQuote{Quote: q, Signature: sig}, nil
}

// Untagged reports whether the quote was signed before quotes carried a
// type tag: accepted until canon.UntaggedUntil.
func (s SignedQuote) Untagged() bool { return s.Quote.Type == "" }

// maxVerifiedQuotes caps the quotes whose checked signatures a market
// remembers: a quote is valid for many jobs, and a seller sees each buyer's
// kept quote again on every job. A quote is a few hundred bytes.
const maxVerifiedQuotes = 4096

// Verify checks that the quote is seller's, for buyer and capID, signed and
// not expired at now (an untagged quote: and now before
// canon.UntaggedUntil).
func (s SignedQuote) Verify(seller, buyer peer.ID, capID string, now time.Time) error {
	return s.verify(seller, buyer, capID, now, nil)
}

// verify is Verify; with seen, a quote whose signature checked out before
// (the same terms and signature, byte for byte) skips the Ed25519
// verification, and one that checks out now is added. Every other check
// runs each time.
func (s SignedQuote) verify(seller, buyer peer.ID, capID string, now time.Time, seen *lru.Cache[SignedQuote, struct{}]) error {
	q := s.Quote
	switch {
	case q.Version != quoteVersion:
		return fmt.Errorf("%w: unsupported version %d", ErrBadQuote, q.Version)
	case q.Type != "" && q.Type != TypeQuote:
		return fmt.Errorf("%w: type %q is not a quote's (%s)", ErrBadQuote, truncateText(q.Type, 64), TypeQuote)
	case q.Seller != seller:
		return fmt.Errorf("%w: quote is by %s, not %s", ErrBadQuote, q.Seller, seller)
	case q.Buyer != buyer:
		return fmt.Errorf("%w: quote is for buyer %s, not %s", ErrBadQuote, q.Buyer, buyer)
	case capID != "" && q.Capability != capID:
		return fmt.Errorf("%w: quote is for %s, not %s", ErrBadQuote, q.Capability, capID)
	case q.Price <= 0:
		return fmt.Errorf("%w: price must be positive", ErrBadQuote)
	case q.WindowMS <= 0 || q.MaxDurationMS <= 0:
		return fmt.Errorf("%w: window and max duration must be positive", ErrBadQuote)
	}
	exp, err := q.Expires()
	if err != nil {
		return fmt.Errorf("%w: expires_at: %v", ErrBadQuote, err)
	}
	if !now.Before(exp) {
		return fmt.Errorf("%w: expired at %s", ErrBadQuote, q.ExpiresAt)
	}
	if seen != nil {
		if _, ok := seen.Get(s); ok {
			return nil
		}
	}
	if err := verifyTagged(seller, TypeQuote, s.Untagged(), q, s.Signature, now); err != nil {
		return fmt.Errorf("%w: %w", ErrBadQuote, err)
	}
	if seen != nil {
		seen.Add(s, struct{}{})
	}
	return nil
}

// decodeQuoteRequest parses the body of POST /quotes.
func decodeQuoteRequest(data []byte) (QuoteRequest, error) {
	var r QuoteRequest
	if err := json.Unmarshal(data, &r); err != nil {
		return QuoteRequest{}, fmt.Errorf("decode quote request: %w", err)
	}
	if r.Capability == "" {
		return QuoteRequest{}, errors.New("decode quote request: capability is missing")
	}
	return r, nil
}
