package market

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/escrow"
)

// The outbox makes sure every settle a buyer decided (by hand or by its
// escrow timers) reaches the seller: it resends until the seller has it.
// A refund must reach the seller within its settle grace, or the seller's
// own timer releases the hold on its side.

func (m *Market) kickOutbox() {
	select {
	case m.outboxKick <- struct{}{}:
	default:
	}
}

func (m *Market) outboxLoop() {
	defer m.wg.Done()
	t := time.NewTicker(m.cfg.outboxInterval)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
		case <-m.outboxKick:
		}
		m.flushOutbox(m.ctx)
	}
}

// queueSettle remembers that jobID's settle has not reached seller yet.
func (m *Market) queueSettle(jobID string, seller peer.ID) {
	m.outboxMu.Lock()
	m.unsent[jobID] = seller
	m.outboxMu.Unlock()
	m.kickOutbox()
}

// loadOutbox queues every bought job whose settle the seller has not
// acknowledged, after a restart.
func (m *Market) loadOutbox() {
	recs, err := m.jobs.list(RoleBuyer)
	if err != nil {
		m.log.Warn("load settle outbox", "err", err)
		return
	}
	m.outboxMu.Lock()
	defer m.outboxMu.Unlock()
	for _, r := range recs {
		if !r.SettleSent {
			m.unsent[r.JobID] = r.Seller
		}
	}
}

// SettleDecided is called with every escrow record that reached a final
// state. The buyer's timer decisions (deadline refunds, window releases)
// go to the outbox; the hire sends its own decisions itself.
func (m *Market) SettleDecided(r escrow.Record) {
	if r.Role == escrow.RoleBuyer && (r.Reason == escrow.ReasonDeadline || r.Reason == escrow.ReasonWindow) {
		m.queueSettle(r.JobID, r.Seller)
	}
}

// flushOutbox sends the settle of every queued job that is final.
func (m *Market) flushOutbox(ctx context.Context) {
	m.outboxMu.Lock()
	queued := make(map[string]peer.ID, len(m.unsent))
	for id, p := range m.unsent {
		queued[id] = p
	}
	m.outboxMu.Unlock()
	for jobID, seller := range queued {
		if ctx.Err() != nil {
			return
		}
		er, err := m.escrow.GetRole(ctx, jobID, escrow.RoleBuyer)
		if errors.Is(err, escrow.ErrNotFound) {
			m.settleAcked(jobID)
			continue
		}
		if err != nil || !er.State.Final() || er.Settle == nil {
			continue // not decided yet: the timers will
		}
		m.sendSettleOnce(ctx, peer.AddrInfo{ID: seller, Addrs: m.host.Peerstore().Addrs(seller)}, er.Settle)
	}
}

// settleAcked records that the seller has jobID's settle.
func (m *Market) settleAcked(jobID string) {
	m.outboxMu.Lock()
	delete(m.unsent, jobID)
	m.outboxMu.Unlock()
	_ = m.jobs.update(RoleBuyer, jobID, func(r *JobRecord) { r.SettleSent = true })
}

func (m *Market) sendSettleOnce(ctx context.Context, seller peer.AddrInfo, st *escrow.Settle) {
	body, err := st.MarshalJSON()
	if err != nil {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	_, _, err = m.client.do(sctx, seller, "POST", "/jobs/"+st.JobID+"/settle", bytes.NewReader(body), maxListingSize, nil)
	if settleDelivered(err) {
		m.settleAcked(st.JobID)
	}
}
