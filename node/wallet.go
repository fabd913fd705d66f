package node

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
)

// The wallet on every rail, behind GET /v1/wallet (wallet balance), POST
// /v1/wallet/deposit, POST /v1/wallet/withdraw, GET /v1/wallet/address.
// The same functions serve the daemon's API and the CLI offline.

// walletTimeout bounds a wallet command's chain work: a deposit is two
// transactions, a withdrawal up to one per line.
const walletTimeout = 5 * time.Minute

// ErrNoRailAddress: the node settles in credits, which have no address.
var ErrNoRailAddress = controlapi.ErrNoRailAddress

// Wallet describes the wallet of a node with escrow esc and rail s (nil
// on credits). A chain that cannot be read leaves the chain figures out
// and says why in ChainError. On evm, Available excludes what a pending
// withdrawal takes (Withdrawing).
func Wallet(ctx context.Context, esc *escrow.Escrow, s *evm.Settler) (controlapi.WalletInfo, error) {
	b, err := esc.Balance(ctx)
	if err != nil {
		return controlapi.WalletInfo{}, err
	}
	w := controlapi.WalletInfo{Balance: b, Rail: RailCredits}
	if s == nil {
		return w, nil
	}
	w.Rail, w.Address = RailEVM, s.Address()
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	f, err := s.Figures(cctx)
	if err != nil {
		w.ChainError = err.Error()
		return w, nil
	}
	w.Chain = &controlapi.ChainInfo{
		ChainID: f.ChainID, Block: f.Block,
		Token: escrow.FormatAmount(f.Token), Gas: formatEther(f.Gas),
		Deposit: escrow.FormatAmount(f.Deposit()), Free: escrow.FormatAmount(f.Free), Lines: escrow.FormatAmount(f.Lines),
		Withdrawing: escrow.FormatAmount(f.Withdrawing), Held: escrow.FormatAmount(f.Held), Redeemable: escrow.FormatAmount(f.Redeemable),
		Provisional: escrow.FormatAmount(f.ProvisionalDeposits),
	}
	w.Withdrawing = min(max(f.Withdrawing, 0), max(w.Available, 0))
	w.Available -= w.Withdrawing
	return w, nil
}

// formatEther writes wei as a decimal string of ether, without trailing
// zeros.
func formatEther(wei *big.Int) string {
	if wei == nil {
		return "0"
	}
	r := new(big.Rat).SetFrac(wei, new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
	s := r.FloatString(18)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// DepositEVM moves amount of the token from the node's address into the
// escrow contract (approve and deposit) and returns the ledger after it.
func DepositEVM(ctx context.Context, esc *escrow.Escrow, s *evm.Settler, amount int64) (escrow.Balance, error) {
	if s == nil {
		return escrow.Balance{}, ErrNoRailAddress
	}
	ctx, cancel := context.WithTimeout(ctx, walletTimeout)
	defer cancel()
	if _, _, err := s.Deposit(ctx, amount); err != nil {
		return escrow.Balance{}, err
	}
	return esc.Balance(ctx)
}

// WithdrawEVM pays out to the node's address what it may take now
// (evm.Settler.Withdraw).
func WithdrawEVM(ctx context.Context, s *evm.Settler) (controlapi.WithdrawInfo, error) {
	if s == nil {
		return controlapi.WithdrawInfo{}, ErrNoRailAddress
	}
	ctx, cancel := context.WithTimeout(ctx, walletTimeout)
	defer cancel()
	res, err := s.Withdraw(ctx)
	info := controlapi.WithdrawInfo{Withdrawn: escrow.FormatAmount(res.Withdrawn), Pending: escrow.FormatAmount(res.Pending)}
	if err != nil {
		return info, fmt.Errorf("withdraw (%s withdrawn before the error): %w", info.Withdrawn, err)
	}
	return info, nil
}
