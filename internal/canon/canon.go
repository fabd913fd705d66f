// Package canon is the canonical form of the swarmwage protocol's signed
// messages and the one way they are signed and checked (docs/protocol.md,
// "Identities and signatures"):
//
//   - JSON and JSONBytes: stable JSON, the JavaScript stableJsonStringify of
//     the SkillCard spec byte for byte (sorted keys, no whitespace). SkillCard
//     content hashes use it too (package skillcard).
//   - Body: the bytes a message is signed over, the stable JSON of its wire
//     form without its signature, which must carry the message's type tag in
//     its top-level "type" field. A signature for one kind of message
//     therefore never verifies as another kind, nor a message of one version
//     as another version. Every signed message has a tag below.
//   - Sign and Verify: Ed25519 signatures by the node's libp2p key; a
//     verifier recovers the public key from the signer's peer ID and checks
//     the ID is the key's, so no certificate is needed.
//
// Listings and quotes were signed without a tag before this release
// (LegacyBody); they are accepted until UntaggedUntil, and a node logs each
// signer it accepts one from (AcceptUntagged).
//
// It imports the standard library and libp2p's key types only, and the
// packages that sign (escrow, market) import it; it imports none of them.
package canon

import (
	"errors"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Type tags of the signed messages, the value of their "type" field. A
// change to a message's fields gets a new tag; the test vectors of
// docs/protocol.md pin the bytes of each.
const (
	// TagListing tags a seller's signed listing (market).
	TagListing = "swarmwage/market/listing/1"
	// TagQuote tags a seller's signed quote (market).
	TagQuote = "swarmwage/market/quote/1"
	// TagLockV1 tags a lock without input_hash, as releases before input
	// hashes signed them: still decoded as evidence, never accepted for a
	// new job (escrow).
	TagLockV1 = "swarmwage/escrow/lock/1"
	// TagLock tags a buyer's lock on the credits rail (escrow).
	TagLock = "swarmwage/escrow/lock/2"
	// TagLockRail tags a buyer's lock on another rail (escrow).
	TagLockRail = "swarmwage/escrow/lock/3"
	// TagDelivery tags a seller's delivery (escrow).
	TagDelivery = "swarmwage/escrow/delivery/1"
	// TagSettle tags a buyer's settle on the credits rail (escrow).
	TagSettle = "swarmwage/escrow/settle/1"
	// TagSettleRail tags a buyer's settle on another rail (escrow).
	TagSettleRail = "swarmwage/escrow/settle/2"
	// TagReceipt tags a receipt: not signed itself, it bundles a lock, a
	// delivery and a settle, each checked under its own tag (escrow).
	TagReceipt = "swarmwage/receipt/1"
)

// SignedTags lists the tag of every message signed with a node key, in
// the order of a hire; each has a vector in docs/protocol.md.
func SignedTags() []string {
	return []string{TagListing, TagQuote, TagLock, TagLockRail, TagDelivery, TagSettle, TagSettleRail}
}

// UntaggedUntil is when listings and quotes signed without a type tag stop
// being accepted: 2027-03-01 00:00 UTC, one release after the one that
// tagged them (a listing is signed again at each start of its seller, a
// quote lives minutes, so only peers still running an older release sign
// them). The release after that removes LegacyBody.
const UntaggedUntil = "2027-03-01T00:00:00Z"

// untaggedUntilUnix is UntaggedUntil in Unix seconds.
const untaggedUntilUnix = 1803859200

// ErrBadSignature is returned (wrapped) when a signature does not verify
// against its signer's key.
var ErrBadSignature = errors.New("bad signature")

// ErrUntaggedExpired is returned (wrapped) for a message signed without a
// type tag after UntaggedUntil.
var ErrUntaggedExpired = errors.New("signed without a type tag, accepted only until " + UntaggedUntil)

// AcceptUntagged reports, as an error wrapping ErrUntaggedExpired, whether
// a message of kind tag signed without its tag is still accepted at now.
func AcceptUntagged(tag string, now time.Time) error {
	if now.Unix() >= untaggedUntilUnix {
		return fmt.Errorf("%s %w", tag, ErrUntaggedExpired)
	}
	return nil
}

// Body returns the bytes a message of kind tag is signed over: the stable
// JSON of v (its wire form without the signature), which must encode as a
// JSON object whose "type" is tag. It costs one encoding of v, as JSON does.
func Body(tag string, v any) ([]byte, error) {
	raw, err := marshal(v)
	if err != nil {
		return nil, err
	}
	val, err := parseJSON(raw)
	if err != nil {
		return nil, err
	}
	if ok, got := typeIs(val, tag); !ok {
		return nil, fmt.Errorf("signing bytes: the message's type is %q, want %q", truncate(got), tag)
	}
	return writeJSON(raw, val), nil
}

// LegacyBody is what listings and quotes were signed over before they
// carried a type tag: the stable JSON of v with no "type". Verifiers use it
// only while AcceptUntagged allows; nothing signs it any more.
func LegacyBody(v any) ([]byte, error) { return JSON(v) }

// Sign signs body (from Body) with key.
func Sign(key crypto.PrivKey, body []byte) ([]byte, error) {
	sig, err := key.Sign(body)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return sig, nil
}

// Verify checks that sig is signer's signature over body by the key that
// signer's peer ID embeds (Ed25519: the ID is the key). The error wraps
// ErrBadSignature.
func Verify(signer peer.ID, body, sig []byte) error {
	pub, err := signer.ExtractPublicKey()
	if err != nil {
		return fmt.Errorf("%w: cannot recover the public key of signer %s: %v", ErrBadSignature, signer, err)
	}
	if id, err := peer.IDFromPublicKey(pub); err != nil || id != signer {
		return fmt.Errorf("%w: signer %s does not match its public key", ErrBadSignature, signer)
	}
	if ok, err := pub.Verify(body, sig); err != nil || !ok {
		return fmt.Errorf("%w by %s", ErrBadSignature, signer)
	}
	return nil
}

// truncate shortens a peer's string for an error message.
func truncate(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
