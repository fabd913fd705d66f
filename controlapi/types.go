package controlapi

import (
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node/p2p"
	"github.com/swarmwage/swarmwage/reputation"
)

// The control API's documents. Field names are snake_case and stable: the
// CLI's --json output is these documents.

// IDInfo is the answer of GET /v1/id and 'swarmwage id --json'.
type IDInfo struct {
	PeerID   string   `json:"peer_id"`
	Addrs    []string `json:"addrs"`
	Network  string   `json:"network"`
	Listings []string `json:"listings"`
	Online   bool     `json:"online"`
	// Reachability is whether other nodes can dial this one: "public",
	// "private" (behind NAT: reached through a relay) or "unknown" (AutoNAT
	// has not decided, or the node is offline).
	Reachability string `json:"reachability"`
	// RelayAddrs are the circuit addresses of the relay reservations this
	// node holds, as buyers dial them (also in Addrs while announced).
	RelayAddrs []string `json:"relay_addrs"`
	// HolePunch counts the hole punches this node took part in.
	HolePunch p2p.HolePunchInfo `json:"hole_punch"`
}

// StatusInfo is the answer of GET /v1/status and 'swarmwage status --json':
// a node's health in one document.
type StatusInfo struct {
	PeerID string `json:"peer_id"`
	// Version is the binary's version, when it has one.
	Version string `json:"version,omitempty"`
	Network string `json:"network"`
	Online  bool   `json:"online"`
	// Peers is the number of connected peers; DHTPeers the size of the DHT
	// routing table (0: buyers cannot find this node's listings).
	Peers    int `json:"peers"`
	DHTPeers int `json:"dht_peers"`
	// Reachability, RelayAddrs and HolePunch are as in IDInfo.
	Reachability string            `json:"reachability"`
	RelayAddrs   []string          `json:"relay_addrs"`
	HolePunch    p2p.HolePunchInfo `json:"hole_punch"`
	// Listings are what this node sells.
	Listings []StatusListing `json:"listings"`
	// Balance is the wallet, as 'wallet balance --json' shows it.
	Balance escrow.Balance `json:"balance"`
	// JobsInFlight counts jobs still running, bought and sold.
	JobsInFlight JobsInFlight `json:"jobs_in_flight"`
}

// StatusListing is one listing in a status.
type StatusListing struct {
	Capability string `json:"capability"`
	Price      string `json:"price"`
	// LastAnnounced is when the DHT last took this node's provider records
	// of the capability (RFC 3339, UTC); empty while none did.
	LastAnnounced string `json:"last_announced,omitempty"`
}

// JobsInFlight counts running jobs by this node's role in them.
type JobsInFlight struct {
	Bought int `json:"bought"`
	Sold   int `json:"sold"`
}

// PeerInfo is one connected peer.
type PeerInfo struct {
	PeerID string   `json:"peer_id"`
	Addrs  []string `json:"addrs"`
}

// PeersInfo is the answer of GET /v1/peers.
type PeersInfo struct {
	Peers []PeerInfo `json:"peers"`
	// RoutingTable is the number of peers in the DHT routing table.
	RoutingTable int `json:"routing_table"`
}

// ListingInfo is one listing as 'sell list' shows it.
type ListingInfo struct {
	Capability    string `json:"capability"`
	Price         string `json:"price"`
	Handler       string `json:"handler"`
	CreatedAt     string `json:"created_at"`
	SkillCardHash string `json:"skillcard_hash,omitempty"`
	RiskTier      int    `json:"risk_tier,omitempty"`
	// RequiredPermissions are a SkillCard's required_permissions.
	RequiredPermissions []string `json:"required_permissions,omitempty"`
	// Env names the environment variables passed to the handler.
	Env []string `json:"env,omitempty"`
}

// ListingsInfo is the answer of GET /v1/listings.
type ListingsInfo struct {
	Listings []ListingInfo `json:"listings"`
}

// AddListingRequest is the body of POST /v1/listings.
type AddListingRequest struct {
	Capability   string `json:"capability"`
	Price        string `json:"price"`
	Handler      string `json:"handler"`
	InputSchema  []byte `json:"input_schema,omitempty"`
	OutputSchema []byte `json:"output_schema,omitempty"`
	// SkillCard is a SkillCard's JSON to sell; Capability may then be empty
	// (custom.<publisher>.<slug>) or a standard capability it fits.
	SkillCard []byte `json:"skillcard,omitempty"`
	// SkillCardDir is the card's folder, where its cli binding runs.
	SkillCardDir string `json:"skillcard_dir,omitempty"`
	// Dir is the absolute directory a relative exec program and its
	// relative arguments are resolved in: the caller's working directory.
	// Empty: the node's (see market.ResolveExec).
	Dir string `json:"dir,omitempty"`
	// Env names the daemon's environment variables the handler gets
	// (exec handlers and SkillCard cli bindings only), beyond the minimal
	// PATH, HOME, TMPDIR and LANG.
	Env []string `json:"env,omitempty"`
	// BaseURL and APIKeyEnv are an openai:MODEL handler's server (up to
	// /v1) and the daemon's variable its API key is read from (empty:
	// OPENAI_API_KEY); Prompt is the listing's own prompt template.
	BaseURL   string `json:"base_url,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
	Prompt    string `json:"prompt,omitempty"`
	// Retries is how many times an openai or mcp handler's output that
	// fails the buyer's checks is asked for again (nil: the default, 2).
	Retries *int `json:"retries,omitempty"`
	// Tool is the MCP tool an mcp:CMD or mcp+http:URL handler calls.
	Tool string `json:"tool,omitempty"`
}

// SellerInfo is one seller in a find result.
type SellerInfo struct {
	PeerID string `json:"peer_id"`
	// Rail is how the seller is paid ("credits" or "evm"); PayTo its
	// payout address on the rail, from its signed listing.
	Rail  string `json:"rail"`
	PayTo string `json:"pay_to,omitempty"`
	// Payable: the seller settles on this node's rail. A hire never picks
	// a seller this node cannot pay; find lists those last.
	Payable             bool     `json:"payable"`
	Capability          string   `json:"capability"`
	Price               string   `json:"price"`
	Addrs               []string `json:"addrs"`
	RTTMS               float64  `json:"rtt_ms"`
	Handler             string   `json:"handler"`
	SkillCardHash       string   `json:"skillcard_hash,omitempty"`
	RiskTier            int      `json:"risk_tier,omitempty"`
	RequiredPermissions []string `json:"required_permissions,omitempty"`
	// Rating is this node's average rating of the seller (1 to 5), from
	// 'swarmwage rate'; Ratings is how many jobs it rated. 0 when none.
	Rating  float64 `json:"rating"`
	Ratings int     `json:"ratings"`
	// Reputation is what a sample of the seller's signed receipts says
	// (package reputation); absent when the seller serves none.
	Reputation *ReputationInfo `json:"reputation,omitempty"`
}

// ReputationInfo is a seller's reputation as find shows it.
type ReputationInfo struct {
	Released int `json:"released"`
	Refunded int `json:"refunded"`
	// Volume is what releases paid on a rail this node checked (evm, on
	// its own chain and contract); credits are never volume.
	Volume string `json:"volume"`
	// SelfIssuedVolume is what credits releases moved: test credits any
	// node issues itself, shown apart and not ranked as value.
	SelfIssuedVolume string `json:"self_issued_volume"`
	Buyers           int    `json:"buyers"`
	PayingBuyers     int    `json:"paying_buyers"` // distinct buyers who paid on a checked rail
	KnownBuyers      int    `json:"known_buyers"`  // buyers this node has history of its own with
	// Backing says in words what backs the score.
	Backing string  `json:"backing"`
	Forged  int     `json:"forged"`
	Checked int     `json:"checked"` // receipts whose signatures and chain were verified
	Self    int     `json:"self"`
	Score   float64 `json:"score"` // 0..1, Sybil-weighted (see package reputation)
	FirstAt string  `json:"first_at,omitempty"`
}

func reputationInfo(s *reputation.Summary) *ReputationInfo {
	if s == nil {
		return nil
	}
	out := &ReputationInfo{
		Released: s.Released, Refunded: s.Refunded, Volume: escrow.FormatAmount(s.Volume),
		SelfIssuedVolume: escrow.FormatAmount(s.SelfIssued), Buyers: s.Buyers,
		PayingBuyers: s.PayingBuyers, KnownBuyers: s.KnownBuyers, Backing: s.Backing(),
		Forged: s.Forged, Checked: s.Checked, Self: s.Self, Score: float64(int(s.Score*1000+0.5)) / 1000,
	}
	if !s.FirstAt.IsZero() {
		out.FirstAt = s.FirstAt.UTC().Format(time.RFC3339)
	}
	return out
}

// FindInfo is the answer of GET /v1/find and 'swarmwage find --json'.
type FindInfo struct {
	Capability string       `json:"capability"`
	Sellers    []SellerInfo `json:"sellers"`
	// Rejected counts sellers whose listing was unsigned, mis-signed or did
	// not match.
	Rejected int `json:"rejected"`
	// DHTPeers is the size of the searching node's routing table: 0 means
	// it could not have found anyone.
	DHTPeers int `json:"dht_peers"`
	// Requested is the capability asked for when a WCP tombstone sent the
	// search to Capability, its successor.
	Requested string `json:"requested,omitempty"`
	// SellerCount is the number of distinct sellers (one may have several
	// listings under a prefix).
	SellerCount int `json:"seller_count"`
	// TimedOut: the search ran out of --timeout; sellers may be missing.
	TimedOut bool `json:"timed_out"`
	// Routing is how a hire would route (find --explain).
	Routing *market.Routed `json:"routing,omitempty"`
}

func NewListingInfo(o market.Offer) ListingInfo {
	l := o.Signed.Listing
	return ListingInfo{
		Capability:          l.Capability,
		Price:               l.Price.String(),
		Handler:             o.Handler.String(),
		CreatedAt:           l.CreatedAt.UTC().Format(time.RFC3339),
		SkillCardHash:       l.SkillCardHash,
		RiskTier:            l.RiskTier,
		RequiredPermissions: l.RequiredPermissions,
		Env:                 o.Handler.Env,
	}
}

func NewFindInfo(r market.FindResult, rating func(peer.ID) (float64, int)) FindInfo {
	out := FindInfo{Capability: r.Capability, Sellers: []SellerInfo{}, Rejected: r.Rejected, SellerCount: r.Peers(), TimedOut: r.TimedOut}
	for _, s := range r.Sellers {
		l := s.Listing.Listing
		out.Sellers = append(out.Sellers, SellerInfo{
			PeerID:              s.Peer.ID.String(),
			Capability:          l.Capability,
			Price:               l.Price.String(),
			Addrs:               p2p.Addrs(s.Peer),
			RTTMS:               float64(s.RTT.Microseconds()) / 1000,
			Handler:             l.Handler,
			SkillCardHash:       l.SkillCardHash,
			RiskTier:            l.RiskTier,
			RequiredPermissions: l.RequiredPermissions,
			Rail:                market.RailOf(l),
		})
		last := &out.Sellers[len(out.Sellers)-1]
		if l.Settlement != nil {
			last.PayTo = l.Settlement.PayTo
		}
		last.Rating, last.Ratings = rating(s.Peer.ID)
		last.Reputation = reputationInfo(s.Reputation)
	}
	return out
}
