package market

import (
	"sync"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Buyer is the buyer's side of a market: the one hire service of a node.
// Every door (the control API's POST /v1/hire, hire --detach, MCP, the
// dashboard, demo, the gateways and x402, bench) reaches it through Hire,
// and x402 prices through Price, the same quote step a hire takes.
//
// Hire runs its steps top to bottom, one function each (hire.go):
//
//	resolveCapability  the capability, its policy, price limit and input
//	route              sellers by policy, QoS class and reputation
//	quote              a signed quote, checked against the seller's listing
//	lock               the quoted price held in escrow
//	run                the job posted, its event stream followed
//	verify             the output checked by its capability's verifier
//	settle             the decision sent to the seller (outbox.go)
//	receipt            the result, with the routing decision
//
// Settles have one retry policy: the outbox (outbox.go) sends each at
// once and then backs off per job until the seller acknowledges it. The
// Buyer also receives the escrow's timer callbacks for bought jobs
// (Timers): a deadline refund or a window release goes to the outbox, an
// undecided delivery is verified again (Reverify).
//
// It shares the market's parts (shared) with the seller's side and owns
// its routing history, find cache, kept quotes and settle outbox. It is
// safe for concurrent use.
type Buyer struct {
	*shared

	latency  *latencies
	misquote *misquotes
	reps     *reputations

	outboxKick chan struct{}
	outboxMu   sync.Mutex
	unsent     map[string]*outboxEntry // bought jobs whose settle the seller has not acknowledged
	acked      []string                // acknowledged settles whose records ackLoop has yet to mark
	ackKick    chan struct{}

	findMu    sync.Mutex
	findCache map[string]cachedFind

	quoteMu sync.Mutex
	quotes  map[string]SignedQuote // kept quotes, by seller and capability

	// eventReaders pools the readers of job event streams (eventReader).
	eventReaders sync.Pool
}

func newBuyer(sh *shared) *Buyer {
	return &Buyer{
		shared:     sh,
		latency:    newLatencies(sh.jobs.db),
		misquote:   &misquotes{db: sh.jobs.db, m: make(map[peer.ID]storedMisquote)},
		reps:       &reputations{m: make(map[peer.ID]cachedReputation)},
		outboxKick: make(chan struct{}, 1),
		ackKick:    make(chan struct{}, 1),
		unsent:     make(map[string]*outboxEntry),
		findCache:  make(map[string]cachedFind),
		quotes:     make(map[string]SignedQuote),
	}
}
