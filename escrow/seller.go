package escrow

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// AcceptLock records a buyer's signed lock for a job this node sells, with
// the job's input: the seller-side record starts locked. It checks the
// buyer's signature (ErrForged), that the lock names this node as seller
// (ErrForged), that it commits to this input (a version 2 lock whose
// input_hash is the input's sha256, else ErrInvalidMessage), that the
// amount is positive (ErrWrongAmount) and that the deadline is ahead
// (ErrBadState). It reports fresh == true only the first time: a lock is
// accepted once, so the same lock again returns false and nil and changes
// nothing (the caller must not run the job again); another lock with the
// same job ID fails with ErrJobIDReused. Whether the amount matches the
// quote is the market's check.
//
// also is written in the transaction of a fresh acceptance only.
func (e *Escrow) AcceptLock(ctx context.Context, l *Lock, input []byte, also ...Also) (fresh bool, err error) {
	a, fresh, err := e.PrepareAccept(ctx, l, input)
	if err != nil || !fresh {
		return false, err
	}
	defer a.Close()
	return a.Accept(ctx, also...)
}

// Accepting is a buyer's lock this node checked (PrepareAccept) and has not
// written yet. Accept writes it on its own; AcceptDelivered writes it with
// the job's delivery, in one commit, for a job whose handler finished
// before the lock needed to be durable. Close ends it either way.
type Accepting struct {
	e       *Escrow
	lock    *Lock
	input   []byte
	release func() // the rail's reservation of the lock's cover
	closed  sync.Once
	signed  *Delivery // SignDelivery's, for AcceptDelivered
}

// PrepareAccept checks a buyer's lock as AcceptLock does, before anything
// is written: the signature, the addressee, the input, the amount, the
// deadline and, on a rail, the cover (reserved until Close). fresh is false
// with a nil error when this node accepted the same lock before: the
// caller must not run the job again. Another lock with the same job ID
// fails with ErrJobIDReused.
func (e *Escrow) PrepareAccept(ctx context.Context, l *Lock, input []byte) (a *Accepting, fresh bool, err error) {
	if e.closed.Load() {
		return nil, false, ErrClosed
	}
	if l == nil {
		return nil, false, fmt.Errorf("accept lock: %w: nil lock", ErrInvalidMessage)
	}
	if err := e.checkLock(l); err != nil {
		return nil, false, fmt.Errorf("accept lock %s: %w", truncate(l.JobID), err)
	}
	if l.InputHash == "" {
		return nil, false, fmt.Errorf("accept lock %s: %w: a %s lock commits to no input; the buyer must upgrade", l.JobID, ErrInvalidMessage, TypeLockV1)
	}
	if err := e.checkRailLock(l); err != nil {
		return nil, false, fmt.Errorf("accept lock %s: %w", l.JobID, err)
	}
	known := false
	err = e.view(ctx, func(txn *tx) error {
		var err error
		known, err = acceptedBefore(txn, l, input)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("accept lock %s: %w", l.JobID, err)
	}
	if known {
		return nil, false, nil
	}
	now := e.now()
	if !now.Before(l.Deadline) {
		return nil, false, fmt.Errorf("accept lock %s: %w: the lock's deadline %s has passed", l.JobID, ErrBadState, wireTime(l.Deadline))
	}
	a = &Accepting{e: e, lock: l, input: input, release: func() {}}
	if l.Rail != "" {
		release, err := e.checkRailCover(ctx, l)
		if err != nil {
			return nil, false, fmt.Errorf("accept lock %s: %w", l.JobID, err)
		}
		a.release = release
	}
	e.accepting.Add(1)
	e.lastAccept.Store(e.now().UnixNano())
	return a, true, nil
}

// Close ends the rail's reservation of the lock's cover. The lock, once
// written, counts in the rail's open amount by itself.
func (a *Accepting) Close() {
	a.closed.Do(func() {
		a.e.accepting.Add(-1)
		a.release()
	})
}

// Accept writes the checked lock: the seller-side record starts locked,
// with the job's input. fresh is false when the same lock was accepted
// meanwhile (nothing is written). also is written in the transaction of a
// fresh acceptance only.
func (a *Accepting) Accept(ctx context.Context, also ...Also) (fresh bool, err error) {
	e, l := a.e, a.lock
	if e.closed.Load() {
		return false, ErrClosed
	}
	now := e.now()
	err = e.update(ctx, withAlso(func(txn *tx) error {
		var err error
		fresh, err = e.acceptLock(txn, l, a.input, now)
		return err
	}, func() bool { return fresh }, also))
	if err != nil {
		return false, fmt.Errorf("accept lock %s: %w", l.JobID, err)
	}
	return fresh, nil
}

// AcceptDelivered writes the checked lock and the delivery of output for
// it in one transaction, as Accept then Deliver would in two: one commit
// and one fsync. It is for a job whose handler finished before anything
// needed the lock durable; a crash before it returns leaves no trace of
// the job here, and the buyer's deadline refunds it. also is written in
// the same transaction. fresh is false when the same lock was accepted
// meanwhile: nothing is written and the delivery is nil.
//
// A delivery that SignDelivery signed for the same output is the one
// written and returned.
func (a *Accepting) AcceptDelivered(ctx context.Context, output []byte, also ...Also) (d *Delivery, fresh bool, err error) {
	e, l := a.e, a.lock
	if e.closed.Load() {
		return nil, false, ErrClosed
	}
	outputHash := HashHex(output)
	now := e.now()
	signed := a.signed
	if signed != nil && signed.OutputHash == outputHash {
		now = signed.DeliveredAt
	} else {
		signed = nil
	}
	err = e.update(ctx, withAlso(func(txn *tx) error {
		d = nil
		var err error
		if fresh, err = e.acceptLock(txn, l, a.input, now); err != nil || !fresh {
			return err
		}
		d, err = e.deliverSigned(txn, l.JobID, output, outputHash, now, signed)
		return err
	}, func() bool { return fresh }, also))
	if err != nil {
		return nil, false, fmt.Errorf("accept and deliver job %s: %w", truncate(l.JobID), err)
	}
	return d, fresh, nil
}

// SignDelivery signs the delivery of output for the checked lock, dated
// now, without writing anything: AcceptDelivered then writes this very
// delivery. The seller may send it while AcceptDelivered commits, if the
// buyer acts on it only once told that the commit is durable; before then
// a crash may leave the seller no trace of the job.
func (a *Accepting) SignDelivery(output []byte) (*Delivery, error) {
	d, err := a.e.SignDelivery(a.lock.JobID, output)
	if err != nil {
		return nil, err
	}
	a.signed = d
	return d, nil
}

// SignDelivery signs the delivery of output for jobID, dated now, without
// writing anything, for DeliverSigned (a job accepted before) or, through
// Accepting.SignDelivery, AcceptDelivered. The seller may send it while
// that writes it, if the buyer acts on it only once told that the commit
// is durable.
func (e *Escrow) SignDelivery(jobID string, output []byte) (*Delivery, error) {
	if err := checkJobID(jobID); err != nil {
		return nil, fmt.Errorf("sign delivery: %w", err)
	}
	d := &Delivery{JobID: jobID, OutputHash: HashHex(output), Seller: e.self, DeliveredAt: msgTime(e.now())}
	if err := d.sign(e.key); err != nil {
		return nil, err
	}
	return d, nil
}

// acceptedBefore reports whether the seller-side record of l's job holds
// this very lock and input; another lock or input with its job ID fails
// with ErrJobIDReused.
func acceptedBefore(txn *tx, l *Lock, input []byte) (bool, error) {
	_, err := loadRecord(txn, RoleSeller, l.JobID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	stored, err := loadLock(txn, l.JobID, RoleSeller)
	if err != nil {
		return false, err
	}
	if !stored.equal(l) {
		return false, fmt.Errorf("%w: another lock with this job ID was accepted", ErrJobIDReused)
	}
	if HashHex(input) != stored.InputHash {
		return false, fmt.Errorf("%w: the lock was accepted with another input", ErrJobIDReused)
	}
	return true, nil
}

// acceptLock is the change of an acceptance: fresh is false, with nothing
// written, when the record holds the same lock already.
func (e *Escrow) acceptLock(txn *tx, l *Lock, input []byte, now time.Time) (fresh bool, err error) {
	known, err := acceptedBefore(txn, l, input)
	if err != nil || known {
		return false, err
	}
	if !now.Before(l.Deadline) {
		return false, fmt.Errorf("%w: the lock's deadline %s has passed", ErrBadState, wireTime(l.Deadline))
	}
	rec := &storedRecord{
		JobID: l.JobID, Role: RoleSeller, State: StateLocked, Amount: l.Amount,
		Capability: l.Capability, QuoteID: l.QuoteID, Buyer: l.Buyer, Seller: l.Seller,
		Deadline: l.Deadline, WindowMS: l.Window.Milliseconds(), InputHash: l.InputHash,
		CreatedAt: now, UpdatedAt: now, DueAt: l.Deadline.Add(e.cfg.settleGrace),
		Rail: l.Rail, RailCounterparty: l.BuyerAddress, NotBefore: l.NotBefore,
	}
	if err := putPayload(txn, RoleSeller, l.JobID, PayloadInput, input, l.InputHash); err != nil {
		return false, err
	}
	if err := e.putRailRef(txn, RoleSeller, l); err != nil {
		return false, err
	}
	if err := putReceipt(txn, l.JobID, RoleSeller, receiptLock, l); err != nil {
		return false, err
	}
	return true, saveRecord(txn, nil, rec)
}

// checkRailCover has the rail check that a new rail lock is covered, with
// this node's other unsettled locks from the same buyer address counted
// (reserveRail). PrepareAccept calls it only for a lock not accepted
// before. release ends the reservation once the record is stored.
func (e *Escrow) checkRailCover(ctx context.Context, l *Lock) (release func(), err error) {
	open, release, err := e.reserveRail(ctx, RoleSeller, l.BuyerAddress, l.JobID, l.Amount)
	if err != nil {
		return nil, err
	}
	if err := e.cfg.rail.CheckLock(ctx, termsOf(l), l.RailProof, open); err != nil {
		release()
		return nil, err
	}
	return release, nil
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

// Deliver records that this node delivered output for an accepted lock:
// locked -> delivered, the output stored with the signed delivery of its
// sha256 in one transaction, and returns the delivery to send to the buyer.
// A delivery counts only once the buyer has it: until the buyer's decision
// arrives the seller can serve it again (Payload). Past the deadline it
// fails with ErrBadState. Delivering the same output again returns the
// stored delivery; other output fails with ErrBadState, a settled job with
// ErrAlreadySettled.
//
// also is written in the delivery's transaction, also when the same
// output was delivered before.
func (e *Escrow) Deliver(ctx context.Context, jobID string, output []byte, also ...Also) (*Delivery, error) {
	return e.deliverWith(ctx, jobID, output, nil, also)
}

// DeliverSigned is Deliver of the delivery d that SignDelivery signed for
// output: it writes d, dated when it was signed. If the job holds another
// delivery already, even of the same output, it fails with ErrBadState:
// d was sent, and no other may stand for it.
func (e *Escrow) DeliverSigned(ctx context.Context, d *Delivery, output []byte, also ...Also) (*Delivery, error) {
	if d == nil || d.Seller != e.self || d.OutputHash != HashHex(output) {
		return nil, fmt.Errorf("deliver: %w: the delivery is not this node's of this output", ErrInvalidMessage)
	}
	return e.deliverWith(ctx, d.JobID, output, d, also)
}

// deliverWith is Deliver, of signed if not nil.
func (e *Escrow) deliverWith(ctx context.Context, jobID string, output []byte, signed *Delivery, also []Also) (*Delivery, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	outputHash := HashHex(output)
	now := e.now()
	if signed != nil {
		now = signed.DeliveredAt
	}
	var out *Delivery
	err := e.update(ctx, withAlso(func(txn *tx) error {
		var err error
		out, err = e.deliverSigned(txn, jobID, output, outputHash, now, signed)
		return err
	}, func() bool { return out != nil }, also))
	if err != nil {
		return nil, fmt.Errorf("deliver job %s: %w", truncate(jobID), err)
	}
	return out, nil
}

// deliverSigned is the change of a delivery: the stored one when the
// same output was delivered before; signed, if not nil, is the delivery
// to write (signed before, for output and dated now).
func (e *Escrow) deliverSigned(txn *tx, jobID string, output []byte, outputHash string, now time.Time, signed *Delivery) (*Delivery, error) {
	prev, err := loadRecord(txn, RoleSeller, jobID)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: no accepted lock for this job", ErrUnknownJob)
	}
	if err != nil {
		return nil, err
	}
	if prev.State != StateLocked {
		stored, err := loadDelivery(txn, jobID, RoleSeller)
		if err == nil && stored.OutputHash == outputHash && (signed == nil || stored.equal(signed)) {
			return stored, nil
		}
		if err == nil && signed != nil && !prev.State.Final() {
			return nil, fmt.Errorf("%w: already delivered with another signed delivery", ErrBadState)
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		if prev.State.Final() {
			return nil, fmt.Errorf("%w: it is %s", ErrAlreadySettled, prev.State)
		}
		return nil, fmt.Errorf("%w: already delivered with another output hash", ErrBadState)
	}
	if now.After(prev.Deadline) {
		return nil, fmt.Errorf("%w: the deadline %s has passed", ErrBadState, wireTime(prev.Deadline))
	}
	d := signed
	if d == nil {
		d = &Delivery{JobID: jobID, OutputHash: outputHash, Seller: e.self, DeliveredAt: msgTime(now)}
		if err := d.sign(e.key); err != nil {
			return nil, err
		}
	}
	rec := *prev
	rec.State = StateDelivered
	rec.DeliveredAt = now
	rec.UpdatedAt = now
	rec.OutputHash = outputHash
	rec.DueAt = sellerWindowEnd(now, prev).Add(e.cfg.settleGrace)
	if err := putPayload(txn, RoleSeller, jobID, PayloadOutput, output, outputHash); err != nil {
		return nil, err
	}
	if err := putReceipt(txn, jobID, RoleSeller, receiptDelivery, d); err != nil {
		return nil, err
	}
	return d, saveRecord(txn, prev, &rec)
}

// settleCommitWait is how long ApplySettle waits for another change's
// commit to join (config.settleWait; tests and benchmarks set it).
const settleCommitWait = 2 * time.Millisecond

// settleBusyWindow is how recently a lock must have been checked for
// accepting (PrepareAccept) for ApplySettle to expect another soon: a
// seller in a run of hires gets each settle just before the next job.
const settleBusyWindow = 20 * time.Millisecond

// ApplySettle applies the buyer's signed decision to a job this node sold.
// The buyer's decision takes precedence over this node's timers (see the
// package doc). Release: locked or delivered -> released, Earned +=
// Amount; a provisional release becomes final. Refund: locked -> refunded,
// delivered -> disputed (the signed delivery and refund are both kept), a
// provisional release is reversed to disputed (Pending -= Amount), failed
// stays failed. It checks the signature and that the job's buyer signed it
// (ErrForged), that the job is known (ErrUnknownJob) and that Amount equals
// the lock's (ErrWrongAmount). The same decision again is a no-op returning
// nil (and adds the settle as evidence if a timer had settled the job); the
// opposite decision on a final state fails with ErrAlreadySettled.
//
// It is durable when it returns. While a lock is being accepted here
// (PrepareAccept, until Accepting.Close), or one was checked within
// settleBusyWindow, it waits up to settleCommitWait to join that lock's
// commit, or any other change's, instead of costing a sync of its own:
// the buyer's decision is durable already and the buyer waits for nothing
// but this answer. With one hire after another, the settle of one arrives
// just before the next job: alone, its sync would land on that job's
// (the buyer's lock, the seller's acceptance; two nodes' logs may share a
// disk) and hold the seller's next commit behind it. A seller with no
// recent lock commits at once.
func (e *Escrow) ApplySettle(ctx context.Context, s *Settle) error {
	_, err := e.ApplySettleRecord(ctx, s)
	return err
}

// ApplySettleRecord is ApplySettle that also returns the job's record as
// the settle left it, without its evidence (Lock, Delivery and Settle are
// not read back).
func (e *Escrow) ApplySettleRecord(ctx context.Context, s *Settle) (Record, error) {
	if e.closed.Load() {
		return Record{}, ErrClosed
	}
	if s == nil {
		return Record{}, fmt.Errorf("apply settle: %w: nil settle", ErrInvalidMessage)
	}
	if err := checkJobID(s.JobID); err != nil {
		return Record{}, fmt.Errorf("apply settle: %w", err)
	}
	if s.Decision != DecisionRelease && s.Decision != DecisionRefund {
		return Record{}, fmt.Errorf("apply settle %s: %w: decision %q", s.JobID, ErrInvalidMessage, truncate(s.Decision))
	}
	if err := checkSettleText(s.Reason, s.FailedChecks); err != nil {
		return Record{}, fmt.Errorf("apply settle %s: %w", s.JobID, err)
	}
	if err := s.Verify(); err != nil {
		return Record{}, fmt.Errorf("apply settle %s: %w", s.JobID, err)
	}
	if err := e.checkRailSettle(ctx, s); err != nil {
		return Record{}, fmt.Errorf("apply settle %s: %w", s.JobID, err)
	}
	now := e.now()
	changed := false
	var settled Record // what the settle hook gets, from the commit
	var after Record   // what the caller gets
	var wait time.Duration
	if e.accepting.Load() > 0 || now.Sub(time.Unix(0, e.lastAccept.Load())) < settleBusyWindow {
		wait = e.cfg.settleWait
	}
	change := func(txn *tx) error {
		changed = false
		prev, err := loadRecord(txn, RoleSeller, s.JobID)
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("%w: no accepted lock for this job", ErrUnknownJob)
		}
		if err != nil {
			return err
		}
		if s.Rail != prev.Rail {
			return fmt.Errorf("%w: the settle is for rail %q, the job was locked on %q", ErrInvalidMessage, s.Rail, prev.Rail)
		}
		if s.Buyer != prev.Buyer {
			return fmt.Errorf("%w: settle signed by %s, the job's buyer is %s", ErrForged, s.Buyer, prev.Buyer)
		}
		if s.Amount != prev.Amount {
			return fmt.Errorf("%w: settle for %s, the lock is for %s", ErrWrongAmount, FormatAmount(s.Amount), FormatAmount(prev.Amount))
		}
		next, err := settleTarget(prev, s.Decision)
		if err != nil {
			return err
		}
		if next == prev.State && !prev.Provisional {
			after = bareRecord(prev)
			return keepEvidence(txn, s)
		}
		if err := moveSellerMoney(txn, prev, next); err != nil {
			return err
		}
		rec := *prev
		rec.State = next
		rec.Provisional = false
		rec.UpdatedAt = now
		rec.SettledAt = now
		rec.Reason = s.Reason
		rec.FailedChecks = s.FailedChecks
		if err := putReceipt(txn, s.JobID, RoleSeller, receiptSettle, s); err != nil {
			return err
		}
		if err := saveRecord(txn, prev, &rec); err != nil {
			return err
		}
		changed = true
		after = bareRecord(&rec)
		settled = after
		settled.Settle = s
		return nil
	}
	// A settle that will join another change's commit is worked out
	// before it, so that the commit, which the other change waits on,
	// only writes it (prepared). A credits settle reads the job and the
	// balance, which a lock being accepted meanwhile does not change; but
	// with other changes queued already (many hires at once) the balance
	// will have moved by the commit, and the work would be done twice.
	var p *prepared
	if wait > 0 && e.cfg.rail == nil && e.commitIdle() {
		p = e.prepare(ctx, change)
	}
	err := e.updateWithin(ctx, wait, p.apply(change))
	if err != nil {
		return Record{}, fmt.Errorf("apply settle %s: %w", s.JobID, err)
	}
	if changed {
		e.log.Debug("settled", "job", s.JobID, "role", RoleSeller, "decision", s.Decision, "reason", s.Reason)
		e.notifySettled(settled)
	}
	return after, nil
}

// checkRailSettle checks a settle's rail fields against the job's: the
// same rail, and a release carries the rail's release signed by the
// lock's buyer (ErrForged if not).
func (e *Escrow) checkRailSettle(ctx context.Context, s *Settle) error {
	if s.Rail == "" {
		return nil // a credits settle: the transaction checks the job's rail
	}
	var l *Lock
	err := e.view(ctx, func(txn *tx) error {
		r, err := loadRecord(txn, RoleSeller, s.JobID)
		if err != nil {
			return err
		}
		// The record has the lock's rail (AcceptLock copies it); the lock
		// itself, a larger document, is read only for a rail's release.
		switch {
		case s.Rail != r.Rail:
			return fmt.Errorf("%w: the settle is for rail %q, the job was locked on %q", ErrInvalidMessage, s.Rail, r.Rail)
		case r.Rail == "" || s.Decision != DecisionRelease:
			return nil
		}
		l, err = loadLock(txn, s.JobID, RoleSeller)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return nil // the transaction reports the unknown job
	}
	if err != nil || l == nil {
		return err
	}
	switch {
	case len(s.RailProof) == 0:
		return fmt.Errorf("%w: a release on rail %s needs the rail's signed release", ErrInvalidMessage, l.Rail)
	case e.cfg.rail == nil || e.cfg.rail.Name() != l.Rail:
		return fmt.Errorf("%w: the job is on rail %s, this node settles on %s", ErrBadState, l.Rail, e.RailName())
	}
	if err := e.cfg.rail.CheckRelease(ctx, termsOf(l), l.RailProof, s.RailProof); err != nil {
		return fmt.Errorf("%w: the rail's release: %w", ErrForged, err)
	}
	return nil
}

// settleTarget is the seller-side state a buyer's decision leads to from
// the record's state; the same state means nothing changes (unless the
// record is a provisional release, which the decision settles).
func settleTarget(r *storedRecord, decision string) (State, error) {
	cur := r.State
	if decision == DecisionRelease {
		switch cur {
		case StateLocked, StateDelivered, StateReleased:
			return StateReleased, nil
		}
		return "", fmt.Errorf("%w: release of a job that is %s", ErrAlreadySettled, cur)
	}
	switch {
	case cur == StateLocked:
		return StateRefunded, nil
	case cur == StateDelivered, cur == StateReleased && r.Provisional:
		return StateDisputed, nil
	case cur == StateRefunded, cur == StateDisputed, cur == StateFailed:
		return cur, nil
	}
	return "", fmt.Errorf("%w: refund of a job that is %s", ErrAlreadySettled, cur)
}

// moveSellerMoney books the seller-side money of a change from prev's
// state to next: a confirmed release is earned and available, a
// provisional one pending; a reversed provisional release leaves pending.
func moveSellerMoney(txn *tx, prev *storedRecord, next State) error {
	switch {
	case prev.Provisional && next == StateReleased:
		return bookPending(txn, -prev.Amount, prev.Amount)
	case prev.Provisional:
		return bookPending(txn, -prev.Amount, 0)
	case next == StateReleased:
		return credit(txn, prev.Amount)
	}
	return nil
}

// bookPending adds pending to the pending balance and earned to the earned
// and available ones.
func bookPending(txn *tx, pending, earned int64) error {
	b, err := loadBalance(txn)
	if err != nil {
		return err
	}
	if pending > 0 && pending > math.MaxInt64-b.Pending {
		return fmt.Errorf("%w: the pending total would overflow", ErrWrongAmount)
	}
	if earned > math.MaxInt64-(b.Deposited+b.Earned) {
		return fmt.Errorf("%w: the ledger total would overflow", ErrWrongAmount)
	}
	b.Pending += pending
	b.Available += earned
	b.Earned += earned
	return saveBalance(txn, b)
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
func credit(txn *tx, amount int64) error { return bookPending(txn, 0, amount) }

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
