package evm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/swarmwage/swarmwage/escrow"
)

// The background work of a Settler. Every step reads what to do from the
// escrow's records (the rail's open index), so a restart resumes it:
//
//   - reconcile: the escrow's events since the stored cursor, at the
//     confirmation depth. Payments and effective cancels of the node's
//     jobs are applied to the escrow (the chain's outcome wins), deposits
//     and withdrawals of the node are booked, a withdrawal request on a
//     line the node sells to makes it redeem at once.
//   - cancel (buyer): every refunded job whose refund the chain has not
//     confirmed is cancelled on chain, in one transaction per seller,
//     retried until mined (the outbox pattern). A cancel counts only
//     before the job's not-before.
//   - redeem (seller): release vouchers in batches (RedeemBatch, or
//     RedeemInterval after the oldest), and locks of silent buyers (the
//     job delivered, no decision) once their not-before has passed.

// tickEvery is how often the worker looks for work.
const tickEvery = time.Second

// applyConcurrency bounds the payments of one batch booked at once.
const applyConcurrency = 16

func (s *Settler) run() {
	defer s.wg.Done()
	tick := time.NewTicker(min(tickEvery, s.cfg.ReconcileInterval, max(s.cfg.RedeemInterval/4, 50*time.Millisecond)))
	defer tick.Stop()
	var lastReconcile time.Time
	passes := 0
	for {
		force := false
		select {
		case <-s.force:
			force = true
		default:
		}
		if r, err := s.Chain(s.ctx); err != nil {
			s.trouble("reach the chain", err)
		} else {
			if s.down.Load() {
				lastReconcile = time.Time{} // reconcile as soon as it answers
			}
			if time.Since(lastReconcile) >= s.cfg.ReconcileInterval {
				wasDown := s.down.Load()
				seen, ok := s.reconcileOnce(s.ctx, r)
				force = force || seen
				if ok && wasDown {
					s.log.Info("chain reachable again; resuming")
					s.down.Store(false)
				}
				if ok {
					if err := s.watch(s.ctx, r); err != nil && !errors.Is(err, errStopped) {
						s.trouble("check recorded chain outcomes for reorgs", err)
					}
					if passes%sweepEvery == 0 {
						s.sweep(s.ctx, r)
					}
					passes++
				}
				lastReconcile = time.Now()
			}
			s.cancelRefunds(s.ctx, r)
			if _, err := s.redeem(s.ctx, r, force); err != nil {
				s.trouble("redeem vouchers", err)
			}
		}
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		case <-s.kick:
		}
	}
}

// trouble logs a failed step of the background work: a chain that is down
// once until it is back (the worker says when), anything else each time.
func (s *Settler) trouble(what string, err error, kv ...any) {
	if s.ctx.Err() != nil {
		return
	}
	if errors.Is(err, ErrChainDown) {
		if s.down.Swap(true) {
			return
		}
		s.log.Warn("chain unreachable; refunds, redemptions and reconciliation wait for it", append([]any{"while", what, "err", err}, kv...)...)
		return
	}
	s.log.Warn(what, append([]any{"err", err}, kv...)...)
}

// Reconcile runs one reconciliation now (start-up, tests): what the chain
// says since the stored cursor is applied to the escrow.
func (s *Settler) Reconcile(ctx context.Context) error {
	r, err := s.Chain(ctx)
	if err != nil {
		return err
	}
	if s.escrow() == nil {
		return errors.New("evm: reconcile: no escrow attached")
	}
	if _, ok := s.reconcileOnce(ctx, r); !ok {
		return fmt.Errorf("%w: reconcile: the chain's events could not be read (see the log)", escrow.ErrRailUnavailable)
	}
	return nil
}

// reconcileOnce reads and applies the events since the cursor, one pass at
// a time. It reports whether a withdrawal request on a line this node
// sells to was seen, and whether the chain could be read.
func (s *Settler) reconcileOnce(ctx context.Context, r *Rail) (withdrawSeen, ok bool) {
	s.reconcileMu.Lock()
	defer s.reconcileMu.Unlock()
	esc := s.escrow()
	var cur Cursor
	name := s.stateName("cursor")
	if _, err := esc.RailState(ctx, name, &cur); err != nil {
		s.log.Warn("read reconcile cursor", "err", err)
		return false, false
	}
	from := uint64(0)
	if cur.Hash == (common.Hash{}) {
		if cur.Block > 0 {
			from = cur.Block // rewound after a reorg: read again from there
		} else if head, err := r.confirmedHead(ctx); err == nil && head.Number.Uint64() > defaultLookback {
			from = head.Number.Uint64() - defaultLookback
		}
	}
	rep, err := r.Reconcile(ctx, cur, from, r.Address())
	var re *ReorgError
	if errors.As(err, &re) {
		// Deeper than the confirmation depth: read again from well before.
		back := max(re.Block, 64) - 64
		s.log.Warn("chain reorganized under the reconcile cursor; reading again", "from", back, "err", err)
		if err := esc.SetRailState(ctx, name, Cursor{Block: back}); err != nil {
			s.log.Warn("rewind reconcile cursor", "err", err)
		}
		return false, false
	}
	if err != nil {
		s.trouble("reconcile", err)
		return false, false
	}
	if err := s.applyReport(ctx, r, rep); err != nil {
		// Read the range again next time: applying is idempotent.
		s.trouble("reconcile: apply the chain's outcomes", err)
		return false, false
	}
	ok = true
	for _, ev := range rep.Lines {
		if ev.Kind == "withdraw_requested" && ev.Seller == r.Address() && ev.Amount > 0 {
			withdrawSeen = true
			s.log.Info("a buyer asked to withdraw its line to this node: redeeming now, claims before it executes", "buyer", ev.Buyer, "ready_at", time.Unix(int64(ev.ReadyAt), 0).UTC())
		}
	}
	if rep.Next != cur {
		if err := esc.SetRailState(ctx, name, rep.Next); err != nil {
			s.log.Warn("store reconcile cursor", "err", err)
		}
	}
	return withdrawSeen, ok
}

// applyReport applies what Reconcile read. A job event counts only if it
// matches the lock and the chain confirms it (events.go); an error says
// the chain could not be read for some of them: the caller reads the
// range again (applying is idempotent).
func (s *Settler) applyReport(ctx context.Context, r *Rail, rep *Report) error {
	esc := s.escrow()
	self := r.Address()
	var trouble error
	vc := &verifyCache{}
	for _, o := range rep.Jobs {
		if o.Outcome != OutcomeCancelled {
			// The line paid out: a reading from before is too high now
			// that the job leaves the open amounts.
			s.dropLine(o.Buyer, o.Seller, o.Block)
		}
		ref := hexutil.Encode(o.JobID[:])
		recs, err := esc.FindRailJob(ctx, ref)
		if err != nil {
			s.log.Warn("reconcile: find job", "job", ref, "err", err)
			trouble = err
			continue
		}
		for _, rec := range recs {
			if rec.Role == escrow.RoleBuyer && o.Buyer != self || rec.Role == escrow.RoleSeller && o.Seller != self {
				continue
			}
			if rec.ChainOutcome != "" || rec.Lock == nil {
				continue
			}
			if err := s.applyEvent(ctx, r, vc, rec, eventOf(o), o.Tx); err != nil {
				trouble = err
			}
		}
	}
	for _, ev := range rep.Lines {
		if ev.Buyer != self || ev.Amount <= 0 {
			continue
		}
		switch ev.Kind {
		case "deposited", "withdrawn":
			// Money in the ledger only for a log its receipt confirms:
			// a forged Deposited log would credit money the escrow never
			// held.
			v, err := r.receiptHolds(ctx, vc, ev.Tx, fmt.Sprintf("%s event of %s for %s", ev.Kind, escrow.FormatAmount(ev.Amount), ev.Buyer), r.lineEventMatcher(ev))
			if isDisagreement(err) {
				s.log.Warn("chain event not acted on: the chain does not confirm it", "kind", ev.Kind, "tx", ev.Tx.Hex(), "amount", ev.Amount, "err", err)
				s.countDisagreement()
				continue
			}
			if err != nil {
				trouble = fmt.Errorf("verify the %s in %s: %w", ev.Kind, ev.Tx.Hex(), err)
				continue
			}
			if ev.Kind == "deposited" {
				s.bookDeposit(ctx, v.Tx, v.Block, ev.Amount)
			} else {
				s.book(ctx, escrow.RailWithdrawal, s.ref(ev.Tx.Hex(), "withdraw", ev.Seller), ev.Amount, "evm withdrawal "+ev.Tx.Hex())
			}
		case "allocated":
			s.addLineSeller(ctx, ev.Seller)
		}
	}
	return trouble
}

// bookDeposit books a deposit of this node's, watched for a reorg until
// WatchDepth deep (watch.go): the watch entry is stored first, so a crash
// between the two leaves a watched deposit that was never booked
// (harmless), never a booked one that is not watched.
func (s *Settler) bookDeposit(ctx context.Context, tx common.Hash, block uint64, amount int64) {
	ref := s.ref(tx.Hex(), "deposit", common.Address{})
	if err := s.watchDeposit(ctx, depositWatch{Tx: tx, Block: block, Ref: ref, Amount: amount}); err != nil {
		s.log.Error("watch a chain deposit; not booked yet (the next reconcile tries again)", "tx", tx.Hex(), "err", err)
		return
	}
	s.book(ctx, escrow.RailDeposit, ref, amount, "evm deposit "+tx.Hex())
}

// applyEvent applies one job event of the log to rec, only if it matches
// the job's lock and the chain confirms it; a mismatch or a contradiction
// keeps the local decision and is logged and noted on the job. The error
// is chain trouble (read again later).
func (s *Settler) applyEvent(ctx context.Context, r *Rail, vc *verifyCache, rec escrow.Record, ev jobEvent, tx common.Hash) error {
	l, err := s.voucherOf(lockTermsOf(rec.Lock), rec.Lock.RailProof)
	if err != nil {
		s.log.Warn("reconcile: the job's lock voucher", "job", rec.JobID, "err", err)
		return nil
	}
	if err := matchLock(l, ev); err != nil {
		s.disagreed(ctx, rec, fmt.Sprintf("a %s event in transaction %s is not this job's (%v): it changes nothing", ev.Outcome, tx.Hex(), err))
		return nil
	}
	v, err := r.verifyOutcomeWith(ctx, vc, l, ev, tx)
	if isDisagreement(err) {
		s.disagreed(ctx, rec, fmt.Sprintf("a %s event in transaction %s was not confirmed by the chain (%v): kept the local decision", ev.Outcome, tx.Hex(), err))
		return nil
	}
	if err != nil {
		return fmt.Errorf("verify the %s event of %s: %w", ev.Outcome, rec.JobID, err)
	}
	s.applyOutcome(ctx, r, rec, &ev, v, "")
	return nil
}

// applyOutcome applies a verified job event to rec, with note as the
// record's chain_note (empty: none).
func (s *Settler) applyOutcome(ctx context.Context, r *Rail, rec escrow.Record, ev *jobEvent, v verified, note string) {
	o := escrow.RailOutcome{Released: ev.Outcome == OutcomeReleased, Tx: v.Tx.Hex(), Block: v.Block, Note: note}
	switch ev.Outcome {
	case OutcomeReleased, OutcomeClaimed:
		s.applyPaid(ctx, rec, o, time.Time{})
	case OutcomeCancelled:
		s.applyCancelIfEffective(ctx, r, rec, o)
	}
}

// omitted counts and logs the disagreement an outcome's note tells of,
// before the outcome is booked, so that whoever sees the outcome sees
// the count.
func (s *Settler) omitted(rec escrow.Record, o escrow.RailOutcome) {
	if o.Note == "" {
		return
	}
	s.log.Warn("the endpoint left a job's event out: "+o.Note, "job", rec.JobID, "role", rec.Role)
	s.countDisagreement()
}

// disagreed logs a chain answer the node did not act on and notes it on
// the job (its record's chain_note), so the job's view says so.
func (s *Settler) disagreed(ctx context.Context, rec escrow.Record, note string) {
	s.log.Warn("chain event not acted on: "+note, "job", rec.JobID, "role", rec.Role)
	s.countDisagreement() // first: whoever reads the note sees it counted
	if err := s.escrow().NoteRail(ctx, rec.Role, rec.JobID, note); err != nil {
		s.log.Warn("note a chain disagreement on the job", "job", rec.JobID, "err", err)
	}
	s.recheck(ctx, rec)
}

// maxRecheck bounds the jobs kept for the sweep to read again after a
// disagreement (the oldest leave first).
const maxRecheck = 1000

type recheckEntry struct {
	Role  escrow.Role `json:"role"`
	JobID string      `json:"job"`
}

// recheck remembers a job whose chain answer the node did not act on, so
// the sweep reads it on chain again until the node records an outcome:
// also the jobs no longer in the rail's open index (a seller's refunded
// job, whose cancel it records for the ledgers to agree).
func (s *Settler) recheck(ctx context.Context, rec escrow.Record) {
	s.recheckMu.Lock()
	defer s.recheckMu.Unlock()
	var list []recheckEntry
	if _, err := s.escrow().RailState(ctx, s.stateName("recheck"), &list); err != nil {
		return
	}
	e := recheckEntry{Role: rec.Role, JobID: rec.JobID}
	for _, x := range list {
		if x == e {
			return
		}
	}
	list = append(list, e)
	if len(list) > maxRecheck {
		list = list[len(list)-maxRecheck:]
	}
	if err := s.escrow().SetRailState(ctx, s.stateName("recheck"), list); err != nil {
		s.log.Warn("remember a job to read on chain again", "job", rec.JobID, "err", err)
	}
}

// rechecked are the jobs to read again, as records, dropping from the
// list those with an outcome now (or gone).
func (s *Settler) rechecked(ctx context.Context) []escrow.Record {
	s.recheckMu.Lock()
	defer s.recheckMu.Unlock()
	esc := s.escrow()
	var list []recheckEntry
	if _, err := esc.RailState(ctx, s.stateName("recheck"), &list); err != nil || len(list) == 0 {
		return nil
	}
	var keep []recheckEntry
	var out []escrow.Record
	for _, e := range list {
		rec, err := esc.GetRole(ctx, e.JobID, e.Role)
		if err != nil || rec.ChainOutcome != "" || rec.Lock == nil {
			continue
		}
		keep = append(keep, e)
		out = append(out, rec)
	}
	if len(keep) != len(list) {
		if err := esc.SetRailState(ctx, s.stateName("recheck"), keep); err != nil {
			s.log.Warn("forget jobs read on chain again", "err", err)
		}
	}
	return out
}

// resolve reads rec's job on chain and applies the outcome it shows, with
// the event that settled it if one is found (verified): for a job whose
// event the reconcile has passed (a redeem skipped as already paid, a
// refund whose job the chain shows paid, an outcome that vanished and
// came back in another transaction). passed is the block the reconcile
// had read up to (0: not known): an event at or before it was missing
// from the endpoint's eth_getLogs, which is counted and noted on the
// record with the outcome (one write: whoever reads the outcome reads
// the note).
func (s *Settler) resolve(ctx context.Context, r *Rail, rec escrow.Record, passed uint64) error {
	if rec.Lock == nil || rec.ChainOutcome != "" {
		return nil
	}
	l, err := s.voucherOf(lockTermsOf(rec.Lock), rec.Lock.RailProof)
	if err != nil {
		return nil
	}
	state, ev, v, err := r.findOutcome(ctx, l, defaultLookback)
	if err != nil || state == 0 {
		return err
	}
	if ev == nil {
		// The contract's state alone (one eth_call) is not enough to
		// move money: an endpoint that lies about job() would otherwise
		// flip a pending refund to paid or a release to cancelled. The
		// event must be found, in a receipt of a canonical block.
		s.disagreed(ctx, rec, fmt.Sprintf("the contract shows the job %s, but no event of the last %d blocks that the chain confirms says so: kept the local decision", jobStateName(state), defaultLookback))
		return nil
	}
	note := ""
	if v.Block != 0 && v.Block <= passed {
		kind := escrow.RailPaid
		if ev.Outcome == OutcomeCancelled {
			kind = escrow.RailCancelled
		}
		note = fmt.Sprintf("the job's %s in transaction %s (block %d) was missing from the endpoint's eth_getLogs when the reconcile read that block; found by reading the job on chain", kind, v.Tx.Hex(), v.Block)
	}
	s.applyOutcome(ctx, r, rec, ev, v, note)
	return nil
}

// The sweep: the reconcile learns a job's outcome from eth_getLogs, and
// an endpoint that leaves a log out (or whose receipt did not confirm it
// then) would leave the job unsettled for good once the cursor passed
// its block. So every sweepEvery reconcile passes (and at start) the
// worker reads job(buyer, seller, jobId) of the node's jobs the chain
// may have settled (decided, or past their not-before; as a seller also
// the newest jobs the buyer refunded) and applies
// what it finds, verified like any event (resolve). One found in a block
// the reconcile had read already is counted as a disagreement: the
// endpoint's logs left it out.
const (
	sweepEvery = 12  // reconcile passes between sweeps (a minute by default)
	sweepBatch = 100 // jobs read per sweep; the rest wait for the next
)

func (s *Settler) sweep(ctx context.Context, r *Rail) {
	s.reconcileMu.Lock()
	defer s.reconcileMu.Unlock()
	esc := s.escrow()
	now := time.Now()
	var recs []escrow.Record
	for _, role := range []escrow.Role{escrow.RoleBuyer, escrow.RoleSeller} {
		rs, err := esc.RailOpen(ctx, role, func(rec escrow.Record) bool {
			decided := rec.State == escrow.StateReleased || rec.State == escrow.StateRefunded || rec.State == escrow.StateDisputed
			return rec.ChainOutcome == "" && (decided || !rec.NotBefore.IsZero() && now.After(rec.NotBefore)) &&
				!rec.RefundPending // the cancel work reads those every pass
		})
		if err != nil {
			s.log.Warn("sweep: list the open jobs", "role", role, "err", err)
			return
		}
		recs = append(recs, rs...)
	}
	// A seller's job the buyer refunded leaves the rail's open index (the
	// seller never claims it), so its cancel is learnt from the
	// reconcile's logs alone: an endpoint that left the Cancelled log out
	// would leave it without a chain outcome for good. The newest of
	// those are read on chain too.
	for _, st := range []escrow.State{escrow.StateDisputed, escrow.StateRefunded} {
		rs, err := esc.List(ctx, escrow.Filter{Role: escrow.RoleSeller, State: st, Limit: sweepBatch})
		if err != nil {
			s.log.Warn("sweep: list the refunded jobs", "err", err)
			return
		}
		for _, rec := range rs {
			if rec.Rail == escrow.RailEVM && rec.ChainOutcome == "" && rec.Lock != nil {
				recs = append(recs, rec)
			}
		}
	}
	seen := map[string]bool{}
	for _, rec := range recs {
		seen[string(rec.Role)+"/"+rec.JobID] = true
	}
	for _, rec := range s.rechecked(ctx) {
		if !seen[string(rec.Role)+"/"+rec.JobID] {
			recs = append(recs, rec)
		}
	}
	var cur Cursor
	if _, err := esc.RailState(ctx, s.stateName("cursor"), &cur); err != nil {
		return
	}
	n := 0
	for _, rec := range recs {
		if rec.Lock == nil || !s.due("sweep/"+rec.JobID) {
			continue
		}
		if n++; n > sweepBatch {
			return
		}
		if err := s.resolve(ctx, r, rec, cur.Block); err != nil {
			s.trouble("sweep: read the job on chain", err, "job", rec.JobID)
			return
		}
	}
}

// ref names a deposit or withdrawal for BookRail.
func (s *Settler) ref(tx, kind string, seller common.Address) string {
	return "evm:" + s.cfg.Escrow.Hex() + ":" + tx + ":" + kind + ":" + seller.Hex()
}

func (s *Settler) book(ctx context.Context, kind, ref string, amount int64, memo string) {
	if _, err := s.escrow().BookRail(ctx, escrow.RailEntry{Kind: kind, Ref: ref, Amount: amount, Memo: memo}); err != nil {
		s.log.Error("book a chain "+kind+" in the ledger", "ref", ref, "amount", amount, "err", err)
	}
}

// applyOwnPaid books a payment of this node's redeem batch: the batch's
// Paid event must match the job's lock, and the contract must show the
// job paid at the confirmed head (the seller re-reads job(buyer, seller,
// jobId) before it stops redeeming).
func (s *Settler) applyOwnPaid(ctx context.Context, r *Rail, p pendingVoucher, got *Redeemed, paidAt time.Time) {
	l, err := s.voucherOf(lockTermsOf(p.rec.Lock), p.rec.Lock.RailProof)
	if err != nil {
		return
	}
	ev, ok := got.paidEvent(l.JobID, l.Buyer)
	if !ok {
		s.disagreed(ctx, p.rec, fmt.Sprintf("redeem transaction %s paid the job's ID but not from the lock's buyer %s", got.Tx.Hash.Hex(), l.Buyer))
		return
	}
	if err := matchLock(l, ev); err != nil {
		s.disagreed(ctx, p.rec, fmt.Sprintf("redeem transaction %s: %v", got.Tx.Hash.Hex(), err))
		return
	}
	call, head, err := r.confirmedCall(ctx)
	if err != nil {
		s.trouble("redeem: read the job on chain", err, "job", p.rec.JobID)
		return // the reconcile applies it
	}
	j, err := r.esc.Job(call, l.Buyer, l.Seller, l.JobID)
	if err != nil {
		s.trouble("redeem: read the job on chain", classify("job", err, r.abis...), "job", p.rec.JobID)
		return
	}
	if j.State != 1 {
		s.disagreed(ctx, p.rec, fmt.Sprintf("redeem transaction %s paid the job, but the contract shows it %s at block %d", got.Tx.Hash.Hex(), jobStateName(j.State), head.Number.Uint64()))
		return
	}
	s.applyPaid(ctx, p.rec, escrow.RailOutcome{Released: p.v.Release != nil, Tx: got.Tx.Hash.Hex(), Block: got.Tx.Block}, paidAt)
}

// applyPaid books a payment of rec's job (o's kind is set here). paidAt,
// when not zero, is when this node's own redeem put the money in its
// address (for Stats; a payment only the reconcile sees is not timed, nor
// counted twice).
func (s *Settler) applyPaid(ctx context.Context, rec escrow.Record, o escrow.RailOutcome, paidAt time.Time) {
	if rec.ChainOutcome != "" {
		return
	}
	o.Kind = escrow.RailPaid
	s.omitted(rec, o)
	if err := s.escrow().ApplyRailOutcome(ctx, rec.Role, rec.JobID, o); err != nil {
		s.log.Error("apply a chain payment", "job", rec.JobID, "role", rec.Role, "err", err)
		return
	}
	if rec.Role == escrow.RoleSeller && o.Released && !rec.SettledAt.IsZero() && !paidAt.IsZero() {
		s.statsMu.Lock()
		s.stats.ReleaseToPaid = append(s.stats.ReleaseToPaid, paidAt.Sub(rec.SettledAt))
		s.statsMu.Unlock()
	}
}

// applyCancelIfEffective reads the job's state on chain and applies a
// cancel (o, its kind set here) that came before the lock's not-before; a
// later cancel changes nothing (the seller may still claim).
func (s *Settler) applyCancelIfEffective(ctx context.Context, r *Rail, rec escrow.Record, o escrow.RailOutcome) {
	if rec.ChainOutcome != "" || rec.Lock == nil {
		return
	}
	l, err := s.voucherOf(lockTermsOf(rec.Lock), rec.Lock.RailProof)
	if err != nil {
		s.log.Warn("reconcile: the job's lock voucher", "job", rec.JobID, "err", err)
		return
	}
	call, _, err := r.confirmedCall(ctx)
	if err != nil {
		return
	}
	j, err := r.esc.Job(call, l.Buyer, l.Seller, l.JobID)
	if err != nil {
		s.log.Warn("reconcile: read the job on chain", "job", rec.JobID, "err", classify("job", err, r.abis...))
		return
	}
	switch {
	case j.State == 2 && j.CancelledAt < l.NotBefore:
		o.Kind = escrow.RailCancelled
		s.omitted(rec, o)
		if err := s.escrow().ApplyRailOutcome(ctx, rec.Role, rec.JobID, o); err != nil {
			s.log.Error("apply a chain cancel", "job", rec.JobID, "role", rec.Role, "err", err)
		}
	case j.State == 2:
		s.log.Warn("the job's cancel came after its not-before: the seller may still claim it", "job", rec.JobID, "cancelled_at", j.CancelledAt, "not_before", l.NotBefore)
	}
}

func lockTermsOf(l *escrow.Lock) escrow.LockTerms {
	return escrow.LockTerms{
		JobID: l.JobID, Buyer: l.Buyer, Seller: l.Seller, BuyerAddress: l.BuyerAddress, SellerAddress: l.SellerAddress,
		Amount: l.Amount, Deadline: l.Deadline, Window: l.Window, NotBefore: l.NotBefore,
	}
}

// due reports whether key's backoff allows a try now.
func (s *Settler) due(key string) bool {
	s.backoffMu.Lock()
	defer s.backoffMu.Unlock()
	t, ok := s.backoff[key]
	if ok && !time.Now().Before(t) {
		delete(s.backoff, key)
	}
	return !ok || !time.Now().Before(t)
}

func (s *Settler) wait(key string, d time.Duration) {
	s.backoffMu.Lock()
	defer s.backoffMu.Unlock()
	s.backoff[key] = time.Now().Add(d)
}

// cancelRefunds cancels on chain every refunded job whose cancel the chain
// has not confirmed.
func (s *Settler) cancelRefunds(ctx context.Context, r *Rail) {
	s.cancelMu.Lock()
	defer s.cancelMu.Unlock()
	recs, err := s.escrow().RailOpen(ctx, escrow.RoleBuyer, func(r escrow.Record) bool {
		return r.State == escrow.StateRefunded && r.RefundPending
	})
	if err != nil {
		s.log.Warn("list refunds to cancel", "err", err)
		return
	}
	bySeller := map[common.Address][]escrow.Record{}
	for _, rec := range recs {
		if rec.State != escrow.StateRefunded || !rec.RefundPending || rec.Lock == nil || !s.due("cancel/"+rec.JobID) {
			continue
		}
		seller := common.HexToAddress(rec.Lock.SellerAddress)
		bySeller[seller] = append(bySeller[seller], rec)
	}
	for seller, recs := range bySeller {
		for len(recs) > 0 {
			n := min(len(recs), maxCancelBatch)
			s.cancelBatch(ctx, r, seller, recs[:n])
			recs = recs[n:]
		}
	}
}

func (s *Settler) cancelBatch(ctx context.Context, r *Rail, seller common.Address, recs []escrow.Record) {
	var ids [][32]byte
	var todo []escrow.Record
	call, _, err := r.confirmedCall(ctx)
	if err != nil {
		return
	}
	for _, rec := range recs {
		l, err := s.voucherOf(lockTermsOf(rec.Lock), rec.Lock.RailProof)
		if err != nil {
			s.log.Warn("refund: the job's lock voucher", "job", rec.JobID, "err", err)
			s.wait("cancel/"+rec.JobID, time.Hour)
			continue
		}
		j, err := r.esc.Job(call, l.Buyer, l.Seller, l.JobID)
		if err != nil {
			return
		}
		beforeNotBefore := uint64(time.Now().Unix()) < l.NotBefore
		switch {
		case j.State != 0:
			// Settled on chain: find the event that settled it and apply
			// it (the refund stays pending until the chain's own outcome,
			// confirmed by its receipt, is applied).
			if err := s.resolve(ctx, r, rec, 0); err != nil {
				s.trouble("refund: find the job's outcome on chain", err, "job", rec.JobID)
			}
			now, err := s.escrow().GetRole(ctx, rec.JobID, rec.Role)
			if err != nil || !now.RefundPending || !beforeNotBefore {
				s.wait("cancel/"+rec.JobID, 10*time.Second)
				continue
			}
			// No event the chain confirms says so: the job() answer alone
			// (an endpoint that lies about it) must not keep the cancel
			// from going out before the not-before, after which it no
			// longer counts. The contract skips a job that is not open, so
			// a cancel of one the chain really settled changes nothing.
			s.log.Warn("refund: the endpoint says the job is settled but the chain confirms no event of it; cancelling anyway", "job", rec.JobID, "state", jobStateName(j.State))
		case !beforeNotBefore:
			s.log.Warn("refund not cancelled on chain before the job's not-before: the seller may claim it", "job", rec.JobID)
			s.wait("cancel/"+rec.JobID, 10*time.Minute)
			continue
		}
		ids = append(ids, l.JobID)
		todo = append(todo, rec)
	}
	if len(ids) == 0 {
		return
	}
	res, err := r.Cancel(ctx, seller, ids...)
	s.countTx("cancel", res)
	if err != nil {
		s.trouble("cancel refunded jobs on chain; retrying", err, "jobs", len(ids), "seller", seller)
		for _, rec := range todo {
			s.wait("cancel/"+rec.JobID, 5*time.Second)
		}
		return
	}
	s.dropLine(r.Address(), seller, blockOf(res))
	for _, rec := range todo {
		l, err := s.voucherOf(lockTermsOf(rec.Lock), rec.Lock.RailProof)
		if err != nil {
			continue
		}
		// The cancel names its transaction only if that transaction's
		// receipt holds the job's Cancelled event (an earlier cancel may
		// have cancelled it): a reorg watch checks what it names.
		// One whose receipt does not hold it (an earlier cancel did it, or
		// the endpoint's receipt lies) is left to the next pass, which
		// finds the event that cancelled the job (resolve).
		v, err := r.verifyOutcome(ctx, l, jobEvent{Outcome: OutcomeCancelled, JobID: l.JobID, Buyer: l.Buyer, Seller: l.Seller}, res.Hash)
		if err != nil {
			if isDisagreement(err) {
				s.disagreed(ctx, rec, fmt.Sprintf("the cancel in transaction %s was not confirmed by its receipt (%v): looking for the job's outcome on chain", res.Hash.Hex(), err))
			}
			continue
		}
		s.applyCancelIfEffective(ctx, r, rec, escrow.RailOutcome{Tx: v.Tx.Hex(), Block: v.Block})
	}
}

// Redeemed vouchers of one redeem pass.
type redeemResult struct {
	Paid  int64
	Count int
}

// redeem redeems the node's queued release vouchers when a batch is due
// (full, old enough, or forced) and claims the locks of silent buyers past
// their not-before.
func (s *Settler) redeem(ctx context.Context, r *Rail, force bool) (redeemResult, error) {
	s.redeemMu.Lock() // one pass at a time: the worker's, or a withdrawal's
	defer s.redeemMu.Unlock()
	now := time.Now()
	claimable := func(r escrow.Record) bool {
		return (r.State == escrow.StateDelivered || r.State == escrow.StateReleased && r.Provisional) &&
			!now.Before(r.NotBefore.Add(claimMargin))
	}
	releasable := func(r escrow.Record) bool { return r.State == escrow.StateReleased && !r.Provisional }
	// First a look without the signed messages: is a batch due?
	queued, claims0, oldest0 := 0, 0, now
	if _, err := s.escrow().RailOpen(ctx, escrow.RoleSeller, func(r escrow.Record) bool {
		switch {
		case releasable(r):
			queued++
			if r.SettledAt.Before(oldest0) {
				oldest0 = r.SettledAt
			}
			// A payout that vanished in a reorg was due already: again now.
			force = force || r.ChainProvisional
		case claimable(r):
			claims0++
		}
		return false
	}); err != nil {
		return redeemResult{}, err
	}
	if !force && queued < s.cfg.RedeemBatch && (queued == 0 || now.Sub(oldest0) < s.cfg.RedeemInterval) && claims0 == 0 {
		return redeemResult{}, nil
	}
	recs, err := s.escrow().RailOpen(ctx, escrow.RoleSeller, func(r escrow.Record) bool { return releasable(r) || claimable(r) })
	if err != nil {
		return redeemResult{}, err
	}
	var releases, claims []pendingVoucher
	oldest := now
	for _, rec := range recs {
		if rec.Lock == nil || !s.due("redeem/"+rec.JobID) {
			continue
		}
		switch {
		case rec.State == escrow.StateReleased && !rec.Provisional:
			if rec.Settle == nil || rec.Settle.Decision != escrow.DecisionRelease || len(rec.Settle.RailProof) == 0 {
				continue // released by a claim in flight: the reconcile finishes it
			}
			var rel Release
			if err := json.Unmarshal(rec.Settle.RailProof, &rel); err != nil {
				s.wait("redeem/"+rec.JobID, time.Hour)
				continue
			}
			releases = append(releases, pendingVoucher{rec: rec, v: Voucher{Release: &rel}})
			if rec.SettledAt.Before(oldest) {
				oldest = rec.SettledAt
			}
		case rec.State == escrow.StateDelivered || rec.State == escrow.StateReleased && rec.Provisional:
			l, err := s.voucherOf(lockTermsOf(rec.Lock), rec.Lock.RailProof)
			if err != nil {
				s.wait("redeem/"+rec.JobID, time.Hour)
				continue
			}
			if now.Before(time.Unix(int64(l.NotBefore), 0).Add(claimMargin)) {
				continue
			}
			claims = append(claims, pendingVoucher{rec: rec, v: Voucher{Lock: l}})
		}
	}
	due := force || len(releases) >= s.cfg.RedeemBatch || len(releases) > 0 && now.Sub(oldest) >= s.cfg.RedeemInterval || len(claims) > 0
	if !due || len(releases)+len(claims) == 0 {
		return redeemResult{}, nil
	}
	all := append(releases, claims...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].rec.SettledAt.Before(all[j].rec.SettledAt) })
	var out redeemResult
	for len(all) > 0 {
		n := min(len(all), s.cfg.RedeemBatch)
		got, err := s.redeemBatch(ctx, r, all[:n])
		out.Paid += got.Paid
		out.Count += got.Count
		if err != nil {
			return out, err
		}
		all = all[n:]
	}
	return out, nil
}

type pendingVoucher struct {
	rec escrow.Record
	v   Voucher
}

func (s *Settler) redeemBatch(ctx context.Context, r *Rail, batch []pendingVoucher) (redeemResult, error) {
	vs := make([]Voucher, len(batch))
	for i, p := range batch {
		vs[i] = p.v
	}
	got, err := r.Redeem(ctx, vs)
	if got != nil {
		s.countTx("redeem", got.Tx)
	}
	if err != nil {
		for _, p := range batch {
			s.wait("redeem/"+p.rec.JobID, 5*time.Second)
		}
		return redeemResult{}, fmt.Errorf("redeem %d vouchers: %w", len(vs), err)
	}
	paidBy := map[common.Address]int64{}
	for _, p := range batch {
		b := common.HexToAddress(p.rec.Lock.BuyerAddress)
		if _, ok := got.Paid[p.v.jobID()]; ok {
			paidBy[b] += p.rec.Amount
		} else if _, seen := paidBy[b]; !seen {
			paidBy[b] = 0 // its line is read again all the same
		}
	}
	for b, amt := range paidBy {
		s.setPendingPaid(b, paidNotBooked{block: blockOf(got.Tx), amount: amt})
		s.dropLine(b, r.Address(), blockOf(got.Tx))
	}
	defer func() {
		for b := range paidBy {
			s.setPendingPaid(b, paidNotBooked{})
		}
	}()
	out := redeemResult{Paid: got.Total, Count: len(got.Paid)}
	paidAt := time.Now()
	// The payments are booked side by side: the escrow commits concurrent
	// changes together, one fsync for many.
	var wg sync.WaitGroup
	sem := make(chan struct{}, applyConcurrency)
	for _, p := range batch {
		if _, ok := got.Paid[p.v.jobID()]; ok {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				s.applyOwnPaid(ctx, r, p, got, paidAt)
			}()
		}
	}
	wg.Wait()
	s.statsMu.Lock()
	s.stats.Batches++
	s.stats.Redeemed += len(got.Paid) // once booked, so a reader of Stats sees both
	s.statsMu.Unlock()
	for _, p := range batch {
		id := p.v.jobID()
		if _, ok := got.Paid[id]; ok {
			continue
		}
		reason, skipped := got.Skipped[id]
		switch {
		case !skipped:
			// The receipt says the voucher neither paid nor was skipped:
			// the endpoint's receipt is not the contract's (which does one
			// or the other). Not sent again at once: the job's outcome is
			// read on chain (the sweep), and the voucher retried later.
			s.disagreed(ctx, p.rec, fmt.Sprintf("redeem transaction %s neither paid nor skipped the voucher, by the endpoint's receipt", got.Tx.Hash.Hex()))
			s.wait("redeem/"+p.rec.JobID, 10*time.Second)
		case reason == SkipCancelled:
			// The buyer cancelled before the not-before: the chain's
			// outcome, once its own transaction is found and confirmed.
			if err := s.resolve(ctx, r, p.rec, 0); err != nil {
				s.trouble("redeem: find the job's cancel on chain", err, "job", p.rec.JobID)
			}
			s.wait("redeem/"+p.rec.JobID, time.Minute)
		case reason == SkipAlreadyPaid:
			// Paid before, by this voucher or the lock: the seller stops
			// redeeming only once it found the payment on chain.
			if err := s.resolve(ctx, r, p.rec, 0); err != nil {
				s.trouble("redeem: find the job's payment on chain", err, "job", p.rec.JobID)
			}
			s.wait("redeem/"+p.rec.JobID, time.Minute)
		case reason == SkipTooEarly:
			s.wait("redeem/"+p.rec.JobID, 5*time.Second)
		case reason == SkipNotCovered:
			// The buyer's line may be allocated again (after a reorg took
			// its allocation): try again soon.
			s.log.Warn("voucher not paid", "job", p.rec.JobID, "buyer", p.rec.Lock.BuyerAddress, "reason", SkipReason(reason))
			s.wait("redeem/"+p.rec.JobID, 10*time.Second)
		default:
			s.log.Warn("voucher not paid", "job", p.rec.JobID, "buyer", p.rec.Lock.BuyerAddress, "reason", SkipReason(reason))
			s.wait("redeem/"+p.rec.JobID, time.Minute)
		}
	}
	return out, nil
}

// ---- lines the node funded ----------------------------------------------------

func (s *Settler) addLineSeller(ctx context.Context, seller common.Address) {
	esc := s.escrow()
	if esc == nil {
		return
	}
	sellers, err := s.lineSellers(ctx)
	if err != nil {
		return
	}
	for _, a := range sellers {
		if a == seller {
			return
		}
	}
	sellers = append(sellers, seller)
	if err := esc.SetRailState(ctx, s.stateName("lines"), sellers); err != nil {
		s.log.Warn("remember a funded line", "seller", seller, "err", err)
	}
}

// lineSellers are the sellers the node has allocated lines to.
func (s *Settler) lineSellers(ctx context.Context) ([]common.Address, error) {
	var out []common.Address
	if _, err := s.escrow().RailState(ctx, s.stateName("lines"), &out); err != nil {
		return nil, err
	}
	return out, nil
}
