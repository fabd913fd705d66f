package market

import (
	"encoding/base32"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Badger keys of the market. Capability IDs are lowercase [a-z0-9.-] after
// verify.CheckID, so they cannot contain the separator of a longer key.
//
//	listing/<capability-id>   -> offerRecord (versioned JSON)
const listingPrefix = "listing/"

func listingKey(capID string) []byte { return []byte(listingPrefix + capID) }

//	job/<role>/<base32 job id>          -> JobRecord (versioned JSON)
//	rating/<seller peer id>/<base32 job id> -> rating (versioned JSON)
//	route/latency/<seller peer id>/<capability> -> latency history (versioned JSON)
//	route/misquote/<seller peer id>            -> quotes off the seller's listing (versioned JSON)
//	trade/counterparty/<peer id>              -> this node traded with the peer
//	trade/falserefund/<buyer peer id>/<job id> -> the buyer refunded output the verifier accepts
//
// Job IDs come from the network, so they are base32-encoded to stay inside
// their namespace whatever bytes they hold. Peer IDs are base58 and contain
// no '/'.
const (
	jobPrefix      = "job/"
	ratingPrefix   = "rating/"
	latencyPrefix  = "route/latency/"
	misquotePrefix = "route/misquote/"
	tradePrefix    = "trade/"
)

func counterpartyKey(p peer.ID) []byte { return []byte(tradePrefix + "counterparty/" + p.String()) }

func falseRefundPrefix(buyer peer.ID) []byte {
	return []byte(tradePrefix + "falserefund/" + buyer.String() + "/")
}

func falseRefundKey(buyer peer.ID, jobID string) []byte {
	return append(falseRefundPrefix(buyer), keyEncoding.EncodeToString([]byte(jobID))...)
}

// latencyKey holds this node's history of seller's job durations for
// capID. Capability IDs are checked (letters, digits, '.', '-', '_') before
// a hire reaches here.
func latencyKey(seller peer.ID, capID string) []byte {
	return []byte(latencyPrefix + seller.String() + "/" + capID)
}

// misquoteKey holds how often seller quoted other terms than its signed
// listing (a price above it, another capability).
func misquoteKey(seller peer.ID) []byte { return []byte(misquotePrefix + seller.String()) }

var keyEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

func jobKey(role, jobID string) []byte {
	return []byte(jobPrefix + role + "/" + keyEncoding.EncodeToString([]byte(jobID)))
}

func jobRolePrefix(role string) []byte { return []byte(jobPrefix + role + "/") }

func ratingKey(seller peer.ID, jobID string) []byte {
	return []byte(ratingPrefix + seller.String() + "/" + keyEncoding.EncodeToString([]byte(jobID)))
}

func ratingSellerPrefix(seller peer.ID) []byte { return []byte(ratingPrefix + seller.String() + "/") }
