package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/swarmwage/swarmwage/escrow"
)

// The wallet of an evm node: what 'swarmwage wallet deposit', 'withdraw'
// and 'balance' do on the evm rail. Every movement is booked in the
// escrow's ledger under its transaction (BookRail), so the reconcile,
// which sees the same events, books nothing twice.

// Deposit moves amount of the token from the node's address into its free
// balance in the escrow contract (an approve if the allowance is short,
// then the deposit; gas from the node's address) and books what arrived.
// It returns the deposited amount and the deposit's transaction.
func (s *Settler) Deposit(ctx context.Context, amount int64) (int64, common.Hash, error) {
	if amount <= 0 {
		return 0, common.Hash{}, fmt.Errorf("deposit %d: %w: must be positive", amount, escrow.ErrWrongAmount)
	}
	r, err := s.Chain(ctx)
	if err != nil {
		return 0, common.Hash{}, err
	}
	if s.escrow() == nil {
		return 0, common.Hash{}, errors.New("evm: deposit: no escrow attached")
	}
	tok, err := r.tok.BalanceOf(&bind.CallOpts{Context: ctx}, r.Address())
	if err != nil {
		return 0, common.Hash{}, railErr(classify("read token balance", err, r.abis...))
	}
	if tok.Cmp(big.NewInt(amount)) < 0 {
		return 0, common.Hash{}, fmt.Errorf("deposit %s: %w: %s holds %s of the token %s; send it the token first",
			escrow.FormatAmount(amount), escrow.ErrInsufficientFunds, r.Address(), escrow.FormatAmount(tok.Int64()), s.cfg.Token)
	}
	allowance, err := r.tok.Allowance(&bind.CallOpts{Context: ctx}, r.Address(), s.cfg.Escrow)
	if err != nil {
		return 0, common.Hash{}, railErr(classify("read allowance", err, r.abis...))
	}
	if allowance.Cmp(big.NewInt(amount)) < 0 {
		res, _, err := r.send(ctx, "approve the escrow", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return r.tok.Approve(o, s.cfg.Escrow, big.NewInt(amount))
		})
		s.countTx("approve", res)
		if err != nil {
			return 0, common.Hash{}, railErr(err)
		}
	}
	res, rc, err := r.send(ctx, "deposit", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.esc.Deposit(o, big.NewInt(amount))
	})
	s.countTx("deposit", res)
	if err != nil {
		return 0, common.Hash{}, railErr(err)
	}
	var got int64
	for _, l := range rc.Logs {
		if e, err := r.esc.ParseDeposited(*l); err == nil && l.Address == s.cfg.Escrow && len(l.Topics) > 0 && l.Topics[0] == depositedTopic && e.Buyer == r.Address() {
			got += amountOf(e.Amount)
		}
	}
	if got <= 0 {
		return 0, res.Hash, fmt.Errorf("deposit %s: the escrow credited nothing (transaction %s)", escrow.FormatAmount(amount), res.Hash.Hex())
	}
	if got > amount {
		// The escrow credits at most what it was sent: a receipt saying
		// more is the endpoint's invention. Nothing is booked from it;
		// the reconcile books the deposit its events and receipt confirm.
		return 0, res.Hash, fmt.Errorf("deposit %s: %w: %s's receipt of %s says the escrow credited %s", escrow.FormatAmount(amount), ErrRPCMisbehaved,
			redactURL(s.cfg.RPC), res.Hash.Hex(), escrow.FormatAmount(got))
	}
	s.bookDeposit(ctx, res.Hash, res.Block, got)
	return got, res.Hash, nil
}

// WithdrawResult is what Withdraw did: Withdrawn is now in the node's
// address, Pending waits for the escrow's notice (a second Withdraw after
// it takes it).
type WithdrawResult struct {
	Withdrawn int64
	Pending   int64
}

// Withdraw pays out to the node's address everything it may take now:
// its released vouchers (and claimable locks) redeemed in one batch, its
// free deposit, and line money not backing open jobs whose withdrawal
// notice has passed. Line money whose notice has not started is asked for
// (RequestWithdraw) and counted as pending.
func (s *Settler) Withdraw(ctx context.Context) (WithdrawResult, error) {
	var out WithdrawResult
	r, err := s.Chain(ctx)
	if err != nil {
		return out, err
	}
	esc := s.escrow()
	if esc == nil {
		return out, errors.New("evm: withdraw: no escrow attached")
	}
	red, err := s.redeem(ctx, r, true)
	out.Withdrawn += red.Paid
	if err != nil {
		return out, railErr(err)
	}
	free, err := r.esc.Free(&bind.CallOpts{Context: ctx}, r.Address())
	if err != nil {
		return out, railErr(classify("read free deposit", err, r.abis...))
	}
	if f := amountOf(free); f > 0 {
		res, err := r.WithdrawFree(ctx, f)
		s.countTx("withdraw", res)
		if err != nil {
			return out, railErr(err)
		}
		s.book(ctx, escrow.RailWithdrawal, s.ref(res.Hash.Hex(), "withdraw", common.Address{}), f, "evm withdrawal "+res.Hash.Hex())
		out.Withdrawn += f
	}
	// The open amounts must be the chain's: payments of jobs the reconcile
	// has not seen yet would stay in the line for another notice.
	s.reconcileOnce(ctx, r)
	sellers, err := s.lineSellers(ctx)
	if err != nil {
		return out, err
	}
	for _, seller := range sellers {
		got, pending, err := s.withdrawLine(ctx, r, seller)
		out.Withdrawn += got
		out.Pending += pending
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// withdrawLine executes a line's withdrawal whose notice has passed, and
// asks for the line money that backs no open job.
func (s *Settler) withdrawLine(ctx context.Context, r *Rail, seller common.Address) (got, pending int64, err error) {
	line, err := r.LineOf(ctx, r.Address(), seller)
	if err != nil {
		return 0, 0, railErr(err)
	}
	if line.WithdrawAt != 0 {
		amount, res, err := r.Withdraw(ctx, seller)
		s.countTx("withdraw", res)
		switch {
		case err != nil && strings.Contains(err.Error(), "NoticeRunning"):
			return 0, line.Withdrawing, nil // its notice runs: the next call takes it
		case err != nil:
			return 0, 0, railErr(err)
		}
		s.dropLine(r.Address(), seller, blockOf(res))
		if amount > 0 {
			s.book(ctx, escrow.RailWithdrawal, s.ref(res.Hash.Hex(), "withdraw", seller), amount, "evm withdrawal "+res.Hash.Hex())
		}
		got = amount
		if line, err = r.LineOf(ctx, r.Address(), seller); err != nil {
			return got, 0, railErr(err)
		}
	}
	open, err := s.escrow().RailOpenAmount(ctx, escrow.RoleBuyer, seller.Hex())
	if err != nil {
		return got, 0, err
	}
	excess := line.Balance - open
	if excess <= 0 {
		return got, 0, nil
	}
	res, err := r.RequestWithdraw(ctx, seller, excess)
	s.countTx("request_withdraw", res)
	if err != nil {
		return got, 0, railErr(err)
	}
	s.dropLine(r.Address(), seller, blockOf(res))
	return got, excess, nil
}

// Figures are the node's money on chain, as 'wallet balance' shows them.
type Figures struct {
	ChainID int64
	Block   uint64
	Address common.Address
	// Token is the node's own token balance; Gas its native balance (wei).
	Token int64
	Gas   *big.Int
	// Free is its deposit not allocated to a seller; Lines what it
	// allocated to sellers' lines; Withdrawing what it asked to withdraw
	// from them.
	Free, Lines, Withdrawing int64
	// Held is the deposit backing its jobs the chain has not settled.
	Held int64
	// Redeemable is what it may redeem as a seller now: releases it holds
	// and locks of silent buyers past their not-before.
	Redeemable int64
	// ProvisionalDeposits is what its deposits not yet WatchDepth blocks
	// deep add up to: booked, and undone should a reorg take them.
	ProvisionalDeposits int64
}

// Deposit is the node's money in the escrow contract: free plus lines.
func (f Figures) Deposit() int64 { return f.Free + f.Lines }

// Figures reads the node's figures on chain at the confirmation depth.
func (s *Settler) Figures(ctx context.Context) (Figures, error) {
	r, err := s.Chain(ctx)
	if err != nil {
		return Figures{}, err
	}
	b, err := r.Balances(ctx)
	if err != nil {
		return Figures{}, railErr(err)
	}
	f := Figures{Block: b.Block, Address: b.Address, Token: b.Token, Gas: b.Gas, Free: b.Free}
	if id := r.Domain().ChainID; id.IsInt64() {
		f.ChainID = id.Int64()
	}
	esc := s.escrow()
	if esc == nil {
		return f, nil
	}
	sellers, err := s.lineSellers(ctx)
	if err != nil {
		return f, err
	}
	for _, seller := range sellers {
		l, err := r.LineOf(ctx, r.Address(), seller)
		if err != nil {
			return f, railErr(err)
		}
		f.Lines += l.Balance
		f.Withdrawing += l.Withdrawing
		open, err := esc.RailOpenAmount(ctx, escrow.RoleBuyer, seller.Hex())
		if err != nil {
			return f, err
		}
		f.Held += min(open, l.Balance)
	}
	if f.ProvisionalDeposits, err = s.ProvisionalDeposits(ctx); err != nil {
		return f, err
	}
	_, err = esc.RailOpen(ctx, escrow.RoleSeller, func(rec escrow.Record) bool {
		switch {
		case rec.State == escrow.StateReleased && !rec.Provisional:
			f.Redeemable += rec.Amount
		case (rec.State == escrow.StateDelivered || rec.Provisional) && !rec.NotBefore.IsZero() && !rec.NotBefore.After(time.Now()):
			f.Redeemable += rec.Amount
		}
		return false // the figures need no signed messages
	})
	if err != nil {
		return f, err
	}
	return f, nil
}
