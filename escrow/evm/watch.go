package evm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/failpoint"
)

// Reorgs deeper than the confirmation depth. A chain outcome the node
// recorded (a payout, a cancel) and an allocation it made are final only
// once they are WatchDepth blocks deep and still canonical. Until then
// every reconcile pass checks them against the canonical chain: the
// transaction's receipt still exists in a canonical block, or, for an
// outcome recorded without its transaction, job(buyer, seller, jobId)
// still shows it. One that vanished is re-sent:
//
//   - the escrow reverts the outcome (escrow.RevertRailOutcome: the job is
//     chain_provisional and open on the rail again, the account moved
//     back), after the reconcile cursor is rewound to before its block;
//   - a seller's release voucher is queued for redeem again, a claimed
//     lock is claimed again (a provisional release: the seller claims with
//     its lock voucher after not_before unless the buyer releases again),
//     a buyer's cancel is sent again (the refund pending again);
//   - a vanished allocation is made again for what the buyer's open locks
//     with that seller need.
//
// Each step is durable before the next (cursor, then revert), and the
// watch entries live in the escrow's Badger records, so a crash at any
// point converges: the next pass finds the entry again.

// DefaultWatchDepth is how many blocks past its block a recorded chain
// outcome or allocation is checked for a reorg before it counts as final.
const DefaultWatchDepth = 64

// watchPage bounds the watched records read at once.
const watchPage = 500

// allocWatch is one allocation of this node the watch checks.
type allocWatch struct {
	Tx     common.Hash    `json:"tx"`
	Block  uint64         `json:"block"`
	Seller common.Address `json:"seller"`
	Amount int64          `json:"amount"`
}

// txState is what the canonical chain says of one transaction.
type txState int

const (
	txCanonical txState = iota // mined in a canonical block at the confirmation depth
	txShallow                  // mined, not at the confirmation depth (again): wait
	txGone                     // no receipt, a replaced block, or reverted
)

// errStopped: a test hook stopped the watch at a step (a crash).
var errStopped = errors.New("evm: stopped at a test hook")

// hooked reports whether a test hook stops the work at point (as a crash
// would). Also a failpoint for the fault suite: evm/<point>.
func (s *Settler) hooked(point string) bool {
	failpoint.Inject("evm/" + point)
	return s.hook != nil && s.hook(point)
}

// Watch checks once every recorded chain outcome and allocation that is
// not final yet against the canonical chain and re-sends those that
// vanished (start-up, tests; the worker does it after each reconcile).
func (s *Settler) Watch(ctx context.Context) error {
	r, err := s.Chain(ctx)
	if err != nil {
		return err
	}
	if s.escrow() == nil {
		return errors.New("evm: watch: no escrow attached")
	}
	return s.watch(ctx, r)
}

func (s *Settler) watch(ctx context.Context, r *Rail) error {
	s.reconcileMu.Lock() // the cursor and the outcomes: not under a reconcile
	defer s.reconcileMu.Unlock()
	head, err := r.confirmedHead(ctx)
	if err != nil {
		return err
	}
	w := &watchPass{s: s, r: r, head: head, txs: map[common.Hash]txWatch{}}
	var after *escrow.Position
	for {
		recs, err := s.escrow().RailWatched(ctx, after, watchPage)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			if err := w.check(ctx, rec); err != nil {
				return err
			}
		}
		if len(recs) < watchPage {
			break
		}
		last := recs[len(recs)-1]
		after = &escrow.Position{JobID: last.JobID, Role: last.Role}
	}
	if err := w.allocations(ctx); err != nil {
		return err
	}
	if err := w.deposits(ctx); err != nil {
		return err
	}
	if w.reorged {
		// A reorg took something of this node's: every line it funds
		// must still cover its open locks there.
		sellers, err := s.lineSellers(ctx)
		if err != nil {
			return err
		}
		for _, seller := range sellers {
			if _, err := s.reallocate(ctx, r, seller); err != nil {
				s.trouble("cover the open locks of a line after a reorg", err, "seller", seller)
			}
		}
	}
	return nil
}

type watchPass struct {
	s       *Settler
	r       *Rail
	head    *types.Header
	txs     map[common.Hash]txWatch
	reorged bool // something of this node's vanished in this pass
}

type txWatch struct {
	state txState
	block uint64
}

// tx reads what the canonical chain says of tx, once per pass.
func (w *watchPass) tx(ctx context.Context, tx common.Hash) (txWatch, error) {
	if got, ok := w.txs[tx]; ok {
		return got, nil
	}
	got, err := w.r.txState(ctx, w.head, tx)
	if err != nil {
		return txWatch{}, err
	}
	w.txs[tx] = got
	return got, nil
}

// txState reads tx's receipt and block against head (the confirmed head).
func (r *Rail) txState(ctx context.Context, head *types.Header, tx common.Hash) (txWatch, error) {
	rc, err := r.eth.TransactionReceipt(ctx, tx)
	if errors.Is(err, ethereum.NotFound) {
		return txWatch{state: txGone}, nil
	}
	if err != nil {
		return txWatch{}, classify("receipt of "+tx.Hex(), err)
	}
	if rc.BlockNumber == nil {
		return txWatch{state: txGone}, nil
	}
	n := rc.BlockNumber.Uint64()
	if n > head.Number.Uint64() {
		return txWatch{state: txShallow, block: n}, nil
	}
	h, err := r.eth.HeaderByNumber(ctx, rc.BlockNumber)
	if err != nil {
		return txWatch{}, classify(fmt.Sprintf("header %d", n), err)
	}
	if h.Hash() != rc.BlockHash || rc.Status != types.ReceiptStatusSuccessful {
		return txWatch{state: txGone, block: n}, nil
	}
	return txWatch{state: txCanonical, block: n}, nil
}

func (w *watchPass) deep(block uint64) bool {
	return block+w.s.cfg.WatchDepth <= w.head.Number.Uint64()
}

// check checks one watched record.
func (w *watchPass) check(ctx context.Context, rec escrow.Record) error {
	s := w.s
	if rec.ChainTx != "" {
		tx := common.HexToHash(rec.ChainTx)
		st, err := w.tx(ctx, tx)
		if err != nil {
			return err
		}
		switch st.state {
		case txShallow:
			return nil
		case txCanonical:
			if w.deep(st.block) {
				return s.escrow().RailFinal(ctx, rec.Role, rec.JobID, rec.ChainTx)
			}
			return nil
		}
		w.reorged = true
		return s.vanished(ctx, w.r, rec, fmt.Sprintf("the chain's %s in transaction %s (block %d) vanished in a reorg: re-sent; provisional until the chain shows an outcome again", rec.ChainOutcome, rec.ChainTx, rec.ChainBlock))
	}
	// Recorded without its transaction: the contract's state is the word.
	if rec.Lock == nil {
		return nil
	}
	l, err := s.voucherOf(lockTermsOf(rec.Lock), rec.Lock.RailProof)
	if err != nil {
		return nil
	}
	j, err := w.r.esc.Job(&bind.CallOpts{Context: ctx, BlockHash: w.head.Hash()}, l.Buyer, l.Seller, l.JobID)
	if err != nil {
		return classify("read the job on chain", err, w.r.abis...)
	}
	want := uint8(1)
	if rec.ChainOutcome == escrow.RailCancelled {
		want = 2
	}
	if j.State == want {
		k := string(rec.Role) + "/" + rec.JobID
		s.watchMu.Lock()
		seen, ok := s.watchSeen[k]
		if !ok {
			s.watchSeen[k] = w.head.Number.Uint64()
			seen = w.head.Number.Uint64()
		}
		s.watchMu.Unlock()
		if w.deep(seen) {
			if err := s.escrow().RailFinal(ctx, rec.Role, rec.JobID, ""); err != nil {
				return err
			}
			s.watchMu.Lock()
			delete(s.watchSeen, k)
			s.watchMu.Unlock()
		}
		return nil
	}
	w.reorged = true
	return s.vanished(ctx, w.r, rec, fmt.Sprintf("the chain's %s vanished in a reorg (the contract shows the job %s): re-sent; provisional until the chain shows an outcome again", rec.ChainOutcome, jobStateName(j.State)))
}

// vanished re-sends a recorded outcome the canonical chain no longer
// shows: the reconcile cursor goes back to before its block, the escrow
// reverts it (the job open on the rail again), and the chain is asked
// whether another transaction settled the job meanwhile; if not, the
// worker re-sends (redeem, claim, cancel) on its next pass.
func (s *Settler) vanished(ctx context.Context, r *Rail, rec escrow.Record, note string) error {
	if s.hooked("after-vanished") {
		return errStopped
	}
	if err := s.rewindCursor(ctx, rec.ChainBlock); err != nil {
		return err
	}
	if s.hooked("after-rewind") {
		return errStopped
	}
	esc := s.escrow()
	reverted, err := esc.RevertRailOutcome(ctx, rec.Role, rec.JobID, rec.ChainTx, note)
	if errors.Is(err, escrow.ErrInsufficientFunds) {
		// The refunded money was spent since: the ledger cannot hold it
		// again, but the cancel is sent again all the same.
		s.log.Error("a confirmed cancel vanished in a reorg and its refund was spent since: sending the cancel again", "job", rec.JobID, "err", err)
		s.recancel(ctx, r, rec)
		return nil
	}
	if err != nil {
		return err
	}
	if !reverted {
		return nil
	}
	s.statsMu.Lock()
	s.stats.Vanished++
	s.statsMu.Unlock()
	s.log.Warn("chain outcome vanished in a reorg: re-sending", "job", rec.JobID, "role", rec.Role, "outcome", rec.ChainOutcome, "tx", rec.ChainTx, "block", rec.ChainBlock)
	if s.hooked("after-revert") {
		return errStopped
	}
	now, err := esc.GetRole(ctx, rec.JobID, rec.Role)
	if err != nil {
		return err
	}
	if err := s.resolve(ctx, r, now, 0); err != nil {
		s.trouble("find the job's outcome on chain", err, "job", rec.JobID)
	}
	s.RedeemSoon()
	return nil
}

// recancel sends the cancel of a buyer's job again, once, outside the
// refund index (its record could not be made pending again).
func (s *Settler) recancel(ctx context.Context, r *Rail, rec escrow.Record) {
	if rec.Role != escrow.RoleBuyer || rec.Lock == nil || !s.due("recancel/"+rec.JobID) {
		return
	}
	l, err := s.voucherOf(lockTermsOf(rec.Lock), rec.Lock.RailProof)
	if err != nil {
		return
	}
	res, err := r.Cancel(ctx, l.Seller, l.JobID)
	s.countTx("cancel", res)
	if err != nil {
		s.trouble("cancel a job again after a reorg", err, "job", rec.JobID)
		s.wait("recancel/"+rec.JobID, 5*cancelRetry)
		return
	}
	s.wait("recancel/"+rec.JobID, cancelRetry)
}

// cancelRetry is the least time between two re-sent cancels of a job.
const cancelRetry = 10 * time.Second

// rewindCursor moves the reconcile cursor to before block, so the next
// reconcile reads the canonical chain from there again (block 0: unknown,
// nothing moves).
func (s *Settler) rewindCursor(ctx context.Context, block uint64) error {
	if block == 0 {
		return nil
	}
	esc := s.escrow()
	name := s.stateName("cursor")
	var cur Cursor
	if _, err := esc.RailState(ctx, name, &cur); err != nil {
		return err
	}
	back := block - 1
	if cur.Block == 0 && cur.Hash == (common.Hash{}) || cur.Block <= back {
		return nil // no cursor yet (the first reconcile reads the lookback), or not past the block
	}
	return esc.SetRailState(ctx, name, Cursor{Block: back})
}

// ---- allocations ----------------------------------------------------------

// watchAlloc remembers an allocation of this node, so the watch re-makes
// it if a reorg takes it away.
func (s *Settler) watchAlloc(ctx context.Context, seller common.Address, amount int64, res *TxResult) {
	if res == nil {
		return
	}
	s.addAllocWatches(ctx, allocWatch{Tx: res.Hash, Block: res.Block, Seller: seller, Amount: amount})
}

// addAllocWatches adds ws to the watched allocations. allocMu is the
// innermost lock: it is taken under a seller's lock (coverLine), never
// the other way round.
func (s *Settler) addAllocWatches(ctx context.Context, ws ...allocWatch) {
	if len(ws) == 0 {
		return
	}
	s.allocMu.Lock()
	defer s.allocMu.Unlock()
	var list []allocWatch
	if _, err := s.escrow().RailState(ctx, s.stateName("allocs"), &list); err != nil {
		s.log.Warn("read watched allocations", "err", err)
		return
	}
	list = append(list, ws...)
	if err := s.escrow().SetRailState(ctx, s.stateName("allocs"), list); err != nil {
		s.log.Warn("store a watched allocation", "err", err)
	}
}

// allocations checks the node's allocations that are not final yet; one
// that vanished is made again for what the open locks with its seller
// need (the line as the canonical chain has it now).
func (w *watchPass) allocations(ctx context.Context) error {
	s := w.s
	vanished, err := w.vanishedAllocations(ctx)
	if err != nil || len(vanished) == 0 {
		return err
	}
	w.reorged = true
	if s.hooked("after-vanished-allocation") {
		// Crash here: the vanished entries are out of the list, so put
		// them back first, as a restart must find them.
		s.addAllocWatches(ctx, vanished...)
		return errStopped
	}
	// reallocate takes the seller's lock, which is taken before allocMu
	// elsewhere (coverLine): so allocMu is not held here.
	var again []allocWatch
	for _, a := range vanished {
		res, err := s.reallocate(ctx, w.r, a.Seller)
		if err != nil {
			s.trouble("allocate again after a reorg took an allocation", err, "seller", a.Seller, "tx", a.Tx)
			again = append(again, a) // try again next pass
			continue
		}
		s.statsMu.Lock()
		s.stats.Vanished++
		s.statsMu.Unlock()
		s.log.Warn("an allocation vanished in a reorg: allocated again", "seller", a.Seller, "tx", a.Tx, "amount", a.Amount)
		if res != nil {
			again = append(again, allocWatch{Tx: res.Hash, Block: res.Block, Seller: a.Seller, Amount: a.Amount})
		}
	}
	s.addAllocWatches(ctx, again...)
	return nil
}

// vanishedAllocations drops the final and the vanished allocations from
// the watched list, under allocMu, and returns the vanished ones.
func (w *watchPass) vanishedAllocations(ctx context.Context) ([]allocWatch, error) {
	s := w.s
	s.allocMu.Lock()
	defer s.allocMu.Unlock()
	var list []allocWatch
	if _, err := s.escrow().RailState(ctx, s.stateName("allocs"), &list); err != nil || len(list) == 0 {
		return nil, err
	}
	keep := list[:0:0]
	var vanished []allocWatch
	for _, a := range list {
		st, err := w.tx(ctx, a.Tx)
		if err != nil {
			return nil, err
		}
		switch {
		case st.state == txShallow, st.state == txCanonical && !w.deep(st.block):
			keep = append(keep, a)
		case st.state == txCanonical: // final
		default:
			vanished = append(vanished, a)
		}
	}
	if len(keep) == len(list) {
		return nil, nil
	}
	return vanished, s.escrow().SetRailState(ctx, s.stateName("allocs"), keep)
}

// ---- deposits ---------------------------------------------------------------

// depositWatch is one deposit of this node's, booked in the ledger (or
// about to be) and checked until WatchDepth deep.
type depositWatch struct {
	Tx     common.Hash `json:"tx"`
	Block  uint64      `json:"block"`
	Ref    string      `json:"ref"`
	Amount int64       `json:"amount"`
}

// watchDeposit adds d to the watched deposits (once per transaction).
func (s *Settler) watchDeposit(ctx context.Context, d depositWatch) error {
	s.depMu.Lock()
	defer s.depMu.Unlock()
	var list []depositWatch
	if _, err := s.escrow().RailState(ctx, s.stateName("deposits"), &list); err != nil {
		return err
	}
	for _, x := range list {
		if x.Ref == d.Ref {
			return nil
		}
	}
	return s.escrow().SetRailState(ctx, s.stateName("deposits"), append(list, d))
}

// ProvisionalDeposits is what the node's deposits not yet WatchDepth deep
// add up to: booked, but a reorg could still take them away (and the
// ledger would then undo them).
func (s *Settler) ProvisionalDeposits(ctx context.Context) (int64, error) {
	s.depMu.Lock()
	defer s.depMu.Unlock()
	var list []depositWatch
	if _, err := s.escrow().RailState(ctx, s.stateName("deposits"), &list); err != nil {
		return 0, err
	}
	var n int64
	for _, d := range list {
		n += d.Amount
	}
	return n, nil
}

// deposits checks the watched deposits: a final one leaves the list, one
// that vanished is undone in the ledger (escrow.UnbookRail) after the
// reconcile cursor went back before its block, so that the deposit is
// booked again if the canonical chain holds it again. A vanished deposit
// the node has spent since (locked in jobs) cannot be undone yet: it
// stays watched, and is undone once the money is available again.
func (w *watchPass) deposits(ctx context.Context) error {
	s := w.s
	s.depMu.Lock()
	defer s.depMu.Unlock()
	var list []depositWatch
	if _, err := s.escrow().RailState(ctx, s.stateName("deposits"), &list); err != nil || len(list) == 0 {
		return err
	}
	keep := list[:0:0]
	for _, d := range list {
		st, err := w.tx(ctx, d.Tx)
		if err != nil {
			return err
		}
		switch {
		case st.state == txShallow, st.state == txCanonical && !w.deep(st.block):
			keep = append(keep, d)
			continue
		case st.state == txCanonical: // final
			continue
		}
		if err := s.rewindCursor(ctx, d.Block); err != nil {
			return err
		}
		undone, err := s.escrow().UnbookRail(ctx, d.Ref, d.Amount, fmt.Sprintf("evm deposit %s vanished in a reorg (block %d): undone; booked again if the chain holds it again", d.Tx.Hex(), d.Block))
		if errors.Is(err, escrow.ErrInsufficientFunds) {
			s.log.Error("a deposit vanished in a reorg and was spent since: undone once its money is available", "tx", d.Tx.Hex(), "amount", d.Amount, "err", err)
			keep = append(keep, d)
			continue
		}
		if err != nil {
			return err
		}
		w.reorged = true
		if undone {
			s.statsMu.Lock()
			s.stats.Vanished++
			s.statsMu.Unlock()
			s.log.Warn("a deposit vanished in a reorg: undone in the ledger", "tx", d.Tx.Hex(), "block", d.Block, "amount", d.Amount)
		}
	}
	if len(keep) == len(list) {
		return nil
	}
	return s.escrow().SetRailState(ctx, s.stateName("deposits"), keep)
}

// reallocate makes the node's line to seller cover the open locks with it
// again (nil result: it does already).
func (s *Settler) reallocate(ctx context.Context, r *Rail, seller common.Address) (*TxResult, error) {
	mu := s.sellerLock(seller)
	mu.Lock()
	defer mu.Unlock()
	open, err := s.escrow().RailOpenAmount(ctx, escrow.RoleBuyer, seller.Hex())
	if err != nil {
		return nil, err
	}
	s.dropLine(r.Address(), seller, 0)
	if open == 0 {
		return nil, nil
	}
	s.fundMu.Lock()
	res, err := r.EnsureLine(ctx, seller, open, 0)
	s.fundMu.Unlock()
	s.countTx("allocate", res)
	s.dropLine(r.Address(), seller, blockOf(res))
	return res, err
}

// watchState is the Settler's in-memory part of the watch.
type watchState struct {
	watchMu   sync.Mutex
	watchSeen map[string]uint64 // outcome without a transaction -> the head it was first seen holding at
	allocMu   sync.Mutex        // the watched allocations' read-modify-write
	depMu     sync.Mutex        // the watched deposits' read-modify-write
	recheckMu sync.Mutex        // the jobs to read again after a disagreement
	// hook, in tests, stops the work at a named step as a crash would.
	hook func(point string) bool
}
