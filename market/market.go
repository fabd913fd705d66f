// Package market owns the swarmwage agent market of one node: the seller's
// signed listings and its agent endpoint (HTTP over libp2p streams), and the
// buyer's side: finding sellers, checking their signed listings, and (in
// job.go and hire.go) quotes, jobs and settlement.
//
// The agent endpoint is served with go-libp2p's p2p/http under the protocol
// ID AgentProtocolID, mounted at the HTTP path AgentPath, so the same
// http.Handler can also listen on plain TCP for HTTP-only buyers. Routes:
//
//	GET  /capabilities                 every signed listing of the seller
//	GET  /capabilities/{id}            one signed listing (404 if not sold)
//	GET  /capabilities/{id}/schema     input and output JSON Schemas
//	GET  /capabilities/code.execute.sandboxed/runtime
//
// Every signed object is the stable JSON (package skillcard) of the object,
// signed with the node's Ed25519 libp2p key; a verifier recovers the key from
// the signer's peer ID, so a listing needs no certificate.
package market

import (
	"time"

	"github.com/libp2p/go-libp2p/core/protocol"
)

const (
	// AgentProtocolID names the agent endpoint in libp2p's HTTP well-known
	// protocol map. An incompatible change gets a new ID.
	AgentProtocolID protocol.ID = "/swarmwage/agent/1"

	// AgentPath is the HTTP path prefix the agent endpoint is mounted at.
	// Buyers use it directly instead of asking for the well-known map first,
	// which saves a round trip per seller.
	AgentPath = "/swarmwage/agent/1"

	// ServiceName is the resource-manager service name of the agent endpoint.
	ServiceName = "swarmwage.agent"

	// listingVersion is the schema version of Listing.
	listingVersion = 1

	// maxListingSize caps a signed listing read from a peer. Listings carry
	// two JSON Schemas; 256 KiB is far above any standard one.
	maxListingSize = 256 << 10

	// maxListingsSize caps GET /capabilities: a seller with many listings.
	maxListingsSize = 4 << 20

	// fetchTimeout bounds fetching one seller's listing. Provider records of
	// dead sellers are normal (amino keeps them 48 h): skip them fast.
	fetchTimeout = 5 * time.Second

	// fetchConcurrency bounds how many sellers are asked at once.
	fetchConcurrency = 16
)
