package escrow

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// AcceptLock records a buyer's signed lock for a job this node sells:
// the seller-side record starts locked. It checks the buyer's signature
// (ErrForged), that the lock names this node as seller (ErrForged), that
// the amount is positive (ErrWrongAmount) and that the deadline is ahead
// (ErrBadState). The same lock again is a no-op; another lock with the same
// job ID fails with ErrJobIDReused. Whether the amount matches the quote is
// the market's check.
func (e *Escrow) AcceptLock(ctx context.Context, l *Lock) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if l == nil {
		return fmt.Errorf("accept lock: %w: nil lock", ErrInvalidMessage)
	}
	if err := e.checkLock(l); err != nil {
		return fmt.Errorf("accept lock %s: %w", truncate(l.JobID), err)
	}
	now := e.now()
	err := e.update(ctx, func(txn *tx) error {
		_, err := loadRecord(txn, RoleSeller, l.JobID)
		if err == nil {
			stored, err := loadLock(txn, l.JobID, RoleSeller)
			if err != nil {
				return err
			}
			if !stored.equal(l) {
				return fmt.Errorf("%w: another lock with this job ID was accepted", ErrJobIDReused)
			}
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		if !now.Before(l.Deadline) {
			return fmt.Errorf("%w: the lock's deadline %s has passed", ErrBadState, wireTime(l.Deadline))
		}
		rec := &storedRecord{
			JobID: l.JobID, Role: RoleSeller, State: StateLocked, Amount: l.Amount,
			Capability: l.Capability, QuoteID: l.QuoteID, Buyer: l.Buyer, Seller: l.Seller,
			Deadline: l.Deadline, WindowMS: l.Window.Milliseconds(),
			CreatedAt: now, UpdatedAt: now, DueAt: l.Deadline.Add(e.cfg.settleGrace),
		}
		if err := putReceipt(txn, l.JobID, RoleSeller, receiptLock, l); err != nil {
			return err
		}
		return saveRecord(txn, nil, rec)
	})
	if err != nil {
		return fmt.Errorf("accept lock %s: %w", l.JobID, err)
	}
	return nil
}

// checkLock checks a lock's fields, signature and addressee.
func (e *Escrow) checkLock(l *Lock) error {
	if err := checkJobID(l.JobID); err != nil {
		return err
	}
	if err := checkText("quote_id", l.QuoteID); err != nil {
		return err
	}
	if err := checkText("capability", l.Capability); err != nil {
		return err
	}
	if l.Window <= 0 || l.Window > maxWindow || l.Window%time.Millisecond != 0 {
		return fmt.Errorf("%w: verification window %s: want whole milliseconds, 1ms to %s", ErrInvalidMessage, l.Window, maxWindow)
	}
	if err := l.Verify(); err != nil {
		return err
	}
	if l.Seller != e.self {
		return fmt.Errorf("%w: the lock is for seller %s, this node is %s", ErrForged, l.Seller, e.self)
	}
	if l.Amount <= 0 {
		return fmt.Errorf("%w: %s: must be positive", ErrWrongAmount, FormatAmount(l.Amount))
	}
	return nil
}

// Deliver records that this node delivered output with sha256 outputHash
// (lowercase hex) for an accepted lock: locked -> delivered, and returns the
// signed delivery to send to the buyer. Past the deadline it fails with
// ErrBadState. Delivering the same hash again returns the stored delivery;
// another hash fails with ErrBadState, a settled job with ErrAlreadySettled.
func (e *Escrow) Deliver(ctx context.Context, jobID, outputHash string) (*Delivery, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	if err := checkOutputHash(outputHash); err != nil {
		return nil, fmt.Errorf("deliver job %s: %w", truncate(jobID), err)
	}
	now := e.now()
	var out *Delivery
	err := e.update(ctx, func(txn *tx) error {
		out = nil
		prev, err := loadRecord(txn, RoleSeller, jobID)
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("%w: no accepted lock for this job", ErrUnknownJob)
		}
		if err != nil {
			return err
		}
		if prev.State != StateLocked {
			stored, err := loadDelivery(txn, jobID, RoleSeller)
			if err == nil && stored.OutputHash == outputHash {
				out = stored
				return nil
			}
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			if prev.State.Final() {
				return fmt.Errorf("%w: it is %s", ErrAlreadySettled, prev.State)
			}
			return fmt.Errorf("%w: already delivered with another output hash", ErrBadState)
		}
		if now.After(prev.Deadline) {
			return fmt.Errorf("%w: the deadline %s has passed", ErrBadState, wireTime(prev.Deadline))
		}
		d := &Delivery{JobID: jobID, OutputHash: outputHash, Seller: e.self, DeliveredAt: msgTime(now)}
		if err := d.sign(e.key); err != nil {
			return err
		}
		rec := *prev
		rec.State = StateDelivered
		rec.DeliveredAt = now
		rec.UpdatedAt = now
		rec.OutputHash = outputHash
		rec.DueAt = sellerWindowEnd(now, prev).Add(e.cfg.settleGrace)
		if err := putReceipt(txn, jobID, RoleSeller, receiptDelivery, d); err != nil {
			return err
		}
		out = d
		return saveRecord(txn, prev, &rec)
	})
	if err != nil {
		return nil, fmt.Errorf("deliver job %s: %w", truncate(jobID), err)
	}
	return out, nil
}

// ApplySettle applies the buyer's signed decision to a job this node sold.
// Release: locked or delivered -> released, Earned += Amount. Refund: locked
// -> refunded, delivered -> disputed (the signed delivery and refund are
// both kept), failed stays failed. It checks the signature and that the
// job's buyer signed it (ErrForged), that the job is known (ErrUnknownJob)
// and that Amount equals the lock's (ErrWrongAmount). The same decision
// again is a no-op returning nil (and adds the settle as evidence if a timer
// had settled the job); the opposite decision on a settled job fails with
// ErrAlreadySettled.
func (e *Escrow) ApplySettle(ctx context.Context, s *Settle) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if s == nil {
		return fmt.Errorf("apply settle: %w: nil settle", ErrInvalidMessage)
	}
	if err := checkJobID(s.JobID); err != nil {
		return fmt.Errorf("apply settle: %w", err)
	}
	if s.Decision != DecisionRelease && s.Decision != DecisionRefund {
		return fmt.Errorf("apply settle %s: %w: decision %q", s.JobID, ErrInvalidMessage, truncate(s.Decision))
	}
	if err := checkSettleText(s.Reason, s.FailedChecks); err != nil {
		return fmt.Errorf("apply settle %s: %w", s.JobID, err)
	}
	if err := s.Verify(); err != nil {
		return fmt.Errorf("apply settle %s: %w", s.JobID, err)
	}
	now := e.now()
	changed := false
	err := e.update(ctx, func(txn *tx) error {
		changed = false
		prev, err := loadRecord(txn, RoleSeller, s.JobID)
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("%w: no accepted lock for this job", ErrUnknownJob)
		}
		if err != nil {
			return err
		}
		if s.Buyer != prev.Buyer {
			return fmt.Errorf("%w: settle signed by %s, the job's buyer is %s", ErrForged, s.Buyer, prev.Buyer)
		}
		if s.Amount != prev.Amount {
			return fmt.Errorf("%w: settle for %s, the lock is for %s", ErrWrongAmount, FormatAmount(s.Amount), FormatAmount(prev.Amount))
		}
		next, err := settleTarget(prev.State, s.Decision)
		if err != nil {
			return err
		}
		if next == prev.State {
			return keepEvidence(txn, s)
		}
		if s.Decision == DecisionRelease {
			if err := credit(txn, prev.Amount); err != nil {
				return err
			}
		}
		rec := *prev
		rec.State = next
		rec.UpdatedAt = now
		rec.SettledAt = now
		rec.Reason = s.Reason
		rec.FailedChecks = s.FailedChecks
		if err := putReceipt(txn, s.JobID, RoleSeller, receiptSettle, s); err != nil {
			return err
		}
		changed = true
		return saveRecord(txn, prev, &rec)
	})
	if err != nil {
		return fmt.Errorf("apply settle %s: %w", s.JobID, err)
	}
	if changed {
		e.log.Debug("settled", "job", s.JobID, "role", RoleSeller, "decision", s.Decision, "reason", s.Reason)
		e.notify(ctx, RoleSeller, s.JobID)
	}
	return nil
}

// settleTarget is the seller-side state a decision leads to from cur; cur
// itself means nothing changes.
func settleTarget(cur State, decision string) (State, error) {
	if decision == DecisionRelease {
		switch cur {
		case StateLocked, StateDelivered, StateReleased:
			return StateReleased, nil
		}
		return "", fmt.Errorf("%w: release of a job that is %s", ErrAlreadySettled, cur)
	}
	switch cur {
	case StateLocked:
		return StateRefunded, nil
	case StateDelivered:
		return StateDisputed, nil
	case StateRefunded, StateDisputed, StateFailed:
		return cur, nil
	}
	return "", fmt.Errorf("%w: refund of a job that is %s", ErrAlreadySettled, cur)
}

// keepEvidence stores a settle for a job already in the state it leads to,
// unless one is stored: a timer settled the job before the message came.
func keepEvidence(txn *tx, s *Settle) error {
	has, err := hasReceipt(txn, s.JobID, RoleSeller, receiptSettle)
	if err != nil || has {
		return err
	}
	return putReceipt(txn, s.JobID, RoleSeller, receiptSettle, s)
}

// credit adds a sold job's amount to the available and earned balances.
func credit(txn *tx, amount int64) error {
	b, err := loadBalance(txn)
	if err != nil {
		return err
	}
	if amount > math.MaxInt64-(b.Deposited+b.Earned) {
		return fmt.Errorf("%w: the ledger total would overflow", ErrWrongAmount)
	}
	b.Available += amount
	b.Earned += amount
	return saveBalance(txn, b)
}

// FailJob marks a job this node sold as failed here (the handler failed or
// timed out): locked -> failed, final; the buyer refunds. Failing a failed
// job is a no-op; a delivered job fails with ErrBadState, a settled one with
// ErrAlreadySettled.
func (e *Escrow) FailJob(ctx context.Context, jobID, reason string) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if err := checkText("reason", reason); err != nil {
		return fmt.Errorf("fail job %s: %w", truncate(jobID), err)
	}
	now := e.now()
	changed := false
	err := e.update(ctx, func(txn *tx) error {
		changed = false
		prev, err := loadRecord(txn, RoleSeller, jobID)
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("%w: no accepted lock for this job", ErrUnknownJob)
		}
		if err != nil {
			return err
		}
		switch prev.State {
		case StateFailed:
			return nil
		case StateLocked:
		case StateDelivered:
			return fmt.Errorf("%w: the job was delivered", ErrBadState)
		default:
			return fmt.Errorf("%w: it is %s", ErrAlreadySettled, prev.State)
		}
		rec := *prev
		rec.State = StateFailed
		rec.UpdatedAt = now
		rec.SettledAt = now
		rec.Reason = reason
		changed = true
		return saveRecord(txn, prev, &rec)
	})
	if err != nil {
		return fmt.Errorf("fail job %s: %w", truncate(jobID), err)
	}
	if changed {
		e.notify(ctx, RoleSeller, jobID)
	}
	return nil
}

// sellerWindowEnd is when a seller may stop waiting for the buyer's
// decision on a delivery made at deliveredAt: the end of the verification
// window, but never before the deadline. A delivery lost on the way never
// starts the buyer's window; the buyer then refunds at the deadline, and
// the seller must still be waiting for that refund.
func sellerWindowEnd(deliveredAt time.Time, r *storedRecord) time.Time {
	end := deliveredAt.Add(r.window())
	if end.Before(r.Deadline) {
		return r.Deadline
	}
	return end
}
