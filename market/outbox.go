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
// It sends what is pending at start-up at once, then backs off
// exponentially per job, from the outbox interval up to maxOutboxBackoff,
// and never gives up: the buyer's decision takes precedence over the
// seller's timers (see the escrow package doc), so a refund that arrives
// late still reverses a provisional release.

// maxOutboxBackoff caps the wait between two tries of one settle.
const maxOutboxBackoff = 5 * time.Minute

// outboxEntry is a settle the seller has not acknowledged yet.
type outboxEntry struct {
	seller   peer.ID
	attempts int
	next     time.Time // not before
}

func (b *Buyer) kickOutbox() {
	select {
	case b.outboxKick <- struct{}{}:
	default:
	}
}

func (b *Buyer) outboxLoop() {
	defer b.wg.Done()
	t := time.NewTicker(b.cfg.outboxInterval)
	defer t.Stop()
	b.flushOutbox(b.ctx) // what a restart found pending goes out at once
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-t.C:
		case <-b.outboxKick:
		}
		b.flushOutbox(b.ctx)
	}
}

// sendSettle is the one way a settle goes out: it is queued in the outbox
// (due after one outbox interval) and its first try is sent at once; if
// the seller does not acknowledge it, the outbox's backoff retries it.
// The job record's settle_sent stays false until the seller acknowledges,
// so a restart queues it again (loadOutbox).
func (b *Buyer) sendSettle(ctx context.Context, seller peer.AddrInfo, st *escrow.Settle) {
	if st == nil {
		return
	}
	b.outboxMu.Lock()
	if _, ok := b.unsent[st.JobID]; !ok {
		b.unsent[st.JobID] = &outboxEntry{seller: seller.ID, next: time.Now().Add(b.cfg.outboxInterval)}
	}
	b.outboxMu.Unlock()
	if !b.sendSettleOnce(ctx, seller, st) {
		b.backOff(st.JobID)
	}
}

// queueSettle remembers that jobID's settle has not reached seller yet.
func (b *Buyer) queueSettle(jobID string, seller peer.ID) {
	b.outboxMu.Lock()
	if _, ok := b.unsent[jobID]; !ok {
		b.unsent[jobID] = &outboxEntry{seller: seller}
	}
	b.outboxMu.Unlock()
	b.kickOutbox()
}

// loadOutbox queues every bought job whose settle the seller has not
// acknowledged, after a restart.
func (b *Buyer) loadOutbox() {
	unsent, err := unsentSettles(b.jobs.db)
	if err != nil {
		b.log.Warn("load settle outbox", "err", err)
		return
	}
	b.outboxMu.Lock()
	defer b.outboxMu.Unlock()
	for jobID, seller := range unsent {
		b.unsent[jobID] = &outboxEntry{seller: seller}
	}
}

// SettleDecided is called with every escrow record that reached a final
// state. The buyer's timer decisions (deadline refunds, window releases)
// go to the outbox; the hire sends its own decisions itself.
// The job record follows the escrow, so none is left "running" when a
// timer settled the job while no hire followed it.
func (m *Market) SettleDecided(r escrow.Record) {
	if r.Role == escrow.RoleBuyer && (r.Reason == escrow.ReasonDeadline || r.Reason == escrow.ReasonWindow) {
		m.queueSettle(r.JobID, r.Seller)
	}
	if m.ctx.Err() != nil {
		return // closed: the start-up reconciliation mends the record
	}
	// The hook runs on the escrow's goroutine: do not block it. One loop
	// writes the records, however many timers fire at once.
	m.decidedMu.Lock()
	m.decided = append(m.decided, r)
	m.decidedMu.Unlock()
	select {
	case m.decidedKick <- struct{}{}:
	default:
	}
}

// decidedLoop brings the job records of timer decisions in line with the
// escrow (SettleDecided), until the market closes.
func (m *Market) decidedLoop() {
	defer m.wg.Done()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-m.decidedKick:
		}
		m.decidedMu.Lock()
		batch := m.decided
		m.decided = nil
		m.decidedMu.Unlock()
		for _, r := range batch {
			m.followEscrow(r)
		}
	}
}

// followEscrow sets the status of r's job record from r, if the record
// still says running.
func (m *shared) followEscrow(r escrow.Record) {
	if !m.jobs.mayRun(string(r.Role), r.JobID) {
		return // a hire's decision wrote the record already
	}
	status := statusOf(r)
	err := m.jobs.update(string(r.Role), r.JobID, func(j *JobRecord) {
		if j.Status == StatusRunning {
			j.Status, j.UpdatedAt = status, time.Now().UTC()
			if j.Error == "" && status == StatusFailed {
				j.Error = r.Reason
			}
		}
	})
	if err != nil && !errors.Is(err, ErrJobNotFound) {
		m.log.Warn("update job record from the escrow", "job", r.JobID, "role", r.Role, "err", err)
	}
}

// flushOutbox sends the settle of every queued job that is final and due.
func (b *Buyer) flushOutbox(ctx context.Context) {
	now := time.Now()
	b.outboxMu.Lock()
	due := make(map[string]peer.ID)
	for id, e := range b.unsent {
		if !e.next.After(now) {
			due[id] = e.seller
		}
	}
	b.outboxMu.Unlock()
	for jobID, seller := range due {
		if ctx.Err() != nil {
			return
		}
		er, err := b.escrow.GetRole(ctx, jobID, escrow.RoleBuyer)
		if errors.Is(err, escrow.ErrNotFound) {
			b.settleAcked(jobID)
			continue
		}
		if err != nil || !er.State.Final() || er.Settle == nil {
			b.backOff(jobID) // not decided yet: the timers will
			continue
		}
		if !b.sendSettleOnce(ctx, b.addrsOf(seller), er.Settle) {
			b.backOff(jobID)
		}
	}
}

// backOff doubles the wait before jobID's settle is tried again.
func (b *Buyer) backOff(jobID string) {
	b.outboxMu.Lock()
	defer b.outboxMu.Unlock()
	e, ok := b.unsent[jobID]
	if !ok {
		return
	}
	wait := b.cfg.outboxInterval << min(e.attempts, 16)
	e.attempts++
	e.next = time.Now().Add(min(wait, maxOutboxBackoff))
}

// ackDelay is how long ackLoop gathers acknowledged settles before it
// marks their records, in one commit.
const ackDelay = 20 * time.Millisecond

// maxAckBatch caps the records one commit of ackLoop marks.
const maxAckBatch = 256

// settleAcked records that the seller has jobID's settle: the outbox
// forgets it now, its record says so after ackDelay (ackLoop).
func (b *Buyer) settleAcked(jobID string) {
	b.outboxMu.Lock()
	delete(b.unsent, jobID)
	b.acked = append(b.acked, jobID)
	b.outboxMu.Unlock()
	select {
	case b.ackKick <- struct{}{}:
	default:
	}
}

// ackLoop marks the records of acknowledged settles (settle_sent), many in
// one commit: the mark needs no fsync of its own, because a mark lost in
// a crash only sends that settle again after the restart (loadOutbox),
// which the seller acknowledges again. On close it marks what is left.
func (b *Buyer) ackLoop() {
	defer b.wg.Done()
	for {
		select {
		case <-b.ctx.Done():
			b.markAcked()
			return
		case <-b.ackKick:
		}
		select {
		case <-b.ctx.Done():
		case <-time.After(ackDelay):
		}
		b.markAcked()
	}
}

// markAcked sets settle_sent on the records of the settles acknowledged
// since the last call.
func (b *Buyer) markAcked() {
	b.outboxMu.Lock()
	ids := b.acked
	b.acked = nil
	b.outboxMu.Unlock()
	for len(ids) > 0 {
		n := min(len(ids), maxAckBatch) // one Badger transaction each
		if err := b.jobs.updateAll(RoleBuyer, ids[:n], func(r *JobRecord) { r.SettleSent = true }); err != nil {
			b.log.Warn("mark acknowledged settles", "jobs", n, "err", err)
		}
		ids = ids[n:]
	}
}

// sendSettleOnce sends one settle and reports whether the seller has it.
// A seller that does not answer is looked up again, for the next try.
func (b *Buyer) sendSettleOnce(ctx context.Context, seller peer.AddrInfo, st *escrow.Settle) bool {
	body, err := st.MarshalJSON()
	if err != nil {
		return false
	}
	sctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	_, _, err = b.client.do(sctx, seller, "POST", "/jobs/"+st.JobID+"/settle", bytes.NewReader(body), maxListingSize, nil)
	if settleDelivered(err) {
		b.settleAcked(st.JobID)
		return true
	}
	var se *StatusError
	if !errors.As(err, &se) {
		b.resolve(ctx, seller) // refreshes the peerstore for the next try
	}
	b.log.Debug("settle not delivered yet", "job", st.JobID, "remote_peer", seller.ID, "err", err)
	return false
}
