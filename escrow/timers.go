package escrow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/swarmwage/swarmwage/internal/failpoint"
)

// runTimers fires due timers every interval until ctx or the Escrow is done.
func (e *Escrow) runTimers(ctx context.Context) {
	defer e.wg.Done()
	t := time.NewTicker(e.cfg.timerInterval)
	defer t.Stop()
	for {
		if n, err := e.FireDue(e.ctx); err != nil && !errors.Is(err, ErrClosed) && e.ctx.Err() == nil {
			e.log.Warn("fire escrow timers", "fired", n, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-e.ctx.Done():
			return
		case <-t.C:
		}
	}
}

type dueJob struct {
	key   []byte
	role  Role
	jobID string
}

// FireDue settles every job whose timer is due at the clock's now and
// returns how many it settled. Buyer side: locked past the deadline ->
// refunded (reason ReasonDeadline, signed refund); delivered past the
// verification window -> released (ReasonWindow, signed release). Seller
// side, after the settle grace: locked past the deadline -> refunded;
// delivered past the window -> released and credited. Start calls it every
// timer interval; tests call it directly with a fake clock. An error on one
// job is logged and the others still fire; the first error is returned.
func (e *Escrow) FireDue(ctx context.Context) (int, error) {
	if e.closed.Load() {
		return 0, ErrClosed
	}
	now := e.now()
	fired := 0
	var firstErr error
	var after []byte
	for {
		batch, err := e.dueBatch(ctx, now, after)
		if err != nil {
			return fired, err
		}
		for _, j := range batch {
			ok, err := e.fire(ctx, j, now)
			if err != nil {
				e.log.Warn("escrow timer", "job", j.jobID, "role", j.role, "err", err)
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			if ok {
				fired++
			}
		}
		if len(batch) < timerBatch {
			return fired, firstErr
		}
		after = batch[len(batch)-1].key
	}
}

// dueBatch reads up to timerBatch timer keys due at now, after the key after.
func (e *Escrow) dueBatch(ctx context.Context, now time.Time, after []byte) ([]dueJob, error) {
	var out []dueJob
	err := e.view(ctx, func(txn *tx) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = []byte(duePrefix)
		it := txn.txn.NewIterator(opts)
		defer it.Close()
		start := []byte(duePrefix)
		if after != nil {
			start = append(append([]byte{}, after...), 0)
		}
		for it.Seek(start); it.ValidForPrefix(opts.Prefix) && len(out) < timerBatch; it.Next() {
			k := it.Item().KeyCopy(nil)
			at, role, id, err := parseDueKey(k)
			if err != nil {
				e.log.Warn("skip malformed timer key", "key", fmt.Sprintf("%q", k), "err", err)
				continue
			}
			if at.After(now) {
				break
			}
			out = append(out, dueJob{key: k, role: role, jobID: id})
		}
		return nil
	})
	return out, err
}

// fire applies the timer of one job if it is still due, and reports whether
// it changed the job.
func (e *Escrow) fire(ctx context.Context, j dueJob, now time.Time) (bool, error) {
	failpoint.Inject("escrow/before-fire")
	if j.role == RoleBuyer {
		return e.fireBuyer(ctx, j, now)
	}
	return e.fireSeller(ctx, j, now)
}

func (e *Escrow) fireBuyer(ctx context.Context, j dueJob, now time.Time) (bool, error) {
	var rec Record
	due := false
	err := e.view(ctx, func(txn *tx) error {
		r, err := loadRecord(txn, RoleBuyer, j.jobID)
		if err != nil {
			return err
		}
		if due = !r.State.Final() && !r.DueAt.After(now); due {
			rec, err = withEvidence(txn, r)
		}
		return err
	})
	if err != nil || !due {
		return false, e.dropStaleTimer(ctx, j, err)
	}
	if rec.State == StateDelivered && !rec.Accepted {
		return false, e.askUndecided(ctx, rec, now)
	}
	var s *Settle
	if rec.State == StateLocked {
		s, err = e.settle(ctx, j.jobID, DecisionRefund, ReasonDeadline, nil, StateLocked)
	} else {
		s, err = e.settle(ctx, j.jobID, DecisionRelease, ReasonWindow, nil, StateDelivered)
	}
	if err != nil || s == nil {
		return false, err
	}
	e.log.Info("escrow timer settled", "job", j.jobID, "role", RoleBuyer, "decision", s.Decision, "reason", s.Reason)
	return true, nil
}

// askUndecided hands a delivery nobody verified to the undecided hook and
// moves its timer a retry interval on, so that it is asked again if the
// hook cannot decide now. Nothing is paid either way.
func (e *Escrow) askUndecided(ctx context.Context, rec Record, now time.Time) error {
	err := e.update(ctx, func(txn *tx) error {
		prev, err := loadRecord(txn, RoleBuyer, rec.JobID)
		if err != nil || prev.State != StateDelivered || prev.Accepted {
			return err
		}
		next := *prev
		next.DueAt = now.Add(undecidedRetry)
		return saveRecord(txn, prev, &next)
	})
	if err != nil {
		return err
	}
	if e.cfg.undecided == nil {
		e.log.Warn("delivery never verified: not releasing it; verify it and release or refund by hand", "job", rec.JobID)
		return nil
	}
	e.cfg.undecided(ctx, rec)
	return nil
}

func (e *Escrow) fireSeller(ctx context.Context, j dueJob, now time.Time) (bool, error) {
	changed := false
	var reason string
	err := e.update(ctx, func(txn *tx) error {
		changed = false
		prev, err := loadRecord(txn, RoleSeller, j.jobID)
		if errors.Is(err, ErrNotFound) {
			return txn.delete(j.key)
		}
		if err != nil {
			return err
		}
		if !prev.timed() || prev.DueAt.After(now) || string(dueKey(prev.DueAt, prev.Role, prev.JobID)) != string(j.key) {
			return txn.delete(j.key) // stale index entry
		}
		rec := *prev
		rec.UpdatedAt = now
		switch {
		case prev.State == StateLocked:
			rec.State, rec.Reason, rec.SettledAt = StateRefunded, ReasonDeadline, now
		case prev.State == StateDelivered:
			// Provisional: the buyer may never have had the delivery, and
			// its decision, when it comes, takes precedence.
			if err := bookPending(txn, prev.Amount, 0); err != nil {
				return err
			}
			rec.State, rec.Reason, rec.SettledAt = StateReleased, ReasonWindow, now
			rec.Provisional, rec.DueAt = true, now.Add(e.cfg.finality)
		default: // a provisional release past its finality horizon
			if err := bookPending(txn, -prev.Amount, prev.Amount); err != nil {
				return err
			}
			rec.Provisional, rec.Reason = false, ReasonFinality
		}
		reason = rec.Reason
		changed = true
		return saveRecord(txn, prev, &rec)
	})
	if err != nil || !changed {
		return false, err
	}
	e.log.Info("escrow timer settled", "job", j.jobID, "role", RoleSeller, "reason", reason)
	e.notify(ctx, RoleSeller, j.jobID)
	return true, nil
}

// dropStaleTimer deletes a timer key whose job is gone, final or not yet due
// under that key. It is never expected; it keeps a broken index entry from
// firing forever.
func (e *Escrow) dropStaleTimer(ctx context.Context, j dueJob, readErr error) error {
	if readErr != nil && !errors.Is(readErr, ErrNotFound) {
		return readErr
	}
	return e.update(ctx, func(txn *tx) error {
		rec, err := loadRecord(txn, j.role, j.jobID)
		if err == nil && rec.timed() && string(dueKey(rec.DueAt, rec.Role, rec.JobID)) == string(j.key) {
			return nil // the key is current, just not due: keep it
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return txn.delete(j.key)
	})
}
