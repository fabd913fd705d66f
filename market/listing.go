package market

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/internal/canon"
)

// Type tags of the market's signed messages, in their "type" field and so
// in what is signed (package internal/canon). Listings and quotes signed
// before they carried one have none; they verify until
// canon.UntaggedUntil.
const (
	// TypeListing tags a signed Listing.
	TypeListing = canon.TagListing
	// TypeQuote tags a signed Quote.
	TypeQuote = canon.TagQuote
)

var (
	// ErrBadSignature is returned when a signed object does not verify
	// against its signer's key.
	ErrBadSignature = canon.ErrBadSignature
	// ErrListingMismatch is returned when a listing is valid but is not the
	// one asked for: another seller's, or another capability's.
	ErrListingMismatch = errors.New("listing does not match the request")
	// ErrMalformedListing is returned when a peer's listing cannot be decoded.
	ErrMalformedListing = errors.New("malformed listing")
	// ErrNotListed is returned when this node does not sell a capability.
	ErrNotListed = errors.New("capability not listed")
)

// Handler kinds a listing can be bound to.
const (
	HandlerBuiltin   = "builtin"
	HandlerExec      = "exec"
	HandlerHTTP      = "http"
	HandlerSkillCard = "skillcard"
)

// Listing is a seller's offer: one capability at one price. It is what buyers
// see; how the seller runs the job (HandlerConfig) stays private.
type Listing struct {
	// Type is TypeListing; empty in a listing signed before tags
	// (SignedListing.Untagged).
	Type                string          `json:"type,omitempty"`
	Version             int             `json:"v"`
	Capability          string          `json:"capability"`
	Price               Credits         `json:"price"`
	Handler             string          `json:"handler"`
	InputSchema         json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema        json.RawMessage `json:"output_schema,omitempty"`
	Seller              peer.ID         `json:"seller"`
	CreatedAt           time.Time       `json:"created_at"`
	SkillCardHash       string          `json:"skillcard_hash,omitempty"`
	RiskTier            int             `json:"risk_tier,omitempty"`
	RequiredPermissions []string        `json:"required_permissions,omitempty"`
	// Settlement is how the seller is paid (settlement.go); absent on the
	// credits rail.
	Settlement *Settlement `json:"settlement,omitempty"`
	// Terms are what the seller accepts (terms.go); absent in listings
	// signed before they existed.
	Terms *ListingTerms `json:"terms,omitempty"`
}

// SignedListing is a Listing with the seller's signature over its stable JSON.
type SignedListing struct {
	Listing   Listing `json:"listing"`
	Signature string  `json:"signature"`
}

// signTagged signs v, a message of kind tag, with key, returning base64.
func signTagged(key crypto.PrivKey, tag string, v any) (string, error) {
	body, err := canon.Body(tag, v)
	if err != nil {
		return "", err
	}
	sig, err := canon.Sign(key, body)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(sig), nil
}

// verifyTagged checks that sig is signer's signature over v, a message of
// kind tag. A message without its tag (untagged) was signed over its
// stable JSON alone, before tags: it verifies until canon.UntaggedUntil.
func verifyTagged(signer peer.ID, tag string, untagged bool, v any, sig string, now time.Time) error {
	raw, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return fmt.Errorf("%w: signature is not base64", ErrBadSignature)
	}
	var body []byte
	if untagged {
		if err := canon.AcceptUntagged(tag, now); err != nil {
			return fmt.Errorf("%w: %w", ErrBadSignature, err)
		}
		body, err = canon.LegacyBody(v)
	} else {
		body, err = canon.Body(tag, v)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadSignature, err)
	}
	return canon.Verify(signer, body, raw)
}

// SignListing signs l with key. l.Seller must be key's peer ID.
func SignListing(key crypto.PrivKey, l Listing) (SignedListing, error) {
	id, err := peer.IDFromPrivateKey(key)
	if err != nil {
		return SignedListing{}, fmt.Errorf("sign listing: %w", err)
	}
	if l.Seller != id {
		return SignedListing{}, fmt.Errorf("sign listing %s: seller %s is not the signing key's peer %s", l.Capability, l.Seller, id)
	}
	l.Type = TypeListing
	sig, err := signTagged(key, TypeListing, l)
	if err != nil {
		return SignedListing{}, fmt.Errorf("sign listing %s: %w", l.Capability, err)
	}
	return SignedListing{Listing: l, Signature: sig}, nil
}

// Verify is VerifyAt now.
func (s SignedListing) Verify(seller peer.ID, capID string) error {
	return s.VerifyAt(seller, capID, time.Now())
}

// Untagged reports whether the listing was signed before listings carried
// a type tag: accepted until canon.UntaggedUntil.
func (s SignedListing) Untagged() bool { return s.Listing.Type == "" }

// VerifyAt checks the listing's signature and that it is seller's listing
// of capability capID (or, when capID is a prefix such as "text", of a
// capability under it), at now: an untagged listing only verifies before
// canon.UntaggedUntil.
func (s SignedListing) VerifyAt(seller peer.ID, capID string, now time.Time) error {
	l := s.Listing
	if l.Seller != seller {
		return fmt.Errorf("%w: listing names seller %s, fetched from %s", ErrListingMismatch, l.Seller, seller)
	}
	if l.Capability != capID && !strings.HasPrefix(l.Capability, capID+".") {
		return fmt.Errorf("%w: listing is for %q, asked for %q", ErrListingMismatch, l.Capability, capID)
	}
	if l.Version != listingVersion {
		return fmt.Errorf("%w: unsupported listing version %d", ErrListingMismatch, l.Version)
	}
	if l.Type != "" && l.Type != TypeListing {
		return fmt.Errorf("%w: type %q is not a listing's (%s)", ErrListingMismatch, truncateText(l.Type, 64), TypeListing)
	}
	if l.Price <= 0 {
		return fmt.Errorf("%w: price must be positive", ErrListingMismatch)
	}
	if err := l.Terms.check(); err != nil {
		return fmt.Errorf("%w: %v", ErrListingMismatch, err)
	}
	return verifyTagged(seller, TypeListing, s.Untagged(), l, s.Signature, now)
}

// DecodeSignedListing parses a signed listing read from a peer.
func DecodeSignedListing(data []byte) (SignedListing, error) {
	if len(data) > maxListingSize {
		return SignedListing{}, fmt.Errorf("%w: %d bytes is over the %d byte limit", ErrMalformedListing, len(data), maxListingSize)
	}
	var s SignedListing
	if err := json.Unmarshal(data, &s); err != nil {
		return SignedListing{}, fmt.Errorf("%w: %v", ErrMalformedListing, err)
	}
	return s, nil
}
