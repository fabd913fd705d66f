package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// A job's outcome is never taken from a log alone. A Paid or Cancelled
// event counts for a job only if its job ID, buyer, seller (and for Paid
// its amount) are the lock's (matchLock); and before the escrow changes
// because of it, the node reads the event's transaction receipt and block
// from its RPC: the receipt succeeded, its block is canonical at the
// confirmation depth, its logs hold the same event from the escrow, and
// job(buyer, seller, jobId) on the contract at the confirmed head shows
// the outcome (verifyOutcome). Any disagreement keeps the local decision;
// the node logs it and notes it on the job (escrow.Record.ChainNote).

// jobEvent is one Paid or Cancelled event of the escrow, parsed strictly.
type jobEvent struct {
	Outcome  string // OutcomeReleased, OutcomeClaimed or OutcomeCancelled
	JobID    [32]byte
	Buyer    common.Address
	Seller   common.Address
	Amount   int64 // Paid only
	Released bool
}

// errBadLog: a log that is no well-formed job event of the escrow.
var errBadLog = errors.New("not a well-formed Paid or Cancelled event of the escrow")

// parseJobLog decodes a Paid or Cancelled log of the escrow at addr
// strictly: the escrow's address, the event's topic and exactly its three
// indexed topics (job ID, buyer, seller: addresses with zero padding),
// and exactly its data (Paid: a uint256 amount in the int64 range and
// above 0, a bool that is 0 or 1; Cancelled: none).
func parseJobLog(addr common.Address, l *types.Log) (jobEvent, error) {
	if l == nil || l.Address != addr || len(l.Topics) != 4 {
		return jobEvent{}, errBadLog
	}
	buyer, ok1 := topicAddress(l.Topics[2])
	seller, ok2 := topicAddress(l.Topics[3])
	if !ok1 || !ok2 {
		return jobEvent{}, fmt.Errorf("%w: an indexed address has a non-zero padding", errBadLog)
	}
	ev := jobEvent{JobID: l.Topics[1], Buyer: buyer, Seller: seller}
	switch l.Topics[0] {
	case paidTopic:
		if len(l.Data) != 64 {
			return jobEvent{}, fmt.Errorf("%w: Paid carries %d data bytes, want 64", errBadLog, len(l.Data))
		}
		amt := new(big.Int).SetBytes(l.Data[:32])
		if !amt.IsInt64() || amt.Sign() <= 0 {
			return jobEvent{}, fmt.Errorf("%w: Paid amount %s outside 1..int64", errBadLog, amt)
		}
		flag := new(big.Int).SetBytes(l.Data[32:])
		if flag.BitLen() > 1 {
			return jobEvent{}, fmt.Errorf("%w: Paid released flag is no bool", errBadLog)
		}
		ev.Amount, ev.Released = amt.Int64(), flag.Sign() == 1
		ev.Outcome = OutcomeClaimed
		if ev.Released {
			ev.Outcome = OutcomeReleased
		}
	case cancelledTopic:
		if len(l.Data) != 0 {
			return jobEvent{}, fmt.Errorf("%w: Cancelled carries %d data bytes, want none", errBadLog, len(l.Data))
		}
		ev.Outcome = OutcomeCancelled
	default:
		return jobEvent{}, errBadLog
	}
	return ev, nil
}

func topicAddress(h common.Hash) (common.Address, bool) {
	for _, b := range h[:12] {
		if b != 0 {
			return common.Address{}, false
		}
	}
	return common.BytesToAddress(h[12:]), true
}

// matchLock reports whether ev is an event of l's job: the same job ID,
// buyer and seller, and for a payment the lock's amount. The error says
// what differs. A stranger can emit Paid for any job ID (deposit 1 base
// unit, allocate it to the seller, sign a Release for the job ID, redeem
// it): only the buyer of the lock can pay the lock's job.
func matchLock(l *Lock, ev jobEvent) error {
	switch {
	case l == nil:
		return errors.New("no lock voucher to match")
	case ev.JobID != l.JobID:
		return fmt.Errorf("the event is for job %x, the lock for %x", ev.JobID[:6], l.JobID[:6])
	case ev.Buyer != l.Buyer:
		return fmt.Errorf("the event names buyer %s, the lock's buyer is %s", ev.Buyer, l.Buyer)
	case ev.Seller != l.Seller:
		return fmt.Errorf("the event names seller %s, the lock's seller is %s", ev.Seller, l.Seller)
	case ev.Outcome == OutcomeCancelled:
		return nil
	case ev.Outcome != OutcomeReleased && ev.Outcome != OutcomeClaimed:
		return fmt.Errorf("unknown outcome %q", ev.Outcome)
	case ev.Amount != l.Amount:
		return fmt.Errorf("the event pays %d, the lock holds %d", ev.Amount, l.Amount)
	}
	return nil
}

func eventOf(o JobOutcome) jobEvent {
	return jobEvent{Outcome: o.Outcome, JobID: o.JobID, Buyer: o.Buyer, Seller: o.Seller, Amount: o.Amount, Released: o.Outcome == OutcomeReleased}
}

// disagreement is a chain answer that contradicts an event (or a lock): the
// node keeps its local decision. Other errors of verifyOutcome are chain
// trouble: try again later.
type disagreement struct{ msg string }

func (d *disagreement) Error() string { return d.msg }

func disagree(format string, args ...any) error {
	return &disagreement{msg: fmt.Sprintf(format, args...)}
}

func isDisagreement(err error) bool {
	var d *disagreement
	return errors.As(err, &d)
}

// verified is what verifyOutcome confirmed: the transaction and block of
// the event.
type verified struct {
	Tx    common.Hash
	Block uint64
}

// verifyOutcome checks ev (already matched to l) against the chain before
// the escrow acts on it: tx's receipt exists and succeeded, its block is
// canonical and at the confirmation depth, its logs hold ev from the
// escrow, and job(buyer, seller, jobId) at the confirmed head is PAID (for
// a payment) or CANCELLED (for a cancel). A contradiction is a
// *disagreement; an unreadable chain another error.
func (r *Rail) verifyOutcome(ctx context.Context, l *Lock, ev jobEvent, tx common.Hash) (verified, error) {
	return r.verifyOutcomeWith(ctx, &verifyCache{}, l, ev, tx)
}

// verifyCache keeps one pass's confirmed head and receipts: a redeem
// batch's hundred Paid events are one receipt.
type verifyCache struct {
	head     *types.Header
	receipts map[common.Hash]*types.Receipt
	canon    map[common.Hash]bool // receipt's block hash -> canonical
}

func (r *Rail) verifyOutcomeWith(ctx context.Context, vc *verifyCache, l *Lock, ev jobEvent, tx common.Hash) (verified, error) {
	if vc == nil {
		vc = &verifyCache{}
	}
	v, err := r.receiptHolds(ctx, vc, tx, fmt.Sprintf("%s event of job %x from %s to %s", ev.Outcome, ev.JobID[:6], ev.Buyer, ev.Seller), func(lg *types.Log) bool {
		got, err := parseJobLog(r.cfg.Escrow, lg)
		return err == nil && got == ev
	})
	if err != nil {
		return v, err
	}
	head := vc.head
	j, err := r.esc.Job(&bind.CallOpts{Context: ctx, BlockHash: head.Hash()}, l.Buyer, l.Seller, l.JobID)
	if err != nil {
		return verified{}, classify("read the job on chain", err, r.abis...)
	}
	want := uint8(1)
	if ev.Outcome == OutcomeCancelled {
		want = 2
	}
	if j.State != want {
		return verified{}, disagree("the contract shows job %x %s at block %d, the event says %s", l.JobID[:6], jobStateName(j.State), head.Number.Uint64(), ev.Outcome)
	}
	return v, nil
}

// receiptHolds checks that tx's receipt exists and succeeded, that its
// block is canonical and at the confirmation depth (vc's confirmed
// head, read if vc has none), and that one of its logs is what match
// accepts (what names it in a disagreement). A contradiction is a
// *disagreement; an unreadable chain another error.
func (r *Rail) receiptHolds(ctx context.Context, vc *verifyCache, tx common.Hash, what string, match func(*types.Log) bool) (verified, error) {
	if vc.receipts == nil {
		vc.receipts, vc.canon = map[common.Hash]*types.Receipt{}, map[common.Hash]bool{}
	}
	if vc.head == nil {
		h, err := r.confirmedHead(ctx)
		if err != nil {
			return verified{}, err
		}
		vc.head = h
	}
	head := vc.head
	rc, ok := vc.receipts[tx]
	if !ok {
		var err error
		rc, err = r.eth.TransactionReceipt(ctx, tx)
		if errors.Is(err, ethereum.NotFound) {
			return verified{}, disagree("transaction %s of the event is not on the chain", tx.Hex())
		}
		if err != nil {
			return verified{}, classify("receipt of "+tx.Hex(), err)
		}
		vc.receipts[tx] = rc
	}
	if rc.BlockNumber == nil || rc.TxHash != tx {
		return verified{}, disagree("the receipt of %s is not that transaction's", tx.Hex())
	}
	n := rc.BlockNumber.Uint64()
	if n > head.Number.Uint64() {
		return verified{}, fmt.Errorf("%w: transaction %s (block %d) is not at the confirmation depth yet (block %d)", ErrReorg, tx.Hex(), n, head.Number.Uint64())
	}
	canonical, ok := vc.canon[rc.BlockHash]
	if !ok {
		h, err := r.eth.HeaderByNumber(ctx, rc.BlockNumber)
		if err != nil {
			return verified{}, classify(fmt.Sprintf("header %d", n), err)
		}
		canonical = h.Hash() == rc.BlockHash
		vc.canon[rc.BlockHash] = canonical
	}
	if !canonical {
		return verified{}, disagree("transaction %s: its block %d %s is not canonical", tx.Hex(), n, rc.BlockHash.Hex())
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		return verified{}, disagree("transaction %s reverted", tx.Hex())
	}
	for _, lg := range rc.Logs {
		if lg != nil && match(lg) {
			return verified{Tx: tx, Block: n}, nil
		}
	}
	return verified{}, disagree("the receipt of %s holds no %s", tx.Hex(), what)
}

// lineEventMatcher accepts the escrow's log of ev (a deposit or a
// withdrawal of ev.Buyer, from the free balance or ev.Seller's line) with
// ev's amount.
func (r *Rail) lineEventMatcher(ev LineEvent) func(*types.Log) bool {
	return func(lg *types.Log) bool {
		if lg.Address != r.cfg.Escrow || len(lg.Topics) == 0 || ev.Amount <= 0 {
			return false
		}
		// Strictly: the exact topics the contract emits (addresses with
		// zero padding; the bindings ignore the padding) and 32 data bytes.
		buyer, seller := common.BytesToHash(ev.Buyer[:]), common.BytesToHash(ev.Seller[:])
		switch ev.Kind {
		case "deposited":
			e, err := r.esc.ParseDeposited(*lg)
			return err == nil && len(lg.Topics) == 2 && lg.Topics[0] == depositedTopic && lg.Topics[1] == buyer && len(lg.Data) == 32 && amountOf(e.Amount) == ev.Amount
		case "withdrawn":
			e, err := r.esc.ParseWithdrawn(*lg)
			return err == nil && len(lg.Topics) == 3 && lg.Topics[0] == withdrawnTopic && lg.Topics[1] == buyer && lg.Topics[2] == seller && len(lg.Data) == 32 && amountOf(e.Amount) == ev.Amount
		}
		return false
	}
}

// findOutcome looks on chain for l's job: job(buyer, seller, jobId) at the
// confirmed head, and if it is not open, the event that settled it among
// the escrow's logs of the last lookback blocks (topics: job ID, buyer,
// seller), verified as verifyOutcome does. state is the job's state
// there (0 open, 1 paid, 2 cancelled); ev is nil when the
// job is open or its event is not in the range read (the state alone is
// then all there is).
func (r *Rail) findOutcome(ctx context.Context, l *Lock, lookback uint64) (state uint8, ev *jobEvent, v verified, err error) {
	head, err := r.confirmedHead(ctx)
	if err != nil {
		return 0, nil, verified{}, err
	}
	j, err := r.esc.Job(&bind.CallOpts{Context: ctx, BlockHash: head.Hash()}, l.Buyer, l.Seller, l.JobID)
	if err != nil {
		return 0, nil, verified{}, classify("read the job on chain", err, r.abis...)
	}
	if j.State == 0 {
		return 0, nil, verified{}, nil
	}
	want := paidTopic
	if j.State == 2 {
		want = cancelledTopic
	}
	hi := head.Number.Uint64()
	lo := uint64(0)
	if hi > lookback {
		lo = hi - lookback
	}
	for end := hi; ; {
		start := lo
		if end >= maxLogRange && end-maxLogRange+1 > lo {
			start = end - maxLogRange + 1
		}
		logs, err := r.eth.FilterLogs(ctx, ethereum.FilterQuery{
			FromBlock: new(big.Int).SetUint64(start), ToBlock: new(big.Int).SetUint64(end),
			Addresses: []common.Address{r.cfg.Escrow},
			Topics:    [][]common.Hash{{want}, {l.JobID}, {common.BytesToHash(l.Buyer[:])}, {common.BytesToHash(l.Seller[:])}},
		})
		if err != nil {
			return 0, nil, verified{}, classify(fmt.Sprintf("logs of job %x", l.JobID[:6]), err)
		}
		for i := len(logs) - 1; i >= 0; i-- {
			got, err := parseJobLog(r.cfg.Escrow, &logs[i])
			if err != nil || logs[i].Removed || matchLock(l, got) != nil {
				continue
			}
			v, err := r.verifyOutcome(ctx, l, got, logs[i].TxHash)
			if err != nil {
				if isDisagreement(err) {
					continue
				}
				return 0, nil, verified{}, err
			}
			return j.State, &got, v, nil
		}
		if start <= lo {
			return j.State, nil, verified{}, nil
		}
		end = start - 1
	}
}
