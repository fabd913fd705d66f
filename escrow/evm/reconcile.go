package evm

import (
	"context"
	"fmt"
	"math/big"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/swarmwage/swarmwage/escrow/evm/contract"
)

// Event topics of the escrow, from its ABI.
var (
	escrowABI        = mustABI()
	paidTopic        = escrowABI.Events["Paid"].ID
	cancelledTopic   = escrowABI.Events["Cancelled"].ID
	skippedTopic     = escrowABI.Events["Skipped"].ID
	depositedTopic   = escrowABI.Events["Deposited"].ID
	allocatedTopic   = escrowABI.Events["Allocated"].ID
	withdrawReqTopic = escrowABI.Events["WithdrawRequested"].ID
	withdrawnTopic   = escrowABI.Events["Withdrawn"].ID
)

const (
	// maxLogRange is the block span of one eth_getLogs: public RPCs cap it.
	maxLogRange = 2000
	// reconcileMaxSpans bounds one Reconcile call (20M blocks); the cursor
	// resumes where it stopped.
	reconcileMaxSpans = 10_000
)

func mustABI() *abi.ABI {
	a, err := contract.SwarmwageEscrowMetaData.GetAbi()
	if err != nil {
		panic("evm: escrow ABI: " + err.Error()) // generated code; cannot fail
	}
	return a
}

// Cursor is where reconciliation stopped: the last block it read and that
// block's hash, so the next run notices a reorg under it.
type Cursor struct {
	Block uint64      `json:"block"`
	Hash  common.Hash `json:"hash"`
}

// ReorgError: the block under a cursor is no longer canonical, a reorg deeper
// than the confirmation depth. Reconcile again from a cursor Depth blocks
// earlier (or from the contract's deployment).
type ReorgError struct {
	Block     uint64
	Was, Now  common.Hash
	Confirmed uint64
}

func (e *ReorgError) Error() string {
	return fmt.Sprintf("%v: block %d was %s and is now %s, deeper than the confirmation depth %d; reconcile again from an earlier block",
		ErrReorg, e.Block, e.Was.Hex(), e.Now.Hex(), e.Confirmed)
}

// Is makes errors.Is(err, ErrReorg) hold.
func (e *ReorgError) Is(target error) bool { return target == ErrReorg }

// Outcome of a job on chain.
const (
	OutcomeReleased  = "released"  // paid to the seller by a release voucher
	OutcomeClaimed   = "claimed"   // paid to the seller by its lock voucher after notBefore
	OutcomeCancelled = "cancelled" // cancelled by the buyer; not paid (yet: a release still pays)
)

// JobOutcome is one job's outcome on chain as of the report's last block.
type JobOutcome struct {
	JobID   [32]byte
	Buyer   common.Address
	Seller  common.Address
	Outcome string
	Amount  int64 // paid; 0 when cancelled
	Block   uint64
	Tx      common.Hash
}

// LineEvent is a money movement on a line or free balance that is not a
// job's payment: deposit, allocation, withdrawal request, withdrawal.
type LineEvent struct {
	Kind    string // "deposited", "allocated", "withdraw_requested", "withdrawn"
	Buyer   common.Address
	Seller  common.Address // zero for the free balance
	Amount  int64
	ReadyAt uint64 // withdraw_requested: when it may execute
	Block   uint64
	Tx      common.Hash
}

// Report is what Reconcile read.
type Report struct {
	From, To uint64 // blocks read, inclusive; To < From: nothing new
	Next     Cursor // pass to the next Reconcile
	// Jobs: the outcome of every job of the party that changed in the range,
	// in chain order. A job both cancelled and paid appears as paid.
	Jobs []JobOutcome
	// Lines: line events of the party. A seller watches withdraw_requested:
	// it must claim its lock vouchers on that line before ReadyAt.
	Lines []LineEvent
	// Skipped: vouchers of the party's redeem batches that did not pay, with
	// the contract's reason.
	Skipped map[[32]byte]uint8
}

// Reconcile reads the escrow's events after since up to the confirmation
// depth and reports, for jobs and lines where party is buyer or seller (all
// parties if party is the zero address), each job's on-chain outcome. A
// zero since starts at fromBlock (the contract's deployment block, or 0).
// The error wraps ErrReorg (a *ReorgError) if since's block was replaced.
func (r *Rail) Reconcile(ctx context.Context, since Cursor, fromBlock uint64, party common.Address) (*Report, error) {
	start := fromBlock
	if since.Hash != (common.Hash{}) {
		h, err := r.eth.HeaderByNumber(ctx, new(big.Int).SetUint64(since.Block))
		if err != nil {
			return nil, classify(fmt.Sprintf("reconcile: header %d", since.Block), err)
		}
		if h.Hash() != since.Hash {
			return nil, &ReorgError{Block: since.Block, Was: since.Hash, Now: h.Hash(), Confirmed: r.cfg.Confirmations}
		}
		start = since.Block + 1
	}
	head, err := r.confirmedHead(ctx)
	if err != nil {
		return nil, fmt.Errorf("reconcile: %w", err)
	}
	rep := &Report{From: start, To: head.Number.Uint64(), Skipped: map[[32]byte]uint8{}}
	rep.Next = Cursor{Block: head.Number.Uint64(), Hash: head.Hash()}
	if start > rep.To {
		rep.Next = since
		if since.Hash == (common.Hash{}) {
			rep.Next = Cursor{}
		}
		return rep, nil
	}
	jobs := map[[32]byte]int{} // job key -> index in rep.Jobs
	spans := 0
	for lo := start; lo <= rep.To; lo += maxLogRange {
		if spans++; spans > reconcileMaxSpans {
			// Stop early, resumable: the cursor says where.
			hi := lo - 1
			h, err := r.eth.HeaderByNumber(ctx, new(big.Int).SetUint64(hi))
			if err != nil {
				return nil, classify("reconcile: header", err)
			}
			rep.To, rep.Next = hi, Cursor{Block: hi, Hash: h.Hash()}
			break
		}
		hi := min(lo+maxLogRange-1, rep.To)
		logs, err := r.eth.FilterLogs(ctx, ethereum.FilterQuery{
			FromBlock: new(big.Int).SetUint64(lo), ToBlock: new(big.Int).SetUint64(hi),
			Addresses: []common.Address{r.cfg.Escrow},
		})
		if err != nil {
			return nil, classify(fmt.Sprintf("reconcile: logs %d-%d", lo, hi), err)
		}
		for _, l := range logs {
			if l.Removed {
				continue
			}
			r.applyLog(rep, jobs, l, party)
		}
	}
	// The last block read must still be the one we report: a reorg during
	// the scan would otherwise slip through.
	h, err := r.eth.HeaderByNumber(ctx, new(big.Int).SetUint64(rep.Next.Block))
	if err != nil {
		return nil, classify("reconcile: header", err)
	}
	if h.Hash() != rep.Next.Hash {
		return nil, &ReorgError{Block: rep.Next.Block, Was: rep.Next.Hash, Now: h.Hash(), Confirmed: r.cfg.Confirmations}
	}
	return rep, nil
}

func involves(party, buyer, seller common.Address) bool {
	return party == (common.Address{}) || party == buyer || party == seller
}

// amountOf is n in the rail's range; -1 for one outside it, or none: a
// log whose data is shorter than its event's is unpacked by the bindings
// without an error and without the amount (a lying endpoint's log).
func amountOf(n *big.Int) int64 {
	if n != nil && n.IsInt64() {
		return n.Int64()
	}
	return -1 // outside the rail's range: callers treat negative as invalid
}

func (r *Rail) applyLog(rep *Report, jobs map[[32]byte]int, l types.Log, party common.Address) {
	if len(l.Topics) == 0 {
		return
	}
	block, tx := l.BlockNumber, l.TxHash
	switch l.Topics[0] {
	case paidTopic:
		e, err := r.esc.ParsePaid(l)
		if err != nil || !involves(party, e.Buyer, e.Seller) {
			return
		}
		outcome := OutcomeClaimed
		if e.Released {
			outcome = OutcomeReleased
		}
		setJob(rep, jobs, JobOutcome{JobID: e.JobId, Buyer: e.Buyer, Seller: e.Seller, Outcome: outcome, Amount: amountOf(e.Amount), Block: block, Tx: tx})
	case cancelledTopic:
		e, err := r.esc.ParseCancelled(l)
		if err != nil || !involves(party, e.Buyer, e.Seller) {
			return
		}
		k := jobKey(e.Buyer, e.Seller, e.JobId)
		if i, ok := jobs[k]; ok && rep.Jobs[i].Outcome != OutcomeCancelled {
			return // paid before: the cancel changed nothing
		}
		setJob(rep, jobs, JobOutcome{JobID: e.JobId, Buyer: e.Buyer, Seller: e.Seller, Outcome: OutcomeCancelled, Block: block, Tx: tx})
	case skippedTopic:
		e, err := r.esc.ParseSkipped(l)
		if err == nil && involves(party, e.Buyer, e.Seller) {
			rep.Skipped[e.JobId] = e.Reason
		}
	case depositedTopic:
		if e, err := r.esc.ParseDeposited(l); err == nil && involves(party, e.Buyer, e.Buyer) {
			rep.Lines = append(rep.Lines, LineEvent{Kind: "deposited", Buyer: e.Buyer, Amount: amountOf(e.Amount), Block: block, Tx: tx})
		}
	case allocatedTopic:
		if e, err := r.esc.ParseAllocated(l); err == nil && involves(party, e.Buyer, e.Seller) {
			rep.Lines = append(rep.Lines, LineEvent{Kind: "allocated", Buyer: e.Buyer, Seller: e.Seller, Amount: amountOf(e.Amount), Block: block, Tx: tx})
		}
	case withdrawReqTopic:
		if e, err := r.esc.ParseWithdrawRequested(l); err == nil && involves(party, e.Buyer, e.Seller) {
			rep.Lines = append(rep.Lines, LineEvent{Kind: "withdraw_requested", Buyer: e.Buyer, Seller: e.Seller, Amount: amountOf(e.Amount), ReadyAt: e.ReadyAt, Block: block, Tx: tx})
		}
	case withdrawnTopic:
		if e, err := r.esc.ParseWithdrawn(l); err == nil && involves(party, e.Buyer, e.Seller) {
			rep.Lines = append(rep.Lines, LineEvent{Kind: "withdrawn", Buyer: e.Buyer, Seller: e.Seller, Amount: amountOf(e.Amount), Block: block, Tx: tx})
		}
	}
}

// jobKey is the contract's key of a job: keccak256(abi.encode(buyer, seller, jobId)).
func jobKey(buyer, seller common.Address, job [32]byte) [32]byte {
	var b [96]byte
	copy(b[12:32], buyer[:])
	copy(b[44:64], seller[:])
	copy(b[64:], job[:])
	return crypto.Keccak256Hash(b[:])
}

func setJob(rep *Report, jobs map[[32]byte]int, o JobOutcome) {
	k := jobKey(o.Buyer, o.Seller, o.JobID)
	if i, ok := jobs[k]; ok {
		rep.Jobs[i] = o
		return
	}
	jobs[k] = len(rep.Jobs)
	rep.Jobs = append(rep.Jobs, o)
}
