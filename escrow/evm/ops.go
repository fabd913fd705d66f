package evm

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm/contract"
)

// Line is a buyer's line for one seller as the chain has it at Block.
type Line struct {
	Balance     int64  // allocated, not yet paid or withdrawn
	Withdrawing int64  // pending withdrawal request
	WithdrawAt  uint64 // unix seconds when it may execute; 0: none
	Block       uint64 // block the figures were read at
	BlockTime   uint64 // that block's timestamp
}

// Available is what the line can still back: its balance less a pending
// withdrawal (which leaves once its notice is over).
func (l Line) Available() int64 {
	if l.Withdrawing >= l.Balance {
		return 0
	}
	return l.Balance - l.Withdrawing
}

func toInt64(what string, n *big.Int) (int64, error) {
	if !n.IsInt64() || n.Sign() < 0 {
		return 0, fmt.Errorf("%s %s: out of the int64 range of amounts", what, n)
	}
	return n.Int64(), nil
}

// confirmedCall returns call options at the newest confirmed block (by hash,
// so a reorg of it fails the call instead of reading another block).
func (r *Rail) confirmedCall(ctx context.Context) (*bind.CallOpts, *types.Header, error) {
	h, err := r.confirmedHead(ctx)
	if err != nil {
		return nil, nil, err
	}
	return &bind.CallOpts{Context: ctx, BlockHash: h.Hash()}, h, nil
}

// LineOf reads buyer's line for seller at the confirmation depth.
func (r *Rail) LineOf(ctx context.Context, buyer, seller common.Address) (Line, error) {
	call, h, err := r.confirmedCall(ctx)
	if err != nil {
		return Line{}, err
	}
	l, err := r.esc.Line(call, buyer, seller)
	if err != nil {
		return Line{}, classify(fmt.Sprintf("read line %s -> %s", buyer, seller), err, r.abis...)
	}
	out := Line{WithdrawAt: l.WithdrawAt, Block: h.Number.Uint64(), BlockTime: h.Time}
	if out.Balance, err = toInt64("line balance", l.Balance); err != nil {
		return Line{}, err
	}
	if out.Withdrawing, err = toInt64("line withdrawal", l.Withdrawing); err != nil {
		// A request larger than any line takes all of it: treat as the whole line.
		out.Withdrawing = out.Balance
	}
	return out, nil
}

// Balances are the node's on-chain figures (token base units, gas in wei).
type Balances struct {
	Address common.Address
	Token   int64    // the node's own token balance
	Gas     *big.Int // native currency for gas, wei
	Free    int64    // deposited in the escrow, not allocated to a seller
	Block   uint64
}

// Balances reads the node's figures at the confirmation depth.
func (r *Rail) Balances(ctx context.Context) (Balances, error) {
	call, h, err := r.confirmedCall(ctx)
	if err != nil {
		return Balances{}, err
	}
	b := Balances{Address: r.Address(), Block: h.Number.Uint64()}
	tok, err := r.tok.BalanceOf(call, r.Address())
	if err != nil {
		return Balances{}, classify("read token balance", err, r.abis...)
	}
	free, err := r.esc.Free(call, r.Address())
	if err != nil {
		return Balances{}, classify("read free deposit", err, r.abis...)
	}
	if b.Gas, err = r.eth.BalanceAt(ctx, r.Address(), h.Number); err != nil {
		return Balances{}, classify("read gas balance", err)
	}
	if b.Token, err = toInt64("token balance", tok); err != nil {
		return Balances{}, err
	}
	if b.Free, err = toInt64("free deposit", free); err != nil {
		return Balances{}, err
	}
	return b, nil
}

// ---- buyer -----------------------------------------------------------------

// Deposit moves amount of the token from the node's address into its free
// balance in the escrow: an approve (only if the allowance is short) and a
// deposit, each waited for to the confirmation depth.
func (r *Rail) Deposit(ctx context.Context, amount int64) ([]*TxResult, error) {
	if amount <= 0 {
		return nil, fmt.Errorf("deposit %d: amount must be positive", amount)
	}
	var out []*TxResult
	allowance, err := r.tok.Allowance(&bind.CallOpts{Context: ctx}, r.Address(), r.cfg.Escrow)
	if err != nil {
		return nil, classify("read allowance", err, r.abis...)
	}
	if allowance.Cmp(big.NewInt(amount)) < 0 {
		res, _, err := r.send(ctx, "approve the escrow", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return r.tok.Approve(o, r.cfg.Escrow, big.NewInt(amount))
		})
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	res, _, err := r.send(ctx, "deposit", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.esc.Deposit(o, big.NewInt(amount))
	})
	if err != nil {
		return out, err
	}
	r.log.Info("deposited", "amount", amount, "tx", res.Hash.Hex())
	return append(out, res), nil
}

// Allocate moves amount of the free balance to the line for seller.
func (r *Rail) Allocate(ctx context.Context, seller common.Address, amount int64) (*TxResult, error) {
	res, _, err := r.send(ctx, fmt.Sprintf("allocate %d to %s", amount, seller), func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.esc.Allocate(o, seller, big.NewInt(amount))
	})
	return res, err
}

// EnsureLine makes the node's line for seller back need in total (the open
// locks the node holds with seller plus the new one), allocating from the
// free balance when short: at least chunk more, so a run of hires with one
// seller costs one allocation. It returns nil without a transaction when the
// line already covers need; the error wraps ErrNotCovered when the free
// balance cannot cover it.
func (r *Rail) EnsureLine(ctx context.Context, seller common.Address, need, chunk int64) (*TxResult, error) {
	line, err := r.LineOf(ctx, r.Address(), seller)
	if err != nil {
		return nil, err
	}
	short := need - line.Available()
	if short <= 0 {
		return nil, nil
	}
	free, err := r.esc.Free(&bind.CallOpts{Context: ctx}, r.Address())
	if err != nil {
		return nil, classify("read free deposit", err, r.abis...)
	}
	f, err := toInt64("free deposit", free)
	if err != nil {
		return nil, err
	}
	amount := max(short, chunk)
	if amount > f {
		amount = f
	}
	if amount < short {
		asked := ""
		if line.Withdrawing > 0 {
			asked = fmt.Sprintf(" (%s of the line is asked back by a pending withdrawal)", escrow.FormatAmount(line.Withdrawing))
		}
		return nil, fmt.Errorf("line to %s: %w: it needs %s more and the free deposit is %s%s; run 'swarmwage wallet deposit'", seller, ErrNotCovered, escrow.FormatAmount(short), escrow.FormatAmount(f), asked)
	}
	return r.Allocate(ctx, seller, amount)
}

// SignLock makes the node's lock voucher for a job with seller: amount, and
// notBefore the time from which the seller may claim it (deadline plus
// window plus a grace). The job ID is the escrow package's.
func (r *Rail) SignLock(jobID string, seller common.Address, amount int64, notBefore time.Time) (*Lock, error) {
	l := &Lock{JobID: JobID(jobID), Buyer: r.Address(), Seller: seller, Amount: amount, NotBefore: unixCeil(notBefore)}
	if err := r.domain.SignLock(r.key, l); err != nil {
		return nil, err
	}
	return l, nil
}

// SignRelease makes the node's release voucher for lock (the seller redeems
// it at once).
func (r *Rail) SignRelease(l *Lock) (*Release, error) {
	rel := &Release{JobID: l.JobID, Buyer: l.Buyer, Seller: l.Seller, Amount: l.Amount}
	if err := r.domain.SignRelease(r.key, rel); err != nil {
		return nil, err
	}
	return rel, nil
}

func unixCeil(t time.Time) uint64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	if s < 0 {
		return 0
	}
	return uint64(s)
}

// Cancel cancels the node's jobs with seller on chain (a refund): from then
// on their lock vouchers cannot be claimed. Only before their notBefore does
// it count; a release the node signed still pays.
func (r *Rail) Cancel(ctx context.Context, seller common.Address, jobIDs ...[32]byte) (*TxResult, error) {
	if len(jobIDs) == 0 {
		return nil, nil
	}
	res, _, err := r.send(ctx, fmt.Sprintf("cancel %d jobs with %s", len(jobIDs), seller), func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.esc.Cancel(o, seller, jobIDs)
	})
	return res, err
}

// RequestWithdraw announces a withdrawal of amount from the node's line for
// seller; it may execute after the notice (Withdraw).
func (r *Rail) RequestWithdraw(ctx context.Context, seller common.Address, amount int64) (*TxResult, error) {
	res, _, err := r.send(ctx, fmt.Sprintf("request withdrawal of %d from the line to %s", amount, seller), func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.esc.RequestWithdraw(o, seller, big.NewInt(amount))
	})
	return res, err
}

// Withdraw executes the pending withdrawal from the node's line for seller
// (after its notice) and returns the amount paid to the node.
func (r *Rail) Withdraw(ctx context.Context, seller common.Address) (int64, *TxResult, error) {
	res, rc, err := r.send(ctx, fmt.Sprintf("withdraw from the line to %s", seller), func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.esc.Withdraw(o, seller)
	})
	if err != nil {
		return 0, res, err
	}
	return r.withdrawnIn(rc), res, nil
}

// WithdrawFree pays amount of the node's free deposit back to it at once.
func (r *Rail) WithdrawFree(ctx context.Context, amount int64) (*TxResult, error) {
	res, _, err := r.send(ctx, "withdraw free deposit", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.esc.WithdrawFree(o, big.NewInt(amount))
	})
	return res, err
}

func (r *Rail) withdrawnIn(rc *types.Receipt) int64 {
	var n int64
	for _, l := range rc.Logs {
		if w, err := r.esc.ParseWithdrawn(*l); err == nil && l.Address == r.cfg.Escrow && len(l.Topics) > 0 && l.Topics[0] == withdrawnTopic && amountOf(w.Amount) > 0 {
			n += amountOf(w.Amount)
		}
	}
	return n
}

// ---- seller ----------------------------------------------------------------

// AcceptHorizon is how far ahead of now a lock's notBefore may lie for the
// seller to accept it: half the escrow's notice. A buyer's withdrawal request
// takes the notice to execute, so every lock accepted before it can be
// claimed for at least the other half.
func (r *Rail) AcceptHorizon() time.Duration { return r.notice / 2 }

// CheckLock is the seller's check of a buyer's lock before it starts work:
// signed by the buyer for this escrow and chain, for this node, with a
// notBefore inside the accept horizon, and covered by the buyer's line at the
// confirmation depth: line balance - pending withdrawal - open (the amounts
// of the locks this node holds from the buyer, not yet paid) >= l.Amount.
// The error wraps ErrBadSignature, ErrInvalidVoucher, ErrNotCovered or a
// chain error.
func (r *Rail) CheckLock(ctx context.Context, l *Lock, open int64, now time.Time) error {
	if err := r.domain.VerifyLock(l); err != nil {
		return err
	}
	if l.Seller != r.Address() {
		return fmt.Errorf("%w: lock pays %s, this node is %s", ErrInvalidVoucher, l.Seller, r.Address())
	}
	horizon := unixCeil(now.Add(r.AcceptHorizon()))
	if l.NotBefore > horizon {
		return fmt.Errorf("%w: not-before %s lies beyond the accept horizon (%s, half the escrow's notice)",
			ErrInvalidVoucher, time.Unix(int64(l.NotBefore), 0).UTC().Format(time.RFC3339), r.AcceptHorizon())
	}
	line, err := r.LineOf(ctx, l.Buyer, l.Seller)
	if err != nil {
		return fmt.Errorf("check lock: %w", err)
	}
	call := &bind.CallOpts{Context: ctx, BlockNumber: new(big.Int).SetUint64(line.Block)}
	j, err := r.esc.Job(call, l.Buyer, l.Seller, l.JobID)
	if err != nil {
		return classify("read job state", err, r.abis...)
	}
	if j.State != 0 {
		return fmt.Errorf("%w: job %x is already %s on chain", ErrInvalidVoucher, l.JobID[:6], jobStateName(j.State))
	}
	if avail := line.Available() - open; avail < l.Amount {
		return fmt.Errorf("%w: buyer %s's line covers %s at block %d (balance %s, withdrawing %s, open locks %s), the lock wants %s",
			ErrNotCovered, l.Buyer, escrow.FormatAmount(max(avail, 0)), line.Block, escrow.FormatAmount(line.Balance), escrow.FormatAmount(line.Withdrawing), escrow.FormatAmount(open), escrow.FormatAmount(l.Amount))
	}
	return nil
}

func jobStateName(s uint8) string {
	switch s {
	case 0:
		return "open"
	case 1:
		return "paid"
	case 2:
		return "cancelled"
	}
	return fmt.Sprintf("state %d", s)
}

// Voucher is what a seller redeems: exactly one of Lock (claimed after its
// notBefore) or Release.
type Voucher struct {
	Lock    *Lock
	Release *Release
}

func (v Voucher) jobID() [32]byte {
	if v.Release != nil {
		return v.Release.JobID
	}
	return v.Lock.JobID
}

// Skip reasons of the contract's Skipped event.
const (
	SkipBadSignature = 1
	SkipAlreadyPaid  = 2
	SkipCancelled    = 3
	SkipTooEarly     = 4
	SkipNotCovered   = 5
)

// SkipReason names a Skipped reason.
func SkipReason(code uint8) string {
	switch code {
	case SkipBadSignature:
		return "bad signature"
	case SkipAlreadyPaid:
		return "already paid"
	case SkipCancelled:
		return "cancelled by the buyer"
	case SkipTooEarly:
		return "not-before not reached"
	case SkipNotCovered:
		return "not covered by the buyer's line"
	}
	return fmt.Sprintf("reason %d", code)
}

// Redeemed is the outcome of one batch.
type Redeemed struct {
	Tx      *TxResult
	Paid    map[[32]byte]int64 // job -> amount paid to the node
	Skipped map[[32]byte]uint8 // job -> Skip reason
	Total   int64
	// events are the batch's Paid events, parsed strictly: a payment is
	// matched to its lock by job ID, buyer, seller and amount.
	events []jobEvent
}

// paidEvent returns the batch's Paid event of job from buyer, if any.
func (red *Redeemed) paidEvent(job [32]byte, buyer common.Address) (jobEvent, bool) {
	for _, e := range red.events {
		if e.JobID == job && e.Buyer == buyer {
			return e, true
		}
	}
	return jobEvent{}, false
}

// maxBatch bounds one redeem transaction: gas grows with the batch, and a
// block's gas limit caps it (about 30k gas a voucher).
const maxBatch = 200

// Redeem pays the node every voucher in vs that is valid now, in one
// transaction (at most maxBatch vouchers). Vouchers for another seller are
// refused before sending.
func (r *Rail) Redeem(ctx context.Context, vs []Voucher) (*Redeemed, error) {
	if len(vs) == 0 {
		return &Redeemed{Paid: map[[32]byte]int64{}, Skipped: map[[32]byte]uint8{}}, nil
	}
	if len(vs) > maxBatch {
		return nil, fmt.Errorf("redeem: %d vouchers, at most %d a batch", len(vs), maxBatch)
	}
	cv := make([]contract.SwarmwageEscrowVoucher, len(vs))
	for i, v := range vs {
		switch {
		case v.Release != nil && v.Lock == nil:
			if v.Release.Seller != r.Address() {
				return nil, fmt.Errorf("redeem: %w: release %d pays %s, not this node", ErrInvalidVoucher, i, v.Release.Seller)
			}
			cv[i] = releaseVoucher(v.Release)
		case v.Lock != nil && v.Release == nil:
			if v.Lock.Seller != r.Address() {
				return nil, fmt.Errorf("redeem: %w: lock %d pays %s, not this node", ErrInvalidVoucher, i, v.Lock.Seller)
			}
			cv[i] = lockVoucher(v.Lock)
		default:
			return nil, fmt.Errorf("redeem: %w: voucher %d must be a lock or a release", ErrInvalidVoucher, i)
		}
	}
	res, rc, err := r.send(ctx, fmt.Sprintf("redeem %d vouchers", len(vs)), func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.esc.Redeem(o, r.Address(), cv)
	})
	if err != nil {
		return nil, err
	}
	out := &Redeemed{Tx: res, Paid: map[[32]byte]int64{}, Skipped: map[[32]byte]uint8{}}
	for _, l := range rc.Logs {
		if l.Address != r.cfg.Escrow || len(l.Topics) == 0 {
			continue
		}
		if l.Topics[0] == paidTopic {
			// Strictly (parseJobLog): a receipt's malformed Paid log
			// counts for nothing rather than crash or pay a made-up sum.
			if ev, err := parseJobLog(r.cfg.Escrow, l); err == nil {
				out.Paid[ev.JobID] += ev.Amount
				out.Total += ev.Amount
				out.events = append(out.events, ev)
			}
		} else if s, err := r.esc.ParseSkipped(*l); err == nil && l.Topics[0] == skippedTopic {
			out.Skipped[s.JobId] = s.Reason
		}
	}
	r.log.Info("redeemed", "vouchers", len(vs), "paid", len(out.Paid), "skipped", len(out.Skipped), "total", out.Total, "gas", res.GasUsed)
	return out, nil
}

// CheckRelease is the seller's check of a buyer's release for lock: signed by
// the lock's buyer for this domain, for the same job, seller and amount, and
// paying this node.
func (r *Rail) CheckRelease(rel *Release, l *Lock) error {
	if rel.JobID != l.JobID || rel.Buyer != l.Buyer || rel.Seller != l.Seller || rel.Amount != l.Amount {
		return fmt.Errorf("%w: release does not match its lock", ErrInvalidVoucher)
	}
	if rel.Seller != r.Address() {
		return fmt.Errorf("%w: release pays %s, this node is %s", ErrInvalidVoucher, rel.Seller, r.Address())
	}
	return r.domain.VerifyRelease(rel)
}
