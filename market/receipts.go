package market

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/kv"
	"github.com/swarmwage/swarmwage/reputation"
	"github.com/swarmwage/swarmwage/verify"
)

// Receipts as reputation: a seller serves the signed evidence of the jobs
// it sold (GET /receipts); a buyer checks a sample and scores the seller
// (package reputation); find shows the score and ranking uses it after the
// buyer's own experience.

const (
	// receiptPage is how many receipts GET /receipts returns by default.
	receiptPage = 50
	// maxReceiptsResponse caps the GET /receipts answer a buyer reads
	// (receipts without payloads are about 2 KB each).
	maxReceiptsResponse = 1 << 20
	// reputationSample is how many receipts a buyer checks per seller.
	reputationSample = 100
	// reputationTTL is how long a seller's score is reused.
	reputationTTL = 10 * time.Minute
	// reputationTimeout bounds fetching one seller's receipts, so a slow
	// seller does not hold up a search (its reputation is then unknown).
	reputationTimeout = 2 * time.Second
	// paymentCheckTimeout bounds checking the sample's payments on the
	// rail's chain (cached per transaction, so mostly the first time).
	paymentCheckTimeout = 5 * time.Second
	// unpaidTTL is how long a score with unpaid releases is reused: their
	// payments may show soon (a redeem batch, the confirmation depth, a
	// chain that was down).
	unpaidTTL = 30 * time.Second
)

// ReceiptsResponse is the body of GET /receipts.
type ReceiptsResponse struct {
	Seller   peer.ID          `json:"seller"`
	Receipts []escrow.Receipt `json:"receipts"`
	// Next is the cursor of the next page (?after=), "" on the last.
	Next string `json:"next,omitempty"`
}

// handleReceipts serves this seller's receipts: paged (?limit, ?after),
// filtered by ?capability and by settle time (?since, ?until, RFC 3339).
// Inputs and outputs come with ?payloads=1 only if the seller publishes
// them ([market] publish_payloads); hashes are always there.
func (s *seller) handleReceipts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := escrow.ReceiptFilter{Capability: q.Get("capability"), After: q.Get("after"), Limit: receiptPage}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 200 {
			writeError(w, http.StatusBadRequest, "limit: want 1 to 200")
			return
		}
		f.Limit = n
	}
	for _, t := range []struct {
		key string
		dst *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if v := q.Get(t.key); v != "" {
			at, err := time.Parse(time.RFC3339, v)
			if err != nil {
				writeError(w, http.StatusBadRequest, t.key+": want an RFC 3339 time")
				return
			}
			*t.dst = at
		}
	}
	f.Payloads = s.cfg.publishPayloads && q.Get("payloads") == "1"
	rs, next, err := s.escrow.Receipts(r.Context(), f)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot read receipts")
		return
	}
	if rs == nil {
		rs = []escrow.Receipt{}
	}
	writeJSON(w, http.StatusOK, ReceiptsResponse{Seller: s.host.ID(), Receipts: rs, Next: next})
}

// reputations caches sellers' scores.
type reputations struct {
	mu sync.Mutex
	m  map[peer.ID]cachedReputation
}

type cachedReputation struct {
	s  reputation.Summary
	at time.Time
}

func (c cachedReputation) ttl() time.Duration {
	if c.s.Unpaid > 0 {
		return unpaidTTL
	}
	return reputationTTL
}

// reputationOf checks a sample of seller's receipts and scores it; nil if
// the seller could not be asked (an older seller, or a slow one).
func (m *Buyer) reputationOf(ctx context.Context, seller peer.AddrInfo) *reputation.Summary {
	m.reps.mu.Lock()
	c, ok := m.reps.m[seller.ID]
	m.reps.mu.Unlock()
	if ok && m.cfg.now().Sub(c.at) < c.ttl() {
		return &c.s
	}
	fctx, cancel := context.WithTimeout(ctx, reputationTimeout)
	defer cancel()
	var resp struct {
		Receipts []json.RawMessage `json:"receipts"`
	}
	_, _, err := m.client.do(fctx, seller, http.MethodGet, "/receipts?limit="+strconv.Itoa(reputationSample), nil, maxReceiptsResponse, &resp)
	if err != nil {
		m.log.Debug("fetch receipts", "remote_peer", seller.ID, "err", err)
		return nil
	}
	raws := make([][]byte, len(resp.Receipts))
	for i, r := range resp.Receipts {
		raws[i] = r
	}
	// On a rail, a release counts as paid only if this node's own rail
	// shows the money moved (package reputation's threat model).
	pctx, cancel := context.WithTimeout(ctx, paymentCheckTimeout)
	defer cancel()
	s := reputation.SummarizeWire(pctx, seller.ID, raws, m.knows, m.escrow.CheckPayment)
	m.reps.mu.Lock()
	if len(m.reps.m) > maxLimiters {
		m.reps.m = make(map[peer.ID]cachedReputation)
	}
	m.reps.m[seller.ID] = cachedReputation{s: s, at: m.cfg.now()}
	m.reps.mu.Unlock()
	return &s
}

// knows reports whether this node has traded with p: bought from it or
// sold to it. Such buyers' receipts count fully in another seller's score.
func (m *shared) knows(p peer.ID) bool {
	if p == m.host.ID() {
		return true
	}
	var found bool
	_ = m.jobs.db.View(func(txn kv.Reader) error {
		_, err := txn.Get(counterpartyKey(p))
		found = err == nil
		return nil
	})
	return found
}

// rememberCounterparty records that this node traded with p. A
// counterparty written since the start is not looked up again: a hire
// with one costs no transaction.
func (m *shared) rememberCounterparty(p peer.ID) {
	m.tradedMu.Lock()
	_, known := m.traded[p]
	if !known {
		if m.traded == nil || len(m.traded) >= maxTraded {
			m.traded = make(map[peer.ID]struct{})
		}
	}
	m.tradedMu.Unlock()
	if known {
		return
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		// Set once: a counterparty known from before the start commits
		// nothing (an Update without writes costs no sync).
		err := m.jobs.db.Update(func(txn kv.Txn) error {
			if _, err := txn.Get(counterpartyKey(p)); err == nil {
				return nil
			}
			return txn.Set(counterpartyKey(p), []byte{1})
		})
		if err != nil {
			m.log.Warn("remember counterparty", "err", err)
			return
		}
		m.tradedMu.Lock()
		m.traded[p] = struct{}{}
		m.tradedMu.Unlock()
	}()
}

// maxTraded bounds the counterparties kept in memory; past it the set
// starts afresh (a lookup is cheap to repeat).
const maxTraded = 4096

// checkRefund runs on a seller after a buyer refunded a delivered job of a
// standard capability: it verifies the stored output against the stored
// input itself. If the capability's verifier accepts it, the refund is
// shown false: the buyer is remembered, and with [market]
// refuse_false_refunders its quotes are refused from then on.
func (m *seller) checkRefund(ctx context.Context, jobID string) {
	rec, err := m.escrow.GetRole(ctx, jobID, escrow.RoleSeller)
	if err != nil || rec.State != escrow.StateDisputed {
		return
	}
	in, err1 := m.escrow.Payload(ctx, escrow.RoleSeller, jobID, escrow.PayloadInput)
	out, err2 := m.escrow.Payload(ctx, escrow.RoleSeller, jobID, escrow.PayloadOutput)
	if err1 != nil || err2 != nil {
		return
	}
	rep, err := verify.Verify(ctx, rec.Capability, in, out)
	if err != nil || !rep.Passed {
		return // no standard verifier, or the buyer was right
	}
	m.log.Info("a buyer refunded output the verifier accepts", "job", jobID, "remote_peer", rec.Buyer, "evidence", "swarmwage escrow evidence "+jobID)
	if err := m.jobs.db.Update(func(txn kv.Txn) error { return txn.Set(falseRefundKey(rec.Buyer, jobID), []byte{1}) }); err != nil {
		m.log.Warn("record false refund", "err", err)
	}
}

// falseRefunder returns a job that shows buyer refunded valid output, or "".
func (m *seller) falseRefunder(buyer peer.ID) string {
	var job string
	_ = m.jobs.db.View(func(txn kv.Reader) error {
		prefix := falseRefundPrefix(buyer)
		return txn.Keys(prefix, func(k []byte) error {
			if id, err := keyEncoding.DecodeString(string(k[len(prefix):])); err == nil {
				job = string(id)
				return kv.ErrStop
			}
			return nil
		})
	})
	return job
}
