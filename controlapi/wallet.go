package controlapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/swarmwage/swarmwage/escrow"
)

// WalletInfo is the answer of GET /v1/wallet and 'wallet balance --json':
// the ledger (escrow.Balance's fields), the rail, and on evm the node's
// address and its money on chain.
type WalletInfo struct {
	escrow.Balance
	// Withdrawing is the line money a withdrawal asked back that has not
	// left yet (evm only; its notice runs). It cannot back a hire, so it
	// is taken out of Available: the ledger books it as withdrawn when the
	// withdrawal executes. Available + Withdrawing + Held + Paid +
	// Withdrawn == Deposited + Earned.
	Withdrawing int64
	// Rail is RailCredits or RailEVM.
	Rail string
	// Address is the node's address on the rail (evm only).
	Address string
	// Chain is the node's money on chain (evm only; nil when the chain
	// could not be read, and ChainError says why).
	Chain      *ChainInfo
	ChainError string
}

// ChainInfo is an evm node's money on chain. Amounts are decimal strings
// of the token (6 decimals), Gas of the chain's native currency (ether).
type ChainInfo struct {
	ChainID int64  `json:"chain_id"`
	Block   uint64 `json:"block"`
	// Token is the node's own token balance, Gas its gas money.
	Token string `json:"token"`
	Gas   string `json:"gas"`
	// Deposit is its money in the escrow contract: Free (not allocated)
	// plus Lines (allocated to sellers), of which Withdrawing was asked
	// back.
	Deposit     string `json:"deposit"`
	Free        string `json:"free"`
	Lines       string `json:"lines"`
	Withdrawing string `json:"withdrawing"`
	// Held is the deposit backing its jobs the chain has not settled.
	Held string `json:"held"`
	// Redeemable is what it may redeem as a seller now.
	Redeemable string `json:"redeemable"`
	// Provisional is what of its deposits is not yet evm.WatchDepth
	// blocks deep: booked, but undone if a reorg takes the deposit away.
	Provisional string `json:"provisional"`
}

// MarshalJSON writes the balance's fields, then "rail" and, on evm,
// "address", "withdrawing" (when the chain was read), the chain's "token", "gas", "deposit" and "redeemable" at the
// top (the ledger's "held" is there already) and all figures under
// "chain".
func (w WalletInfo) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(w.Balance)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["rail"] = w.Rail
	if w.Address != "" {
		m["address"] = w.Address
	}
	if c := w.Chain; c != nil {
		m["token"], m["gas"], m["deposit"], m["redeemable"] = c.Token, c.Gas, c.Deposit, c.Redeemable
		m["withdrawing"] = escrow.FormatAmount(w.Withdrawing)
		m["chain"] = c
	}
	if w.ChainError != "" {
		m["chain_error"] = w.ChainError
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (w *WalletInfo) UnmarshalJSON(data []byte) error {
	var b escrow.Balance
	if err := json.Unmarshal(data, &b); err != nil {
		return err
	}
	var rest struct {
		Rail        string     `json:"rail"`
		Address     string     `json:"address"`
		Withdrawing string     `json:"withdrawing"`
		Chain       *ChainInfo `json:"chain"`
		ChainError  string     `json:"chain_error"`
	}
	if err := json.Unmarshal(data, &rest); err != nil {
		return fmt.Errorf("decode wallet: %w", err)
	}
	*w = WalletInfo{Balance: b, Rail: rest.Rail, Address: rest.Address, Chain: rest.Chain, ChainError: rest.ChainError}
	if rest.Withdrawing != "" {
		v, err := escrow.ParseAmount(rest.Withdrawing)
		if err != nil {
			return fmt.Errorf("decode wallet: withdrawing: %w", err)
		}
		w.Withdrawing = v
	}
	return nil
}

// WithdrawInfo is the answer of POST /v1/wallet/withdraw and 'wallet
// withdraw --json': paid out to the node's address now, and what waits for
// the escrow's notice (a second withdraw after it takes that).
type WithdrawInfo struct {
	Withdrawn string `json:"withdrawn"`
	Pending   string `json:"pending"`
}

// AddressInfo is the answer of GET /v1/wallet/address and 'wallet address
// --json'.
type AddressInfo struct {
	Address string `json:"address"`
}

// Wallet returns the daemon's wallet (GET /v1/wallet).
func (c *Client) Wallet(ctx context.Context) (WalletInfo, error) {
	var out WalletInfo
	return out, c.do(ctx, http.MethodGet, "/v1/wallet", nil, &out)
}

// Withdraw has the daemon withdraw to the node's address.
func (c *Client) Withdraw(ctx context.Context) (WithdrawInfo, error) {
	var out WithdrawInfo
	return out, c.do(ctx, http.MethodPost, "/v1/wallet/withdraw", struct{}{}, &out)
}

// Address returns the daemon's address on its rail.
func (c *Client) Address(ctx context.Context) (AddressInfo, error) {
	var out AddressInfo
	return out, c.do(ctx, http.MethodGet, "/v1/wallet/address", nil, &out)
}
