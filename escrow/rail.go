package escrow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Settlement rails. The escrow owns the money of a job on every rail: it
// keeps the state machine, the ledger and the signed messages in Badger.
// A rail only moves or proves money outside the node and reports what it
// saw (ApplyRailOutcome, BookRail).
//
//   - credits (the default): the ledger is the money; there is no Rail
//     (WithRail not given) and every rail step is a no-op.
//   - evm (package escrow/evm): an escrow contract holding a stablecoin is
//     the arbiter. A lock carries the buyer's signed lock voucher, a
//     release the buyer's release voucher; a refund is a cancel on chain.
//
// Precedence on a rail, in both ledgers: the chain's outcome wins. Paid on
// chain (released or claimed) makes the job released; cancelled before
// not_before with no payment makes it refunded (a seller that delivered
// records it disputed). Until the chain shows an outcome the job is open on
// the rail (the rail's open index below), and its money stays where the
// escrow state machine put it, except that a buyer's refund keeps the
// amount held (Record.RefundPending) until the rail confirms it: before
// that, the seller could still be paid. A seller's provisional release has
// no finality timer on a rail: the seller claims the lock at not_before,
// and the chain decides.
const (
	// RailCredits is the embedded rail of test credits: each node's own
	// ledger, so a credits receipt proves signatures, not value.
	RailCredits = "credits"
	// RailEVM is the EVM stablecoin rail (package escrow/evm).
	RailEVM = "evm"
)

// Chain outcomes of a job on a rail (Record.ChainOutcome).
const (
	// RailPaid: the rail paid the seller (a release, or a claim of the lock
	// after not_before).
	RailPaid = "paid"
	// RailCancelled: the buyer's refund took effect on the rail before
	// not_before; the seller can never be paid by the lock.
	RailCancelled = "cancelled"
)

// Reasons a rail outcome writes into a record.
const (
	// ReasonClaimed: the seller claimed the lock on the rail after
	// not_before: the buyer decided nothing in time.
	ReasonClaimed = "claimed on the rail after not_before: the buyer stayed silent"
	// ReasonRailPaid: the rail paid the seller although this node had
	// recorded another outcome; the chain's outcome wins.
	ReasonRailPaid = "paid on the rail: the chain's outcome wins"
	// ReasonRailCancelled: the buyer cancelled the job on the rail before
	// not_before.
	ReasonRailCancelled = "cancelled on the rail by the buyer"
)

// LockTerms are a job's terms as a rail sees them.
type LockTerms struct {
	JobID         string
	Buyer, Seller peer.ID
	// BuyerAddress and SellerAddress are the parties on the rail, in the
	// rail's canonical form (Rail.CheckAddress).
	BuyerAddress, SellerAddress string
	Amount                      int64
	Deadline                    time.Time
	Window                      time.Duration
	// NotBefore is when the seller may claim the lock on the rail.
	NotBefore time.Time
}

// Rail is a settlement rail other than credits. The escrow calls it at its
// transitions; its errors should wrap ErrNotCovered, ErrRailUnavailable,
// ErrForged or ErrInvalidMessage so callers can branch. Implementations
// must be safe for concurrent use.
type Rail interface {
	// Name is the rail's name (RailEVM).
	Name() string
	// Address is this node's address on the rail: the payout address of
	// its listings and the buyer address of its locks.
	Address() string
	// CheckAddress checks an address on the rail and returns its
	// canonical form.
	CheckAddress(addr string) (string, error)
	// JobRef is the rail's identifier of a job ID (on evm the contract's
	// bytes32 job id, hex); outcomes the rail reports name it.
	JobRef(jobID string) string
	// PrepareLock (buyer, before the lock is stored) makes t.Amount
	// available to t.SellerAddress on the rail, given open: the amount of
	// this node's locks with that seller the rail has not settled yet. It
	// returns the rail's signed lock, which the Lock message carries.
	PrepareLock(ctx context.Context, t LockTerms, open int64) (json.RawMessage, error)
	// CheckLock (seller, before the lock is accepted) checks that the
	// buyer's signed lock covers t on the rail, given open: this node's
	// unsettled locks from the same buyer address.
	CheckLock(ctx context.Context, t LockTerms, proof json.RawMessage, open int64) error
	// Release (buyer) returns the rail's signed release of the job.
	Release(ctx context.Context, t LockTerms, lockProof json.RawMessage) (json.RawMessage, error)
	// CheckRelease (seller) checks the buyer's signed release.
	CheckRelease(ctx context.Context, t LockTerms, lockProof, release json.RawMessage) error
	// Refund (buyer, after a refund is stored) asks the rail to make the
	// refund effective (on evm: cancel on chain), retried until it is. It
	// must not block; the rail reports the result with ApplyRailOutcome.
	Refund(t LockTerms)
}

// RailOutcome is what a rail's chain says about one job.
type RailOutcome struct {
	// Kind is RailPaid or RailCancelled. A rail reports RailCancelled only
	// when the cancel took effect (before not_before) and nothing was paid.
	Kind string
	// Released (RailPaid): paid by the buyer's release, not by a claim.
	Released bool
	// Tx is the transaction that settled it, Block its block (0 when not
	// known): a seller's receipts carry both as the payment.
	Tx    string
	Block uint64
	// Note, when set, becomes the record's chain_note with the outcome,
	// in the same write (what the rail found wrong on the way to it).
	Note string
}

// RailName is the name of the escrow's rail: RailCredits without one.
func (e *Escrow) RailName() string {
	if e.cfg.rail == nil {
		return RailCredits
	}
	return e.cfg.rail.Name()
}

// RailAddress is this node's address on its rail ("" on credits).
func (e *Escrow) RailAddress() string {
	if e.cfg.rail == nil {
		return ""
	}
	return e.cfg.rail.Address()
}

func termsOf(l *Lock) LockTerms {
	return LockTerms{
		JobID: l.JobID, Buyer: l.Buyer, Seller: l.Seller,
		BuyerAddress: l.BuyerAddress, SellerAddress: l.SellerAddress,
		Amount: l.Amount, Deadline: l.Deadline, Window: l.Window, NotBefore: l.NotBefore,
	}
}

// railOpen reports whether a record is in the rail's open index: the rail
// may still pay it or must still confirm its refund. Buyer side: until the
// chain shows an outcome. Seller side: until then, while the seller may be
// paid (locked, delivered, released); a job it failed or the buyer
// refunded it will never claim.
func railOpen(r *storedRecord) bool {
	if r == nil || r.Rail == "" || r.ChainOutcome != "" {
		return false
	}
	if r.Role == RoleBuyer {
		return true
	}
	return r.State == StateLocked || r.State == StateDelivered || r.State == StateReleased
}

// moveRailOpen keeps the rail's open index in step with a record change.
func moveRailOpen(txn *tx, prev, r *storedRecord) error {
	was, is := railOpen(prev), railOpen(r)
	if was && !is {
		if err := txn.delete(railOpenKey(prev.Role, prev.RailCounterparty, prev.JobID, prev.Amount)); err != nil {
			return fmt.Errorf("rail index of %s: %w", r.JobID, err)
		}
		if err := addRailSum(txn, prev.Role, prev.RailCounterparty, -prev.Amount); err != nil {
			return fmt.Errorf("rail index of %s: %w", r.JobID, err)
		}
	}
	if is && !was {
		if err := txn.set(railOpenKey(r.Role, r.RailCounterparty, r.JobID, r.Amount), nil); err != nil {
			return fmt.Errorf("rail index of %s: %w", r.JobID, err)
		}
		if err := addRailSum(txn, r.Role, r.RailCounterparty, r.Amount); err != nil {
			return fmt.Errorf("rail index of %s: %w", r.JobID, err)
		}
	}
	return nil
}

// railSum reads what is open on the rail with counterparty in role
// (railSumKey).
func railSum(txn *tx, role Role, counterparty string) (int64, error) {
	v, err := txn.get(railSumKey(role, counterparty))
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: rail open sum %q of %s %s", ErrInvariant, v, role, truncate(counterparty))
	}
	return n, nil
}

// addRailSum adds delta to what is open with counterparty in role.
func addRailSum(txn *tx, role Role, counterparty string, delta int64) error {
	n, err := railSum(txn, role, counterparty)
	if err != nil {
		return err
	}
	if delta > 0 && n > math.MaxInt64-delta || n+delta < 0 {
		return fmt.Errorf("%w: rail open sum %d of %s %s cannot take %+d", ErrInvariant, n, role, truncate(counterparty), delta)
	}
	if n += delta; n == 0 {
		return txn.delete(railSumKey(role, counterparty))
	}
	return txn.set(railSumKey(role, counterparty), strconv.AppendInt(nil, n, 10))
}

// railSums adds up the rail open index by role and counterparty, as
// railSumKey should hold them.
func railSums(txn *tx) (map[string]int64, error) {
	sums := map[string]int64{}
	prefix := []byte(railOpenPrefix)
	err := scanKeys(txn, prefix, prefix, func(k []byte) error {
		role, cp, _, amount, err := parseRailOpenKey(k)
		if err != nil {
			return err
		}
		key := string(railSumKey(role, cp))
		if amount > math.MaxInt64-sums[key] {
			return fmt.Errorf("%w: open amounts overflow", ErrInvariant)
		}
		sums[key] += amount
		return nil
	})
	return sums, err
}

// buildRailSums writes the rail open sums of a store from before they were
// kept (railSumKey), once.
func (e *Escrow) buildRailSums() error {
	return e.update(context.Background(), func(txn *tx) error {
		if done, err := txn.has([]byte(railSumsBuiltKey)); err != nil || done {
			return err
		}
		sums, err := railSums(txn)
		if err != nil {
			return err
		}
		for k, n := range sums {
			if err := txn.set([]byte(k), strconv.AppendInt(nil, n, 10)); err != nil {
				return err
			}
		}
		return txn.set([]byte(railSumsBuiltKey), nil)
	})
}

// checkRailSums: every rail open sum is what the index adds up to.
func checkRailSums(txn *tx) error {
	want, err := railSums(txn)
	if err != nil {
		return err
	}
	prefix := []byte(railSumPrefix)
	err = scanKeys(txn, prefix, prefix, func(k []byte) error {
		v, err := txn.get(k)
		if err != nil {
			return err
		}
		if string(v) != strconv.FormatInt(want[string(k)], 10) {
			return fmt.Errorf("%w: rail open sum %s is %s, the index adds up to %d", ErrInvariant, k, v, want[string(k)])
		}
		delete(want, string(k))
		return nil
	})
	if err != nil {
		return err
	}
	for k, n := range want {
		if n != 0 {
			return fmt.Errorf("%w: rail open sum %s is missing, the index adds up to %d", ErrInvariant, k, n)
		}
	}
	return nil
}

// RailOpen returns this node's records of role that are open on the rail
// (see railOpen), in key order. want, if not nil, sees each record without
// its evidence (no Lock, Delivery or Settle) and picks those to return,
// with their evidence: the rail scans the index often and needs the signed
// messages of only a few.
func (e *Escrow) RailOpen(ctx context.Context, role Role, want func(Record) bool) ([]Record, error) {
	if !validRole(role) {
		return nil, fmt.Errorf("rail open jobs: unknown role %q", role)
	}
	var out []Record
	err := e.view(ctx, func(txn *tx) error {
		prefix := []byte(railOpenPrefix + string(role) + "/")
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = prefix
		it := txn.txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			_, _, id, _, err := parseRailOpenKey(it.Item().Key())
			if err != nil {
				e.log.Warn("skip malformed rail index key", "key", fmt.Sprintf("%q", it.Item().Key()), "err", err)
				continue
			}
			r, err := loadRecord(txn, role, id)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if want != nil && !want(bareRecord(r)) {
				continue
			}
			rec, err := withEvidence(txn, r)
			if err != nil {
				return err
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rail open jobs: %w", err)
	}
	return out, nil
}

// RailOpenAmount sums the amounts of this node's records of role open on
// the rail with counterparty (a rail address in canonical form).
func (e *Escrow) RailOpenAmount(ctx context.Context, role Role, counterparty string) (int64, error) {
	var total int64
	err := e.view(ctx, func(txn *tx) error {
		var err error
		total, err = railOpenAmount(txn, role, counterparty)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("rail open amount: %w", err)
	}
	return total, nil
}

func railOpenAmount(txn *tx, role Role, counterparty string) (int64, error) {
	return railOpenAmountExcept(txn, role, counterparty, nil)
}

// railOpenAmountExcept is railOpenAmount without the index keys in skip
// (reserveRail's jobs being locked, which it counts itself): the stored
// sum less the amounts of the skipped keys that are stored.
func railOpenAmountExcept(txn *tx, role Role, counterparty string, skip map[string]int64) (int64, error) {
	total, err := railSum(txn, role, counterparty)
	if err != nil {
		return 0, err
	}
	for k := range skip {
		if _, err := txn.get([]byte(k)); errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return 0, err
		}
		_, _, _, amount, err := parseRailOpenKey([]byte(k))
		if err != nil {
			return 0, err
		}
		total -= amount
	}
	if total < 0 {
		return 0, fmt.Errorf("%w: rail open sum of %s %s below its stored jobs", ErrInvariant, role, truncate(counterparty))
	}
	return total, nil
}

// reserveRail returns what is open on the rail between this node in role
// and counterparty, stored or being locked right now, and counts job's
// amount as being locked until release is called (after the lock is
// stored, or when it fails). Concurrent locks with one counterparty each
// see the others, so together they never pass what the rail covers; the
// rail's checks run outside any lock. A job counts once: a reserved job
// whose record is already stored (its release not yet called) is counted
// as reserved, not twice, so a burst of locks is not refused for a sum
// that double counts the ones just stored.
func (e *Escrow) reserveRail(ctx context.Context, role Role, counterparty, jobID string, amount int64) (open int64, release func(), err error) {
	key := string(role) + "/" + counterparty
	job := string(railOpenKey(role, counterparty, jobID, amount))
	e.railMu.Lock()
	defer e.railMu.Unlock()
	reserved := e.railReserved[key]
	var stored int64
	err = e.view(ctx, func(txn *tx) error {
		var err error
		stored, err = railOpenAmountExcept(txn, role, counterparty, reserved)
		return err
	})
	if err != nil {
		return 0, nil, fmt.Errorf("rail open amount: %w", err)
	}
	open = stored
	for _, a := range reserved {
		open += a
	}
	if reserved == nil {
		reserved = make(map[string]int64)
		e.railReserved[key] = reserved
	}
	reserved[job] += amount
	released := false
	return open, func() {
		e.railMu.Lock()
		defer e.railMu.Unlock()
		if released {
			return
		}
		released = true
		r := e.railReserved[key]
		if r[job] -= amount; r[job] <= 0 {
			delete(r, job)
		}
		if len(r) == 0 {
			delete(e.railReserved, key)
		}
	}, nil
}

// FindRailJob returns this node's records (one per role it plays) of the
// job the rail calls ref (Rail.JobRef); none if the job is not this node's.
func (e *Escrow) FindRailJob(ctx context.Context, ref string) ([]Record, error) {
	var out []Record
	err := e.view(ctx, func(txn *tx) error {
		for _, role := range []Role{RoleBuyer, RoleSeller} {
			id, err := txn.get(railRefKey(ref, role))
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			rec, err := getRecord(txn, role, string(id))
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find rail job %s: %w", truncate(ref), err)
	}
	return out, nil
}

// ApplyRailOutcome applies what the rail's chain says about a job this
// node holds in role, with the chain's outcome winning (see the rail
// precedence above). Buyer: paid -> released (the hold is paid; a claim
// gets a release signed for the record), cancelled -> the refund is
// confirmed (the hold becomes available). Seller: paid -> released,
// earned, and withdrawn to the node's address; cancelled -> refunded
// (locked) or disputed (delivered, provisional release), while a release
// the buyer signed still stands. Repeating an outcome changes nothing.
func (e *Escrow) ApplyRailOutcome(ctx context.Context, role Role, jobID string, o RailOutcome) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if o.Kind != RailPaid && o.Kind != RailCancelled {
		return fmt.Errorf("apply rail outcome of %s: unknown outcome %q", truncate(jobID), o.Kind)
	}
	if !validRole(role) {
		return fmt.Errorf("apply rail outcome of %s: unknown role %q", truncate(jobID), role)
	}
	for attempt := 0; ; attempt++ {
		retry, err := e.applyRailOutcome(ctx, role, jobID, o)
		if err != nil {
			return fmt.Errorf("apply rail outcome %s of %s: %w", o.Kind, truncate(jobID), err)
		}
		if !retry {
			return nil
		}
		if attempt >= maxConflictRetries {
			return fmt.Errorf("apply rail outcome %s of %s: the record kept changing", o.Kind, truncate(jobID))
		}
	}
}

// applyRailOutcome makes one attempt; retry says the record changed
// between the read and the write.
func (e *Escrow) applyRailOutcome(ctx context.Context, role Role, jobID string, o RailOutcome) (retry bool, err error) {
	var seen *storedRecord
	var lock *Lock
	err = e.view(ctx, func(txn *tx) error {
		var err error
		if seen, err = loadRecord(txn, role, jobID); err != nil {
			return err
		}
		lock, err = loadLock(txn, jobID, role)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return false, fmt.Errorf("%w: no record in role %s", ErrUnknownJob, role)
	}
	if err != nil {
		return false, err
	}
	if seen.Rail == "" {
		return false, fmt.Errorf("%w: the job settles in credits", ErrBadState)
	}
	if seen.ChainOutcome != "" {
		return false, nil // applied before
	}
	// A buyer record the chain settles without a decision of this node
	// gets a signed settle (the record of a released or refunded job
	// always has one). Signing happens outside the transaction.
	var settle *Settle
	if role == RoleBuyer && (seen.State == StateLocked || seen.State == StateDelivered) {
		if settle, err = e.railSettle(ctx, seen, lock, o); err != nil {
			return false, err
		}
	}
	now := e.now()
	changed := false
	err = e.update(ctx, func(txn *tx) error {
		retry, changed = false, false
		prev, err := loadRecord(txn, role, jobID)
		if err != nil {
			return err
		}
		if prev.ChainOutcome != "" {
			return nil
		}
		if prev.State != seen.State || prev.Provisional != seen.Provisional || prev.RefundPending != seen.RefundPending {
			retry = true
			return nil
		}
		rec := *prev
		rec.UpdatedAt = now
		if role == RoleBuyer {
			changed, err = railBuyerOutcome(txn, prev, &rec, o, now)
		} else {
			changed, err = railSellerOutcome(txn, prev, &rec, o, now)
		}
		if err != nil {
			return err
		}
		if rec.ChainOutcome != "" {
			// The chain shows an outcome again: watched from now on.
			if rec.ChainProvisional {
				rec.ChainNote = ""
			}
			rec.ChainProvisional, rec.ChainFinal = false, false
		}
		if o.Note != "" {
			rec.ChainNote = chainNote(o.Note)
		}
		if settle != nil && rec.State != prev.State {
			if err := putReceipt(txn, jobID, role, receiptSettle, settle); err != nil {
				return err
			}
		}
		return saveRecord(txn, prev, &rec)
	})
	if err != nil || retry {
		return retry, err
	}
	e.log.Debug("rail outcome", "job", jobID, "role", role, "outcome", o.Kind, "tx", o.Tx)
	if changed {
		e.notify(ctx, role, jobID)
	}
	return false, nil
}

// railSettle signs the settle a buyer record gets when the chain settles a
// job this node had not decided: a release (with the rail's release, so
// the record is complete) for a payment, a refund for a cancel.
func (e *Escrow) railSettle(ctx context.Context, r *storedRecord, l *Lock, o RailOutcome) (*Settle, error) {
	s := &Settle{JobID: r.JobID, Amount: r.Amount, Buyer: e.self, At: msgTime(e.now()), Rail: r.Rail}
	if o.Kind == RailPaid {
		s.Decision, s.Reason = DecisionRelease, ReasonClaimed
		if e.cfg.rail != nil && e.cfg.rail.Name() == r.Rail {
			proof, err := e.cfg.rail.Release(ctx, termsOf(l), l.RailProof)
			if err != nil {
				return nil, err
			}
			s.RailProof = proof
		}
	} else {
		s.Decision, s.Reason = DecisionRefund, ReasonRailCancelled
	}
	if err := s.sign(e.key); err != nil {
		return nil, err
	}
	return s, nil
}

// railBuyerOutcome books a chain outcome on a buyer record and reports
// whether the job reached a final state it was not in.
func railBuyerOutcome(txn *tx, prev, rec *storedRecord, o RailOutcome, now time.Time) (bool, error) {
	b, err := loadBalance(txn)
	if err != nil {
		return false, err
	}
	rec.ChainOutcome, rec.ChainTx, rec.ChainBlock = o.Kind, o.Tx, o.Block
	rec.ChainUndo = &chainUndo{Reason: prev.Reason, SettledAt: prev.SettledAt}
	amt := prev.Amount
	changed := false
	switch {
	case o.Kind == RailPaid && prev.State == StateReleased:
		// Paid when the buyer released: the chain agrees.
		rec.ChainUndo.Kind = undoNothing
	case o.Kind == RailPaid && (!prev.State.Final() || prev.RefundPending):
		if b.Held < amt {
			return false, fmt.Errorf("%w: held %s is less than the job's %s", ErrInvariant, FormatAmount(b.Held), FormatAmount(amt))
		}
		b.Held -= amt
		b.Paid += amt
		rec.Reason = ReasonClaimed
		rec.ChainUndo.Kind = undoNothing // claimed after not_before: the lock pays whatever happens
		if prev.RefundPending {
			rec.Reason = ReasonRailPaid
			rec.ChainUndo.Kind = undoBuyerRefundOverridden
		}
		rec.State, rec.RefundPending, rec.SettledAt, changed = StateReleased, false, now, true
	case o.Kind == RailPaid:
		// Refunded and confirmed, yet paid: the chain wins, from what is
		// available.
		if b.Available < amt {
			return false, fmt.Errorf("%w: the rail paid %s for refunded job %s, only %s is available", ErrInvariant, FormatAmount(amt), prev.JobID, FormatAmount(b.Available))
		}
		b.Available -= amt
		b.Paid += amt
		rec.ChainUndo.Kind = undoBuyerPaidAfterRefund
		rec.State, rec.Reason, rec.SettledAt, changed = StateReleased, ReasonRailPaid, now, true
	case o.Kind == RailCancelled && prev.State == StateReleased:
		// A release pays even after a cancel: nothing changes yet.
		rec.ChainOutcome, rec.ChainTx, rec.ChainBlock, rec.ChainUndo = "", "", 0, nil
		return false, nil
	case o.Kind == RailCancelled && (!prev.State.Final() || prev.RefundPending):
		if b.Held < amt {
			return false, fmt.Errorf("%w: held %s is less than the job's %s", ErrInvariant, FormatAmount(b.Held), FormatAmount(amt))
		}
		b.Held -= amt
		b.Available += amt
		rec.ChainUndo.Kind = undoBuyerCancelConfirmed
		if !prev.State.Final() {
			rec.State, rec.Reason, rec.SettledAt, changed = StateRefunded, ReasonRailCancelled, now, true
		}
		rec.RefundPending = false
	default:
		rec.ChainUndo.Kind = undoNothing
	}
	return changed, saveBalance(txn, b)
}

// railSellerOutcome books a chain outcome on a seller record and reports
// whether the job reached a final state it was not in.
func railSellerOutcome(txn *tx, prev, rec *storedRecord, o RailOutcome, now time.Time) (bool, error) {
	amt := prev.Amount
	undo := &chainUndo{Kind: undoNothing, Reason: prev.Reason, SettledAt: prev.SettledAt}
	if o.Kind == RailCancelled {
		switch {
		case prev.State == StateReleased && !prev.Provisional:
			return false, nil // the buyer's release still pays: redeem it
		case prev.State == StateReleased:
			if err := bookPending(txn, -amt, 0); err != nil {
				return false, err
			}
			rec.State, rec.Provisional = StateDisputed, false
			undo.Kind = undoSellerCancelDisputed
		case prev.State == StateDelivered:
			rec.State = StateDisputed
			undo.Kind = undoSellerCancelDisputed
		case prev.State == StateLocked:
			rec.State = StateRefunded
		}
		rec.ChainOutcome, rec.ChainTx, rec.ChainBlock, rec.ChainUndo = o.Kind, o.Tx, o.Block, undo
		changed := rec.State != prev.State
		if changed {
			rec.Reason, rec.SettledAt = ReasonRailCancelled, now
		}
		return changed, nil
	}
	// Paid: the money is in the node's own address now.
	switch {
	case prev.State == StateReleased && prev.Provisional:
		if err := bookPending(txn, -amt, amt); err != nil {
			return false, err
		}
		rec.Provisional, rec.Reason = false, ReasonClaimed
		undo.Kind = undoSellerPaidClaim
	case prev.State == StateReleased:
		// Credited when the buyer released.
		undo.Kind = undoSellerPaidRelease
	default:
		if err := credit(txn, amt); err != nil {
			return false, err
		}
		rec.State, rec.Reason, rec.SettledAt = StateReleased, ReasonRailPaid, now
		if prev.State == StateDelivered {
			rec.Reason = ReasonClaimed
		}
		undo.Kind = undoSellerPaidClaim
	}
	b, err := loadBalance(txn)
	if err != nil {
		return false, err
	}
	if b.Available < amt {
		return false, fmt.Errorf("%w: available %s is less than the redeemed %s", ErrInvariant, FormatAmount(b.Available), FormatAmount(amt))
	}
	b.Available -= amt
	b.Withdrawn += amt
	rec.ChainOutcome, rec.ChainTx, rec.ChainBlock, rec.ChainUndo = o.Kind, o.Tx, o.Block, undo
	return rec.State != prev.State || prev.Provisional, saveBalance(txn, b)
}

// Kinds of rail ledger entries (BookRail).
const (
	// RailDeposit: money the node moved into the rail (on evm: deposited
	// into the escrow contract); it becomes available.
	RailDeposit = "deposit"
	// RailWithdrawal: money the node took back out of the rail to its own
	// address; it leaves the available balance.
	RailWithdrawal = "withdrawal"
)

// RailEntry is one money movement on the rail that is not a job's: a
// deposit or a withdrawal, named by the rail's reference (a transaction
// hash and what in it), so booking it twice books it once.
type RailEntry struct {
	Kind   string
	Ref    string
	Amount int64
	Memo   string
}

// BookRail books a deposit or withdrawal the rail made, once per Ref, and
// reports whether it was new. A withdrawal larger than the available
// balance fails with ErrInsufficientFunds and books nothing.
func (e *Escrow) BookRail(ctx context.Context, en RailEntry) (bool, error) {
	if e.closed.Load() {
		return false, ErrClosed
	}
	switch {
	case en.Kind != RailDeposit && en.Kind != RailWithdrawal:
		return false, fmt.Errorf("book rail entry: unknown kind %q", en.Kind)
	case en.Ref == "" || len(en.Ref) > maxTextLen:
		return false, fmt.Errorf("book rail %s: reference must be 1 to %d bytes", en.Kind, maxTextLen)
	case en.Amount <= 0:
		return false, fmt.Errorf("book rail %s %s: %w: must be positive", en.Kind, FormatAmount(en.Amount), ErrWrongAmount)
	case len(en.Memo) > maxMemoLen:
		return false, fmt.Errorf("book rail %s: memo longer than %d bytes", en.Kind, maxMemoLen)
	}
	now := e.now()
	sum := sha256.Sum256([]byte(en.Ref))
	nonce := hex.EncodeToString(sum[:4])
	booked := false
	err := e.update(ctx, func(txn *tx) error {
		booked = false
		if done, err := txn.has(railBookedKey(en.Ref)); err != nil || done {
			return err
		}
		b, err := loadBalance(txn)
		if err != nil {
			return err
		}
		entry := storedDeposit{V: schemaVersion, Amount: en.Amount, Memo: en.Memo, At: now}
		if en.Kind == RailDeposit {
			if en.Amount > math.MaxInt64-(b.Deposited+b.Earned) {
				return fmt.Errorf("%w: the ledger total would overflow", ErrWrongAmount)
			}
			b.Available += en.Amount
			b.Deposited += en.Amount
			k, kerr := freeLogKey(txn, depositKey, now, nonce)
			if kerr != nil {
				return kerr
			}
			err = setJSON(txn, k, entry)
		} else {
			if b.Available < en.Amount {
				return fmt.Errorf("%w: %s available, the rail withdrew %s", ErrInsufficientFunds, FormatAmount(b.Available), FormatAmount(en.Amount))
			}
			b.Available -= en.Amount
			b.Withdrawn += en.Amount
			err = setJSON(txn, withdrawalKey(now, nonce), entry)
		}
		if err != nil {
			return err
		}
		if err := txn.set(railBookedKey(en.Ref), []byte(en.Kind)); err != nil {
			return err
		}
		booked = true
		return saveBalance(txn, b)
	})
	if err != nil {
		return false, fmt.Errorf("book rail %s %s: %w", en.Kind, FormatAmount(en.Amount), err)
	}
	if booked {
		e.log.Info("rail "+en.Kind, "amount", FormatAmount(en.Amount), "ref", en.Ref)
	}
	return booked, nil
}

// UnbookRail undoes a deposit BookRail booked under ref that the rail
// found gone from its chain (a reorg deeper than its confirmation depth
// took the transaction away): the amount leaves the available balance and
// the deposits, in one transaction, with a reversing entry in the
// deposit log (a negative amount, memo saying why), and ref may be booked
// again if the deposit comes back. It reports whether anything was
// undone (false: ref was not booked, or not as a deposit). If the
// deposit was spent since (locked in jobs), it fails with
// ErrInsufficientFunds and undoes nothing: the rail tries again later.
func (e *Escrow) UnbookRail(ctx context.Context, ref string, amount int64, note string) (bool, error) {
	if e.closed.Load() {
		return false, ErrClosed
	}
	if amount <= 0 || ref == "" || len(ref) > maxTextLen {
		return false, fmt.Errorf("unbook rail deposit %q: %w", ref, ErrWrongAmount)
	}
	if len(note) > maxMemoLen {
		note = note[:maxMemoLen]
	}
	now := e.now()
	sum := sha256.Sum256([]byte("unbook:" + ref))
	nonce := hex.EncodeToString(sum[:4])
	undone := false
	err := e.update(ctx, func(txn *tx) error {
		undone = false
		kind, err := txn.get(railBookedKey(ref))
		if errors.Is(err, ErrNotFound) || err == nil && string(kind) != RailDeposit {
			return nil
		} else if err != nil {
			return err
		}
		b, err := loadBalance(txn)
		if err != nil {
			return err
		}
		if b.Available < amount || b.Deposited < amount {
			return fmt.Errorf("%w: %s available, the vanished deposit was %s", ErrInsufficientFunds, FormatAmount(b.Available), FormatAmount(amount))
		}
		b.Available -= amount
		b.Deposited -= amount
		k, err := freeLogKey(txn, depositKey, now, nonce)
		if err != nil {
			return err
		}
		if err := setJSON(txn, k, storedDeposit{V: schemaVersion, Amount: -amount, Memo: note, At: now}); err != nil {
			return err
		}
		if err := txn.delete(railBookedKey(ref)); err != nil {
			return err
		}
		undone = true
		return saveBalance(txn, b)
	})
	if err != nil {
		return false, fmt.Errorf("unbook rail deposit %s: %w", FormatAmount(amount), err)
	}
	if undone {
		e.log.Warn("rail deposit undone: it vanished from the chain", "amount", FormatAmount(amount), "ref", ref)
	}
	return undone, nil
}

// freeLogKey is key(at, nonce), or with another nonce derived from it if
// that key holds an entry already (a deposit booked again after it was
// undone, in the same clock tick).
func freeLogKey(txn *tx, key func(time.Time, string) []byte, at time.Time, nonce string) ([]byte, error) {
	for range 16 {
		k := key(at, nonce)
		if _, err := txn.get(k); errors.Is(err, ErrNotFound) {
			return k, nil
		} else if err != nil {
			return nil, err
		}
		sum := sha256.Sum256([]byte(nonce))
		nonce = hex.EncodeToString(sum[:4])
	}
	return nil, errors.New("no free ledger log key")
}

// RailState reads the rail's own small state under name (a reconcile
// cursor, the sellers it has lines with) into v; found says whether any
// was stored.
func (e *Escrow) RailState(ctx context.Context, name string, v any) (found bool, err error) {
	err = e.view(ctx, func(txn *tx) error {
		err := getJSON(txn, railStateKey(name), v)
		found = err == nil
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("read rail state %s: %w", name, err)
	}
	return found, nil
}

// SetRailState stores the rail's state under name.
func (e *Escrow) SetRailState(ctx context.Context, name string, v any) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if name == "" || len(name) > maxTextLen {
		return fmt.Errorf("set rail state: name must be 1 to %d bytes", maxTextLen)
	}
	err := e.update(ctx, func(txn *tx) error { return setJSON(txn, railStateKey(name), v) })
	if err != nil {
		return fmt.Errorf("set rail state %s: %w", name, err)
	}
	return nil
}

// checkRailLock checks the rail fields of a lock a seller is offered
// against this node's rail.
func (e *Escrow) checkRailLock(l *Lock) error {
	r := e.cfg.rail
	switch {
	case r == nil && l.Rail != "":
		return fmt.Errorf("%w: this seller settles in %s; a lock on rail %q cannot pay it", ErrInvalidMessage, RailCredits, l.Rail)
	case r == nil:
		return nil
	case l.Rail != r.Name():
		got := l.Rail
		if got == "" {
			got = RailCredits
		}
		return fmt.Errorf("%w: this seller settles on rail %s; the lock is for %s", ErrInvalidMessage, r.Name(), got)
	}
	seller, err := r.CheckAddress(l.SellerAddress)
	if err != nil {
		return fmt.Errorf("%w: seller_address: %v", ErrInvalidMessage, err)
	}
	if !strings.EqualFold(seller, r.Address()) || seller != l.SellerAddress {
		return fmt.Errorf("%w: the lock pays %s; this seller's payout address is %s", ErrForged, l.SellerAddress, r.Address())
	}
	if buyer, err := r.CheckAddress(l.BuyerAddress); err != nil || buyer != l.BuyerAddress {
		return fmt.Errorf("%w: buyer_address %q is not a canonical %s address", ErrInvalidMessage, truncate(l.BuyerAddress), r.Name())
	}
	if l.NotBefore.Before(l.Deadline.Add(l.Window)) {
		return fmt.Errorf("%w: not_before %s lies before the verification window ends", ErrInvalidMessage, wireTime(l.NotBefore))
	}
	return nil
}
