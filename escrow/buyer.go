package escrow

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// LockParams are the terms of a job the buyer locks funds for.
type LockParams struct {
	JobID      string        // empty: Lock generates a random one
	QuoteID    string        // the seller's quote the amount comes from
	Capability string        // the capability hired
	Seller     peer.ID       // who gets paid
	Amount     int64         // micro-credits, > 0
	Deadline   time.Time     // the seller must deliver by then (after now)
	Window     time.Duration // verification window after delivery, 1 ms to 30 days
	// Input is the job's input. The lock commits to its sha256, and it is
	// stored with the lock, so a restarted buyer can verify the output.
	Input []byte
	// SpendCaps are checked and counted in the lock's transaction
	// (spendcap.go).
	SpendCaps []SpendCap
	// SellerAddress is the seller's payout address on the escrow's rail,
	// from its signed listing. Required on a rail, ignored on credits.
	SellerAddress string
	// Also is written with a new lock, in its transaction (not when the
	// job ID was locked before).
	Also Also
}

// NewJobID returns a random job ID (26 lowercase base32 characters).
func NewJobID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// Lock moves p.Amount from available to held in one transaction, records
// the job as locked on the buyer side and returns the signed lock to send to
// the seller. Locking the same job ID again with the same terms returns the
// stored lock and holds nothing more; other terms fail with ErrJobIDReused.
// Too little available fails with ErrInsufficientFunds, a lock past one of
// p.SpendCaps with a *SpendCapError (ErrSpendCap).
func (e *Escrow) Lock(ctx context.Context, p LockParams) (*Lock, error) {
	s, err := e.SignLock(ctx, p)
	if err != nil {
		return nil, err
	}
	return s.Write(ctx)
}

// SignedLock is a lock that SignLock signed and that is not written yet:
// the buyer may send it on while Write stores it, and must not treat it as
// held until Write returns it.
type SignedLock struct {
	// Lock is the lock as signed, or the one stored before for the job
	// ID (then Write stores nothing and returns it).
	Lock *Lock

	e       *Escrow
	p       LockParams
	now     time.Time
	stored  bool
	release func() // the rail's reservation of the lock's cover
	once    sync.Once
}

// SignLock checks p and signs its lock, as Lock does before its
// transaction (on a rail, after reserving the lock's cover). Write must
// be called once on what it returns: it writes the lock and ends the
// reservation.
func (e *Escrow) SignLock(ctx context.Context, p LockParams) (*SignedLock, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	if p.JobID == "" {
		p.JobID = NewJobID()
	}
	now := e.now()
	l, err := e.newLock(p, now)
	if err != nil {
		return nil, fmt.Errorf("lock job %s: %w", truncate(p.JobID), err)
	}
	s := &SignedLock{Lock: l, e: e, p: p, now: now, release: func() {}}
	if e.cfg.rail != nil {
		stored, err := e.storedLock(ctx, l)
		if err != nil {
			return nil, err
		}
		if stored != nil {
			s.Lock, s.stored = stored, true
			return s, nil
		}
		s.release, err = e.prepareRailLock(ctx, l, p.SellerAddress)
		if err != nil {
			return nil, fmt.Errorf("lock job %s: %w", l.JobID, err)
		}
	}
	if err := l.sign(e.key); err != nil {
		s.release()
		return nil, fmt.Errorf("lock job %s: %w", l.JobID, err)
	}
	return s, nil
}

// Write stores the signed lock: the amount moves from available to held
// in one transaction, with p.Also. It returns the lock held for the job,
// which is the signed one unless the job ID was locked before with the
// same terms. Only its first call writes; later ones fail.
func (s *SignedLock) Write(ctx context.Context) (*Lock, error) {
	if s.stored {
		return s.Lock, nil
	}
	first := false
	s.once.Do(func() { first = true })
	if !first {
		return nil, fmt.Errorf("lock job %s: written already", s.Lock.JobID)
	}
	defer s.release() // after the lock is stored (or not): it counts from Badger then
	return s.e.writeLock(ctx, s.Lock, s.p, s.now)
}

// writeLock is Lock's transaction.
func (e *Escrow) writeLock(ctx context.Context, l *Lock, p LockParams, now time.Time) (*Lock, error) {
	var out *Lock
	fresh := false
	err := e.update(ctx, withAlso(func(txn *tx) error {
		out, fresh = nil, false
		_, err := loadRecord(txn, RoleBuyer, l.JobID)
		if err == nil {
			stored, err := loadLock(txn, l.JobID, RoleBuyer)
			if err != nil {
				return err
			}
			if !stored.sameTerms(l) {
				return fmt.Errorf("%w: a lock with other terms exists", ErrJobIDReused)
			}
			out = stored
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := lockSpend(txn, p.SpendCaps, l.JobID, l.Amount, now); err != nil {
			return err
		}
		b, err := loadBalance(txn)
		if err != nil {
			return err
		}
		if b.Available < l.Amount {
			return fmt.Errorf("%w: %s available, %s needed", ErrInsufficientFunds, FormatAmount(b.Available), FormatAmount(l.Amount))
		}
		b.Available -= l.Amount
		b.Held += l.Amount
		rec := &storedRecord{
			JobID: l.JobID, Role: RoleBuyer, State: StateLocked, Amount: l.Amount,
			Capability: l.Capability, QuoteID: l.QuoteID, Buyer: l.Buyer, Seller: l.Seller,
			Deadline: l.Deadline, WindowMS: l.Window.Milliseconds(), InputHash: l.InputHash,
			CreatedAt: now, UpdatedAt: now, DueAt: l.Deadline,
			Rail: l.Rail, RailCounterparty: l.SellerAddress, NotBefore: l.NotBefore,
		}
		if err := saveBalance(txn, b); err != nil {
			return err
		}
		if err := e.putRailRef(txn, RoleBuyer, l); err != nil {
			return err
		}
		if err := putPayload(txn, RoleBuyer, l.JobID, PayloadInput, p.Input, l.InputHash); err != nil {
			return err
		}
		if err := putReceipt(txn, l.JobID, RoleBuyer, receiptLock, l); err != nil {
			return err
		}
		out, fresh = l, true
		return saveRecord(txn, nil, rec)
	}, func() bool { return fresh }, alsoOf(p.Also)))
	if err != nil {
		return nil, fmt.Errorf("lock job %s: %w", l.JobID, err)
	}
	e.log.Debug("locked", "job", l.JobID, "amount", FormatAmount(l.Amount), "seller", l.Seller)
	return out, nil
}

// newLock validates p and returns the signed lock.
func (e *Escrow) newLock(p LockParams, now time.Time) (*Lock, error) {
	if err := checkJobID(p.JobID); err != nil {
		return nil, err
	}
	if err := checkText("quote_id", p.QuoteID); err != nil {
		return nil, err
	}
	if err := checkText("capability", p.Capability); err != nil {
		return nil, err
	}
	if err := p.Seller.Validate(); err != nil {
		return nil, fmt.Errorf("%w: seller: %v", ErrInvalidMessage, err)
	}
	if p.Amount <= 0 {
		return nil, fmt.Errorf("%w: %s: must be positive", ErrWrongAmount, FormatAmount(p.Amount))
	}
	if len(p.Input) > MaxPayloadSize {
		return nil, fmt.Errorf("%w: input of %d bytes is over the %d byte limit", ErrInvalidMessage, len(p.Input), MaxPayloadSize)
	}
	window := p.Window.Truncate(time.Millisecond)
	if window <= 0 || window > maxWindow {
		return nil, fmt.Errorf("%w: verification window %s: want 1ms to %s", ErrInvalidMessage, p.Window, maxWindow)
	}
	deadline := msgTime(p.Deadline)
	if !deadline.After(now) {
		return nil, fmt.Errorf("%w: deadline %s is not in the future", ErrInvalidMessage, wireTime(deadline))
	}
	l := &Lock{
		JobID: p.JobID, QuoteID: p.QuoteID, Capability: p.Capability,
		Buyer: e.self, Seller: p.Seller, Amount: p.Amount,
		Deadline: deadline, Window: window, CreatedAt: msgTime(now), InputHash: HashHex(p.Input),
	}
	return l, nil
}

// storedLock returns the stored lock of a job this node locked before with
// l's terms (a repeated Lock), nil if there is none, and ErrJobIDReused if
// one with other terms exists. On a rail it runs before the rail is asked
// for anything, so a repeated lock never moves money on the rail again.
func (e *Escrow) storedLock(ctx context.Context, l *Lock) (*Lock, error) {
	var out *Lock
	err := e.view(ctx, func(txn *tx) error {
		if _, err := loadRecord(txn, RoleBuyer, l.JobID); err != nil {
			return err
		}
		stored, err := loadLock(txn, l.JobID, RoleBuyer)
		if err != nil {
			return err
		}
		core := *stored
		core.Rail, core.BuyerAddress, core.SellerAddress = "", "", ""
		if !core.sameTerms(l) {
			return fmt.Errorf("%w: a lock with other terms exists", ErrJobIDReused)
		}
		out = stored
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lock job %s: %w", l.JobID, err)
	}
	return out, nil
}

// prepareRailLock fills l's rail fields and has the rail make the amount
// available to the seller and sign its own lock. It checks the ledger
// first, so a lock the ledger refuses costs nothing on the rail. release
// ends the reservation of the amount (reserveRail).
func (e *Escrow) prepareRailLock(ctx context.Context, l *Lock, sellerAddr string) (release func(), err error) {
	r := e.cfg.rail
	if sellerAddr == "" {
		return nil, fmt.Errorf("%w: the seller has no payout address on rail %s (its listing settles elsewhere)", ErrInvalidMessage, r.Name())
	}
	addr, err := r.CheckAddress(sellerAddr)
	if err != nil {
		return nil, fmt.Errorf("%w: seller address: %v", ErrInvalidMessage, err)
	}
	b, err := e.Balance(ctx)
	if err != nil {
		return nil, err
	}
	if b.Available < l.Amount {
		return nil, fmt.Errorf("%w: %s available, %s needed", ErrInsufficientFunds, FormatAmount(b.Available), FormatAmount(l.Amount))
	}
	l.Rail, l.BuyerAddress, l.SellerAddress = r.Name(), r.Address(), addr
	// The seller may claim once the buyer's own timers had their turn.
	l.NotBefore = msgTime(l.Deadline.Add(l.Window).Add(e.cfg.settleGrace))
	open, release, err := e.reserveRail(ctx, RoleBuyer, addr, l.JobID, l.Amount)
	if err != nil {
		return nil, err
	}
	proof, err := r.PrepareLock(ctx, termsOf(l), open)
	if err != nil {
		release()
		return nil, err
	}
	if err := checkRailProof(proof, true); err != nil {
		release()
		return nil, fmt.Errorf("rail %s signed a bad lock: %w", r.Name(), err)
	}
	l.RailProof = proof
	return release, nil
}

// putRailRef indexes a rail job by the rail's reference, so the rail's
// outcomes find it (FindRailJob).
func (e *Escrow) putRailRef(txn *tx, role Role, l *Lock) error {
	if l.Rail == "" || e.cfg.rail == nil {
		return nil
	}
	return txn.set(railRefKey(e.cfg.rail.JobRef(l.JobID), role), []byte(l.JobID))
}

// RecordDelivery records the seller's signed delivery of a job this node
// locked, with the output it names: locked -> delivered, the output stored
// in the same transaction (so a restart can verify it again), and the
// verification window starts now (the buyer's clock, not the seller's
// claim). It checks the signature and that the job's seller signed it
// (ErrForged), that the output is the one the delivery names
// (ErrInvalidMessage), that the job is known (ErrUnknownJob) and that the
// deadline has not passed (ErrPastDeadline, an ErrBadState). Recording the same delivery again
// is a no-op; a different delivery fails with ErrBadState, and one for a
// settled job with ErrAlreadySettled. The timers never release a recorded
// delivery that was not accepted (Accept, Release): see WithUndecided.
func (e *Escrow) RecordDelivery(ctx context.Context, d *Delivery, output []byte) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if err := checkDelivery(d); err != nil {
		return fmt.Errorf("record delivery: %w", err)
	}
	now := e.now()
	err := e.update(ctx, func(txn *tx) error { return recordDelivery(txn, d, output, now) })
	if err != nil {
		return fmt.Errorf("record delivery of %s: %w", d.JobID, err)
	}
	return nil
}

// checkDelivery checks a delivery's fields and signature, before any
// transaction.
// CheckedDelivery is a delivery whose signature and output hash
// CheckDelivery checked. It keeps its own copy, so nothing changes what
// was checked.
type CheckedDelivery struct{ d Delivery }

// CheckDelivery checks d's signature and output hash, as Decide does, so
// that a buyer may check it while it verifies the output and pass the
// result to Decide (Verdict.Checked).
func CheckDelivery(d *Delivery) (*CheckedDelivery, error) {
	if err := checkDelivery(d); err != nil {
		return nil, err
	}
	c := &CheckedDelivery{d: *d}
	c.d.Signature = bytes.Clone(d.Signature)
	return c, nil
}

// covers reports whether c is the check of d.
func (c *CheckedDelivery) covers(d *Delivery) bool { return c != nil && c.d.equal(d) }

func checkDelivery(d *Delivery) error {
	if d == nil {
		return fmt.Errorf("%w: nil delivery", ErrInvalidMessage)
	}
	if err := d.Verify(); err != nil {
		return fmt.Errorf("delivery of %s: %w", truncate(d.JobID), err)
	}
	if err := checkOutputHash(d.OutputHash); err != nil {
		return fmt.Errorf("delivery of %s: %w", truncate(d.JobID), err)
	}
	return nil
}

// recordDelivery is RecordDelivery's change, for a delivery checkDelivery
// passed.
func recordDelivery(txn *tx, d *Delivery, output []byte, now time.Time) error {
	prev, err := loadRecord(txn, RoleBuyer, d.JobID)
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: no lock for this job", ErrUnknownJob)
	}
	if err != nil {
		return err
	}
	if d.Seller != prev.Seller {
		return fmt.Errorf("%w: delivery signed by %s, the job's seller is %s", ErrForged, d.Seller, prev.Seller)
	}
	switch prev.State {
	case StateLocked:
	case StateDelivered:
		return sameDelivery(txn, d, RoleBuyer, ErrBadState)
	default:
		return sameDelivery(txn, d, RoleBuyer, ErrAlreadySettled)
	}
	if now.After(prev.Deadline) {
		return fmt.Errorf("%w (it was %s)", ErrPastDeadline, wireTime(prev.Deadline))
	}
	rec := *prev
	rec.State = StateDelivered
	rec.DeliveredAt = now
	rec.UpdatedAt = now
	rec.OutputHash = d.OutputHash
	rec.DueAt = now.Add(prev.window())
	if err := putPayload(txn, RoleBuyer, d.JobID, PayloadOutput, output, d.OutputHash); err != nil {
		return err
	}
	if err := putReceipt(txn, d.JobID, RoleBuyer, receiptDelivery, d); err != nil {
		return err
	}
	return saveRecord(txn, prev, &rec)
}

// sameDelivery returns nil if d is the delivery stored for the job, else
// an error wrapping otherwise.
func sameDelivery(txn *tx, d *Delivery, role Role, otherwise error) error {
	stored, err := loadDelivery(txn, d.JobID, role)
	if err == nil && stored.equal(d) {
		return nil
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return fmt.Errorf("%w: the job already has another delivery or was settled", otherwise)
}

// Release pays the seller of a delivered job: delivered -> released, held
// -> paid. It returns the signed release to send to the seller. Releasing a
// released job returns the stored settle and nil; a locked job (nothing
// delivered) fails with ErrBadState, a refunded one with ErrAlreadySettled.
//
// also is written in the release's transaction, also when the job was
// released before.
func (e *Escrow) Release(ctx context.Context, jobID string, also ...Also) (*Settle, error) {
	return e.settle(ctx, jobID, DecisionRelease, "", nil, "", also...)
}

// Refund returns the hold of a job to the available balance: locked or
// delivered -> refunded, with the reason and the failed checks, and returns
// the signed refund to send to the seller. A delivered job can only be
// refunded inside its verification window (ErrBadState after: the hold
// auto-releases). Refunding a refunded job returns the stored settle and
// nil; a released one fails with ErrAlreadySettled.
//
// also is written in the refund's transaction, also when the job was
// refunded before.
func (e *Escrow) Refund(ctx context.Context, jobID, reason string, failedChecks []string, also ...Also) (*Settle, error) {
	return e.settle(ctx, jobID, DecisionRefund, reason, failedChecks, "", also...)
}

// settle is Release and Refund. The buyer's timers call it with auto set to
// the state the timer fired for: then it settles only if the job is still
// in that state and due, and returns a nil settle otherwise.
func (e *Escrow) settle(ctx context.Context, jobID, decision, reason string, checks []string, auto State, also ...Also) (*Settle, error) {
	c, err := e.newDecision(ctx, jobID, decision, reason, checks, auto)
	if err != nil {
		return nil, err
	}
	err = e.update(ctx, withAlso(func(txn *tx) error { return e.decide(txn, c) }, func() bool { return c.out != nil }, also))
	if err != nil {
		return nil, fmt.Errorf("%s job %s: %w", decision, truncate(jobID), err)
	}
	e.decided(c)
	return c.out, nil
}

// decisionOp is one release or refund of a buyer's job: what settle and
// Decide commit, and what the commit did.
type decisionOp struct {
	jobID, decision, reason string
	checks                  []string
	auto                    State
	rl                      *railSigned
	now                     time.Time

	out     *Settle
	changed bool
	terms   *LockTerms
	settled Record // what the settle hook gets, from the commit
}

// newDecision checks a release or refund and signs its rail release,
// before its transaction.
func (e *Escrow) newDecision(ctx context.Context, jobID, decision, reason string, checks []string, auto State) (*decisionOp, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	if err := checkSettleText(reason, checks); err != nil {
		return nil, fmt.Errorf("%s job %s: %w", decision, truncate(jobID), err)
	}
	rl, err := e.railRelease(ctx, jobID, decision)
	if err != nil {
		return nil, fmt.Errorf("%s job %s: %w", decision, truncate(jobID), err)
	}
	return &decisionOp{jobID: jobID, decision: decision, reason: reason, checks: checks, auto: auto, rl: rl, now: e.now()}, nil
}

// decide is c's change. It may run more than once: it only sets c's
// results.
func (e *Escrow) decide(txn *tx, c *decisionOp) error {
	jobID, now := c.jobID, c.now
	c.out, c.changed, c.terms = nil, false, nil
	prev, err := loadRecord(txn, RoleBuyer, jobID)
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: no lock for this job", ErrUnknownJob)
	}
	if err != nil {
		return err
	}
	final := StateReleased
	if c.decision == DecisionRefund {
		final = StateRefunded
	}
	if c.auto != "" && (prev.State != c.auto || prev.DueAt.After(now)) {
		return nil // a change won the race against the timer
	}
	switch {
	case prev.State == final:
		c.out, err = loadSettle(txn, jobID, RoleBuyer)
		return err
	case prev.State.Final():
		return fmt.Errorf("%w: it is %s", ErrAlreadySettled, prev.State)
	case c.decision == DecisionRelease && prev.State == StateLocked:
		return fmt.Errorf("%w: nothing was delivered; refund instead", ErrBadState)
	case c.decision == DecisionRefund && prev.State == StateDelivered && prev.Accepted && now.After(prev.DueAt):
		return fmt.Errorf("%w: the verification window closed at %s; the hold releases to the seller", ErrBadState, wireTime(prev.DueAt))
	}
	b, err := loadBalance(txn)
	if err != nil {
		return err
	}
	if b.Held < prev.Amount {
		return fmt.Errorf("%w: held %s is less than the job's %s", ErrInvariant, FormatAmount(b.Held), FormatAmount(prev.Amount))
	}
	s := &Settle{
		JobID: jobID, Decision: c.decision, Amount: prev.Amount, Reason: c.reason,
		FailedChecks: c.checks, Buyer: e.self, At: msgTime(now), Rail: prev.Rail,
	}
	rec := *prev
	switch {
	case c.decision == DecisionRelease:
		if prev.Rail != "" && e.cfg.rail == nil {
			return fmt.Errorf("%w: the job was locked on rail %s, this node settles on %s", ErrBadState, prev.Rail, e.RailName())
		}
		if prev.Rail != "" && (c.rl == nil || c.rl.jobID != jobID) {
			return fmt.Errorf("%w: no signed release of rail %s for the job", ErrBadState, prev.Rail)
		}
		if c.rl != nil {
			s.RailProof = c.rl.proof
		}
		b.Held -= prev.Amount
		b.Paid += prev.Amount
	case prev.Rail != "":
		// The amount stays held until the rail confirms the refund:
		// until then the seller could still be paid on the rail.
		rec.RefundPending = true
		t, err := lockTerms(txn, jobID, RoleBuyer)
		if err != nil {
			return err
		}
		c.terms = t
	default:
		b.Held -= prev.Amount
		b.Available += prev.Amount
	}
	if err := s.sign(e.key); err != nil {
		return err
	}
	rec.State = final
	rec.UpdatedAt = now
	rec.SettledAt = now
	rec.Reason = c.reason
	rec.FailedChecks = c.checks
	if err := saveBalance(txn, b); err != nil {
		return err
	}
	if err := putReceipt(txn, jobID, RoleBuyer, receiptSettle, s); err != nil {
		return err
	}
	if err := saveRecord(txn, prev, &rec); err != nil {
		return err
	}
	c.out, c.changed = s, true
	c.settled = bareRecord(&rec)
	c.settled.Settle = s
	return nil
}

// decided does what follows a committed decision that changed the job:
// the rail's refund and the settle hook.
func (e *Escrow) decided(c *decisionOp) {
	if !c.changed {
		return
	}
	e.log.Debug("settled", "job", c.jobID, "role", RoleBuyer, "decision", c.decision, "reason", c.reason)
	if c.terms != nil && e.cfg.rail != nil {
		e.cfg.rail.Refund(*c.terms)
	}
	e.notifySettled(c.settled)
}

// Verdict is the buyer's decision on a delivery, for Decide.
type Verdict struct {
	// Decision is DecisionRelease, DecisionRefund or VerdictAccept.
	Decision string
	// Reason and FailedChecks go with a refund.
	Reason       string
	FailedChecks []string
	// Checked, if not nil, is the delivery as CheckDelivery checked it
	// (while the output was verified): Decide does not check a delivery
	// equal to it again.
	Checked *CheckedDelivery
}

// VerdictAccept is the verdict of Accept: the output passed, and the hold
// waits for the verification window.
const VerdictAccept = "accept"

// DeliveryError is Decide's error when the delivery it was to record was
// refused (RecordDelivery's errors: ErrForged, ErrPastDeadline,
// ErrAlreadySettled, ...). Nothing was written.
type DeliveryError struct{ Err error }

func (e *DeliveryError) Error() string { return e.Err.Error() }
func (e *DeliveryError) Unwrap() error { return e.Err }

// Decide records the seller's delivery d of a locked job with its output,
// as RecordDelivery, and the buyer's verdict on that output, as Release,
// Refund or Accept, in one transaction: one commit and one fsync where the
// two calls take two. A crash before it returns leaves the job locked, as
// if the delivery had not arrived: the restart asks the seller for it
// again (see the market's reconciliation). d nil decides a delivery
// recorded before. also is written with the verdict. The settle is nil for
// VerdictAccept.
func (e *Escrow) Decide(ctx context.Context, jobID string, d *Delivery, output []byte, v Verdict, also ...Also) (*Settle, error) {
	dc, err := e.NewDecision(ctx, jobID, d, output, v)
	if err != nil {
		return nil, err
	}
	return dc.Commit(ctx, also...)
}

// Decision is a Decide checked and ready to commit: NewDecision checks
// it, Prepare may work its change out ahead of the commit, while the buyer
// waits for something else, and Commit writes it.
type Decision struct {
	e       *Escrow
	jobID   string
	verdict string
	c       *decisionOp // nil for VerdictAccept
	change  func(*tx) error
	prep    *prepared
	once    sync.Once

	deliveryErr error // why the delivery was refused, from the change
}

// NewDecision checks a Decide's delivery and verdict, and signs a rail's
// release, as Decide does before its transaction. Errors are Decide's.
func (e *Escrow) NewDecision(ctx context.Context, jobID string, d *Delivery, output []byte, v Verdict) (*Decision, error) {
	if d != nil && !v.Checked.covers(d) {
		if err := checkDelivery(d); err != nil {
			return nil, &DeliveryError{Err: fmt.Errorf("record delivery: %w", err)}
		}
	}
	if d != nil && d.JobID != jobID {
		return nil, &DeliveryError{Err: fmt.Errorf("record delivery: %w: the delivery is for job %s, not %s", ErrInvalidMessage, truncate(d.JobID), truncate(jobID))}
	}
	dc := &Decision{e: e, jobID: jobID, verdict: v.Decision}
	now := e.now()
	switch v.Decision {
	case VerdictAccept:
	case DecisionRelease, DecisionRefund:
		var err error
		if dc.c, err = e.newDecision(ctx, jobID, v.Decision, v.Reason, v.FailedChecks, ""); err != nil {
			return nil, err
		}
		now = dc.c.now
	default:
		return nil, fmt.Errorf("decide job %s: %w: verdict %q", truncate(jobID), ErrInvalidMessage, truncate(v.Decision))
	}
	c := dc.c
	dc.change = func(txn *tx) error {
		dc.deliveryErr = nil
		if d != nil {
			if err := recordDelivery(txn, d, output, now); err != nil {
				dc.deliveryErr = err
				return err
			}
		}
		if c == nil {
			return acceptJob(txn, jobID, now)
		}
		return e.decide(txn, c)
	}
	return dc, nil
}

// Prepare works the decision's change out now, in a view, so that Commit
// only checks that nothing it read changed and writes it (and works it
// out again if something did). Its reads and writes are the job's and
// the balance's: a change to either meanwhile, another job's lock on the
// same balance included, costs a second run in the commit. So it does
// nothing while other changes are being committed (the node is busy and
// the balance will have moved), nor on a rail (a rail's change reads its
// index by range).
func (dc *Decision) Prepare(ctx context.Context) {
	if dc.e.cfg.rail != nil || !dc.e.commitIdle() {
		return
	}
	dc.prep = dc.e.prepare(ctx, dc.change)
}

// Commit writes the decision with also, durable when it returns, once:
// a second call fails. The settle is nil for VerdictAccept.
func (dc *Decision) Commit(ctx context.Context, also ...Also) (*Settle, error) {
	first := false
	dc.once.Do(func() { first = true })
	if !first {
		return nil, fmt.Errorf("%s job %s: committed already", dc.verdict, truncate(dc.jobID))
	}
	e, c := dc.e, dc.c
	err := e.update(ctx, withAlso(dc.prep.apply(dc.change), func() bool { return c == nil || c.out != nil }, also))
	if dc.deliveryErr != nil {
		return nil, &DeliveryError{Err: fmt.Errorf("record delivery of %s: %w", dc.jobID, dc.deliveryErr)}
	}
	if err != nil {
		return nil, fmt.Errorf("%s job %s: %w", dc.verdict, truncate(dc.jobID), err)
	}
	if c == nil {
		return nil, nil
	}
	e.decided(c)
	return c.out, nil
}

// railSigned is a rail's signed release of a job, made before the
// transaction that records the release.
type railSigned struct {
	jobID string
	proof json.RawMessage
}

// railRelease signs the rail's release of a buyer's rail job about to be
// released; nil for credits jobs and refunds. A release signed for a job
// the transaction then finds settled is never sent.
func (e *Escrow) railRelease(ctx context.Context, jobID, decision string) (*railSigned, error) {
	if decision != DecisionRelease || e.cfg.rail == nil {
		// Without a rail no job can be released on one: decide refuses a
		// rail job's release without its signed release.
		return nil, nil
	}
	var l *Lock
	err := e.view(ctx, func(txn *tx) error {
		r, err := loadRecord(txn, RoleBuyer, jobID)
		if err != nil || r.Rail == "" || r.State.Final() {
			return err
		}
		l, err = loadLock(txn, jobID, RoleBuyer)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return nil, nil // the transaction reports it
	}
	if err != nil || l == nil {
		return nil, err
	}
	r := e.cfg.rail
	if r == nil || r.Name() != l.Rail {
		return nil, fmt.Errorf("%w: the job was locked on rail %s, this node settles on %s", ErrBadState, l.Rail, e.RailName())
	}
	proof, err := r.Release(ctx, termsOf(l), l.RailProof)
	if err != nil {
		return nil, err
	}
	if err := checkRailProof(proof, true); err != nil {
		return nil, fmt.Errorf("rail %s signed a bad release: %w", r.Name(), err)
	}
	return &railSigned{jobID: jobID, proof: proof}, nil
}

// lockTerms reads the rail terms of a job's stored lock.
func lockTerms(txn *tx, jobID string, role Role) (*LockTerms, error) {
	l, err := loadLock(txn, jobID, role)
	if err != nil {
		return nil, err
	}
	t := termsOf(l)
	return &t, nil
}

// Accept records that a delivered job's output passed this node's
// verification, for capabilities whose hold waits for the verification
// window (no standard verifier): the buyer's timer then releases it when
// the window ends, unless the buyer refunds first. Accepting an accepted or
// released job is a no-op; a locked job fails with ErrBadState, a refunded
// one with ErrAlreadySettled.
//
// also is written in the transaction, also when the job was accepted or
// released before.
func (e *Escrow) Accept(ctx context.Context, jobID string, also ...Also) error {
	if e.closed.Load() {
		return ErrClosed
	}
	now := e.now()
	err := e.update(ctx, withAlso(func(txn *tx) error { return acceptJob(txn, jobID, now) }, always, also))
	if err != nil {
		return fmt.Errorf("accept job %s: %w", truncate(jobID), err)
	}
	return nil
}

// acceptJob is Accept's change.
func acceptJob(txn *tx, jobID string, now time.Time) error {
	prev, err := loadRecord(txn, RoleBuyer, jobID)
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: no lock for this job", ErrUnknownJob)
	}
	if err != nil {
		return err
	}
	switch {
	case prev.State == StateReleased || prev.State == StateDelivered && prev.Accepted:
		return nil
	case prev.State == StateLocked:
		return fmt.Errorf("%w: nothing was delivered", ErrBadState)
	case prev.State.Final():
		return fmt.Errorf("%w: it is %s", ErrAlreadySettled, prev.State)
	}
	rec := *prev
	rec.Accepted = true
	rec.UpdatedAt = now
	if rec.DueAt.Before(now) {
		rec.DueAt = now // an undecided delivery past its window: release now
	}
	return saveRecord(txn, prev, &rec)
}
