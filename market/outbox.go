package market

import (
	"bytes"
	"context"
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

// flushOutbox sends the settle of every final buyer job the seller has not
// acknowledged yet.
func (m *Market) flushOutbox(ctx context.Context) {
	recs, err := m.jobs.list(RoleBuyer)
	if err != nil {
		return
	}
	for _, r := range recs {
		if r.SettleSent || ctx.Err() != nil {
			continue
		}
		er, err := m.escrow.GetRole(ctx, r.JobID, escrow.RoleBuyer)
		if err != nil || !er.State.Final() || er.Settle == nil {
			continue
		}
		m.sendSettleOnce(ctx, peer.AddrInfo{ID: r.Seller, Addrs: m.host.Peerstore().Addrs(r.Seller)}, er.Settle)
	}
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
		_ = m.jobs.update(RoleBuyer, st.JobID, func(r *JobRecord) { r.SettleSent = true })
	}
}
