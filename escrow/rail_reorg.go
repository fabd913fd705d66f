package escrow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Reorgs. A rail records a chain outcome (ApplyRailOutcome) once it is at
// the rail's confirmation depth, but a reorg deeper than that depth can
// still take it away. Until the rail declares the outcome final
// (RailFinal), the record stays in the rail's watch index (RailWatched),
// and each recorded outcome remembers how it changed the record and the
// account (storedRecord.ChainUndo). If the outcome vanishes from the
// canonical chain, RevertRailOutcome undoes exactly that, in one
// transaction, and marks the job ChainProvisional: it is back in the
// rail's open index, so the rail re-sends what it had sent (a release
// redeemed again, a lock claimed, a cancel), and the next outcome the
// chain shows is applied as any other.

// Ways a recorded chain outcome changed a record (chainUndo.Kind).
const (
	// undoNothing: the outcome only confirmed what the record said (a
	// buyer's release paid; a claim after not_before, which the lock pays
	// whatever happens; a locked seller job cancelled).
	undoNothing = "nothing"
	// undoBuyerRefundOverridden: a buyer's pending refund, paid instead
	// (held -> paid).
	undoBuyerRefundOverridden = "buyer-refund-overridden"
	// undoBuyerPaidAfterRefund: a confirmed refund, paid all the same
	// (available -> paid).
	undoBuyerPaidAfterRefund = "buyer-paid-after-refund"
	// undoBuyerCancelConfirmed: the cancel confirmed a refund (held ->
	// available).
	undoBuyerCancelConfirmed = "buyer-cancel-confirmed"
	// undoSellerPaidRelease: the buyer's release was redeemed (available
	// -> withdrawn).
	undoSellerPaidRelease = "seller-paid-release"
	// undoSellerPaidClaim: the lock was claimed (or the job paid before
	// this node had a release): earned, then withdrawn.
	undoSellerPaidClaim = "seller-paid-claim"
	// undoSellerCancelDisputed: a delivered job (or a provisional
	// release) disputed by the cancel.
	undoSellerCancelDisputed = "seller-cancel-disputed"
)

// chainUndo is how a recorded chain outcome changed a record: the kind of
// change, and the reason and settle time it replaced.
type chainUndo struct {
	Kind      string    `json:"kind"`
	Reason    string    `json:"reason,omitempty"`
	SettledAt time.Time `json:"settled_at,omitzero"`
}

// Reasons a revert writes into a record.
const (
	// ReasonChainVanished: the chain outcome this node had recorded is no
	// longer on the canonical chain (a reorg deeper than the confirmation
	// depth); the rail claims the lock at not_before unless the buyer
	// releases again.
	ReasonChainVanished = "the chain's payment vanished in a reorg: claiming the lock at not_before unless the buyer releases again"
)

// railWatched reports whether a record is in the rail's watch index: its
// chain outcome is recorded and the rail has not declared it final.
func railWatched(r *storedRecord) bool {
	return r != nil && r.Rail != "" && r.ChainOutcome != "" && !r.ChainFinal
}

// moveRailWatch keeps the rail's watch index in step with a record change.
func moveRailWatch(txn *tx, prev, r *storedRecord) error {
	was, is := railWatched(prev), railWatched(r)
	if was && !is {
		if err := txn.delete(railWatchKey(prev.Role, prev.JobID)); err != nil {
			return fmt.Errorf("rail watch index of %s: %w", r.JobID, err)
		}
	}
	if is && !was {
		return txn.set(railWatchKey(r.Role, r.JobID), nil)
	}
	return nil
}

// RailWatched returns this node's records (both roles, with their
// evidence) whose chain outcome the rail still watches for a reorg, in
// key order, at most limit of them after the record (role, jobID) named
// by after (nil: from the start; limit <= 0: all).
func (e *Escrow) RailWatched(ctx context.Context, after *Position, limit int) ([]Record, error) {
	var out []Record
	err := e.view(ctx, func(txn *tx) error {
		prefix := []byte(railWatchPrefix)
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = prefix
		it := txn.txn.NewIterator(opts)
		defer it.Close()
		start := prefix
		if after != nil {
			start = append(railWatchKey(after.Role, after.JobID), 0)
		}
		for it.Seek(start); it.ValidForPrefix(prefix); it.Next() {
			if limit > 0 && len(out) >= limit {
				return nil
			}
			role, id, err := parseRailWatchKey(it.Item().Key())
			if err != nil {
				e.log.Warn("skip malformed rail watch key", "key", fmt.Sprintf("%q", it.Item().Key()), "err", err)
				continue
			}
			r, err := loadRecord(txn, role, id)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
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
		return nil, fmt.Errorf("rail watched jobs: %w", err)
	}
	return out, nil
}

// RailFinal declares the chain outcome of a job this node holds in role
// final: the rail stops watching it for a reorg. chainTx must be the recorded
// outcome's transaction (another, or no outcome, changes nothing).
func (e *Escrow) RailFinal(ctx context.Context, role Role, jobID, chainTx string) error {
	if e.closed.Load() {
		return ErrClosed
	}
	err := e.update(ctx, func(txn *tx) error {
		prev, err := loadRecord(txn, role, jobID)
		if err != nil {
			return err
		}
		if !railWatched(prev) || prev.ChainTx != chainTx {
			return nil
		}
		rec := *prev
		rec.ChainFinal = true
		return saveRecord(txn, prev, &rec)
	})
	if err != nil {
		return fmt.Errorf("rail final %s of %s: %w", role, truncate(jobID), err)
	}
	return nil
}

// chainNote is note cut to the length a record keeps.
func chainNote(note string) string {
	if len(note) > maxMemoLen {
		return note[:maxMemoLen]
	}
	return note
}

// NoteRail records what the rail noticed about a job and did not act on
// (Record.ChainNote), so the job's view says so. The same note again
// writes nothing.
func (e *Escrow) NoteRail(ctx context.Context, role Role, jobID, note string) error {
	if e.closed.Load() {
		return ErrClosed
	}
	note = chainNote(note)
	err := e.update(ctx, func(txn *tx) error {
		prev, err := loadRecord(txn, role, jobID)
		if err != nil {
			return err
		}
		if prev.ChainNote == note {
			return nil
		}
		rec := *prev
		rec.ChainNote = note
		return saveRecord(txn, prev, &rec)
	})
	if err != nil {
		return fmt.Errorf("note rail %s of %s: %w", role, truncate(jobID), err)
	}
	return nil
}

// RevertRailOutcome undoes the chain outcome recorded for a job this node
// holds in role, because the canonical chain no longer shows it (a reorg
// deeper than the confirmation depth). chainTx must be the recorded outcome's
// transaction; another, or no outcome, changes nothing and reports false.
// The record leaves the rail's watch index, returns to its open index
// with ChainProvisional set and note as its ChainNote, and the account
// moves back exactly as the outcome had moved it:
//
//   - buyer, a release paid or a lock claimed: nothing moves (the buyer's
//     voucher still pays; the seller redeems it again);
//   - buyer, a pending refund overridden by a payment: paid -> held, the
//     refund pending again (its cancel is re-sent);
//   - buyer, a confirmed refund: available -> held, the refund pending
//     again (ErrInsufficientFunds, and nothing changes, if the refunded
//     amount was spent since);
//   - seller, a release redeemed: withdrawn -> available (redeemed again);
//   - seller, a claim: withdrawn -> pending, a provisional release again
//     (claimed again, unless the buyer releases);
//   - seller, a dispute by a cancel: a provisional release again (pending).
//
// The change is durable when it returns; the ledger invariant holds.
func (e *Escrow) RevertRailOutcome(ctx context.Context, role Role, jobID, chainTx, note string) (bool, error) {
	if e.closed.Load() {
		return false, ErrClosed
	}
	if len(note) > maxMemoLen {
		note = note[:maxMemoLen]
	}
	now := e.now()
	reverted := false
	err := e.update(ctx, func(txn *tx) error {
		reverted = false
		prev, err := loadRecord(txn, role, jobID)
		if err != nil {
			return err
		}
		if prev.Rail == "" || prev.ChainOutcome == "" || prev.ChainTx != chainTx {
			return nil
		}
		rec := *prev
		undo := prev.ChainUndo
		if undo == nil {
			undo = inferUndo(prev)
		}
		if err := revertMoney(txn, prev, &rec, undo); err != nil {
			return err
		}
		rec.ChainOutcome, rec.ChainTx, rec.ChainBlock, rec.ChainUndo, rec.ChainFinal = "", "", 0, nil, false
		rec.ChainProvisional, rec.ChainNote, rec.UpdatedAt = true, note, now
		reverted = true
		return saveRecord(txn, prev, &rec)
	})
	if err != nil {
		return false, fmt.Errorf("revert rail outcome of %s %s: %w", role, truncate(jobID), err)
	}
	if reverted {
		e.log.Warn("chain outcome vanished; reverted and re-sending", "job", jobID, "role", role, "tx", chainTx)
		e.notify(ctx, role, jobID)
	}
	return reverted, nil
}

// inferUndo is the undo of an outcome recorded before records kept one.
func inferUndo(r *storedRecord) *chainUndo {
	u := &chainUndo{Kind: undoNothing}
	switch {
	case r.Role == RoleSeller && r.ChainOutcome == RailPaid && r.Reason == ReasonClaimed:
		u.Kind = undoSellerPaidClaim
	case r.Role == RoleSeller && r.ChainOutcome == RailPaid:
		u.Kind = undoSellerPaidRelease
	case r.Role == RoleSeller && r.State == StateDisputed:
		u.Kind = undoSellerCancelDisputed
	case r.Role == RoleBuyer && r.ChainOutcome == RailCancelled:
		u.Kind = undoBuyerCancelConfirmed
	}
	return u
}

// revertMoney moves the account back as undo says and sets rec's state.
func revertMoney(txn *tx, prev, rec *storedRecord, undo *chainUndo) error {
	b, err := loadBalance(txn)
	if err != nil {
		return err
	}
	amt := prev.Amount
	short := func(what string, have int64) error {
		return fmt.Errorf("%w: %s %s is less than the job's %s", ErrInvariant, what, FormatAmount(have), FormatAmount(amt))
	}
	switch undo.Kind {
	case undoNothing:
		return nil
	case undoBuyerRefundOverridden, undoBuyerPaidAfterRefund:
		if b.Paid < amt {
			return short("paid", b.Paid)
		}
		b.Paid -= amt
		if undo.Kind == undoBuyerRefundOverridden {
			b.Held += amt
			rec.RefundPending = true
		} else {
			b.Available += amt
		}
		rec.State, rec.Reason, rec.SettledAt = StateRefunded, undo.Reason, undo.SettledAt
	case undoBuyerCancelConfirmed:
		if b.Available < amt {
			return fmt.Errorf("%w: the refunded %s was spent since (available %s): it cannot be held again", ErrInsufficientFunds, FormatAmount(amt), FormatAmount(b.Available))
		}
		b.Available -= amt
		b.Held += amt
		rec.State, rec.RefundPending = StateRefunded, true
	case undoSellerPaidRelease, undoSellerPaidClaim:
		if b.Withdrawn < amt {
			return short("withdrawn", b.Withdrawn)
		}
		b.Withdrawn -= amt
		if undo.Kind == undoSellerPaidRelease {
			b.Available += amt // earned still: the buyer's release is redeemed again
			break
		}
		if b.Earned < amt {
			return short("earned", b.Earned)
		}
		b.Earned -= amt
		b.Pending += amt
		rec.State, rec.Provisional, rec.Reason = StateReleased, true, ReasonChainVanished
	case undoSellerCancelDisputed:
		b.Pending += amt
		rec.State, rec.Provisional, rec.Reason, rec.SettledAt = StateReleased, true, ReasonChainVanished, undo.SettledAt
	default:
		return fmt.Errorf("%w: unknown chain undo %q", ErrInvariant, undo.Kind)
	}
	return saveBalance(txn, b)
}
