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
	m.flushOutbox(m.ctx) // what a restart found pending goes out at once
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
	if _, ok := m.unsent[jobID]; !ok {
		m.unsent[jobID] = &outboxEntry{seller: seller}
	}
	m.outboxMu.Unlock()
	m.kickOutbox()
}

// loadOutbox queues every bought job whose settle the seller has not
// acknowledged, after a restart.
func (m *Market) loadOutbox() {
	unsent, err := unsentSettles(m.jobs.db)
	if err != nil {
		m.log.Warn("load settle outbox", "err", err)
		return
	}
	m.outboxMu.Lock()
	defer m.outboxMu.Unlock()
	for jobID, seller := range unsent {
		m.unsent[jobID] = &outboxEntry{seller: seller}
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
func (m *Market) followEscrow(r escrow.Record) {
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
func (m *Market) flushOutbox(ctx context.Context) {
	now := time.Now()
	m.outboxMu.Lock()
	due := make(map[string]peer.ID)
	for id, e := range m.unsent {
		if !e.next.After(now) {
			due[id] = e.seller
		}
	}
	m.outboxMu.Unlock()
	for jobID, seller := range due {
		if ctx.Err() != nil {
			return
		}
		er, err := m.escrow.GetRole(ctx, jobID, escrow.RoleBuyer)
		if errors.Is(err, escrow.ErrNotFound) {
			m.settleAcked(jobID)
			continue
		}
		if err != nil || !er.State.Final() || er.Settle == nil {
			m.backOff(jobID) // not decided yet: the timers will
			continue
		}
		if !m.sendSettleOnce(ctx, m.addrsOf(seller), er.Settle) {
			m.backOff(jobID)
		}
	}
}

// backOff doubles the wait before jobID's settle is tried again.
func (m *Market) backOff(jobID string) {
	m.outboxMu.Lock()
	defer m.outboxMu.Unlock()
	e, ok := m.unsent[jobID]
	if !ok {
		return
	}
	wait := m.cfg.outboxInterval << min(e.attempts, 16)
	e.attempts++
	e.next = time.Now().Add(min(wait, maxOutboxBackoff))
}

// settleAcked records that the seller has jobID's settle.
func (m *Market) settleAcked(jobID string) {
	m.outboxMu.Lock()
	delete(m.unsent, jobID)
	m.outboxMu.Unlock()
	m.updateJob(RoleBuyer, jobID, func(r *JobRecord) { r.SettleSent = true })
}

// sendSettleOnce sends one settle and reports whether the seller has it.
// A seller that does not answer is looked up again, for the next try.
func (m *Market) sendSettleOnce(ctx context.Context, seller peer.AddrInfo, st *escrow.Settle) bool {
	body, err := st.MarshalJSON()
	if err != nil {
		return false
	}
	sctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	_, _, err = m.client.do(sctx, seller, "POST", "/jobs/"+st.JobID+"/settle", bytes.NewReader(body), maxListingSize, nil)
	if settleDelivered(err) {
		m.settleAcked(st.JobID)
		return true
	}
	var se *StatusError
	if !errors.As(err, &se) {
		m.resolve(ctx, seller) // refreshes the peerstore for the next try
	}
	m.log.Debug("settle not delivered yet", "job", st.JobID, "remote_peer", seller.ID, "err", err)
	return false
}
