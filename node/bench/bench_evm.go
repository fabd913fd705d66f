package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

// Chain is what an evm bench run did on chain, both nodes together.
type Chain struct {
	ChainID int64 `json:"chain_id"`
	// Txs and Gas are every transaction the two nodes sent after the
	// buyer's deposit (allocations, redeem batches, cancels) and the gas
	// they used; per hire over the successful hires.
	Txs        int            `json:"txs"`
	Gas        uint64         `json:"gas"`
	TxsPerHire float64        `json:"txs_per_hire"`
	GasPerHire float64        `json:"gas_per_hire"`
	ByKind     map[string]int `json:"by_kind"`
	// Redeemed vouchers in Batches redeem transactions.
	Redeemed int `json:"redeemed"`
	Batches  int `json:"batches"`
	// ReleaseToPaid is, per release, the time from the release reaching
	// the seller to the token in its address (the redeem interval
	// dominates it).
	ReleaseToPaid Latencies `json:"release_to_paid"`
	// RedeemIntervalMS is the seller's redeem interval in this run.
	RedeemIntervalMS int64 `json:"redeem_interval_ms"`
}

// EVMOptions is the chain of an evm bench run.
type EVMOptions struct {
	// RPC is the chain; Deployer a key with native currency there: it
	// deploys a test token and the escrow, funds the nodes' gas and mints
	// the buyer's tokens.
	RPC      string
	Deployer *evm.Key
	// RedeemInterval is the seller's; 0 means one second.
	RedeemInterval time.Duration
}

// HireEVM measures hires on the evm rail against the credits rail in
// one run: first n credits hires, then n evm hires of the same capability
// and concurrency on a fresh deployment (escrow and test token) on the
// chain at o.RPC. The evm figures are the result; CreditsHiresPerSec and
// RatioToCredits compare them; Chain counts the transactions, gas and the
// time from release to money in the seller's address.
func HireEVM(ctx context.Context, n, concurrency int, o EVMOptions) (HireResult, error) {
	if o.RPC == "" || o.Deployer == nil {
		return HireResult{}, errors.New("bench hire --settlement evm: a chain and a funded key are needed")
	}
	if o.RedeemInterval <= 0 {
		o.RedeemInterval = time.Second
	}
	creditsBuyer, creditsCleanup, err := benchCreditsPair(ctx, n, concurrency)
	if err != nil {
		return HireResult{}, fmt.Errorf("bench hire, credits: %w", err)
	}
	defer creditsCleanup()
	dep, err := evm.Deploy(ctx, o.RPC, o.Deployer, evm.DeployOptions{TestToken: true, Notice: 24 * time.Hour, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return HireResult{}, fmt.Errorf("bench hire: deploy: %w", err)
	}
	setup := func(i int, repo *node.Repo) error {
		repo.Config.Settlement = node.SettlementConfig{
			Rail: node.RailEVM, RPC: o.RPC, Escrow: dep.Escrow.Hex(), Token: dep.Token.Hex(), Confirmations: 1,
			RedeemInterval: o.RedeemInterval.String(), ReconcileInterval: "1s",
		}
		k, _, err := evm.LoadOrCreateKey(filepath.Join(repo.Dir, evm.KeyFileName))
		if err != nil {
			return err
		}
		eth := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
		return evm.SendNative(ctx, o.RPC, o.Deployer, k.Address(), eth)
	}
	nodes, cleanup, err := benchNodesWith(ctx, 2, node.Options{MarketOptions: []market.Option{market.Concurrency(max(concurrency, 4), 4*concurrency+64)}}, setup)
	if err != nil {
		return HireResult{}, err
	}
	defer cleanup()
	seller, buyer := nodes[0], nodes[1]
	price := int64(1000)
	if _, err := seller.Market.AddListing(ctx, market.ListingParams{Capability: "compute.statistics.mean", Price: price, Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}}); err != nil {
		return HireResult{}, err
	}
	total := int64(n+10) * price * 2
	buyerAddr := buyer.Settler.Address()
	if err := evm.MintTest(ctx, o.RPC, o.Deployer, dep.Token, commonAddress(buyerAddr), total); err != nil {
		return HireResult{}, fmt.Errorf("bench hire: mint: %w", err)
	}
	if _, _, err := buyer.Settler.Deposit(ctx, total); err != nil {
		return HireResult{}, fmt.Errorf("bench hire: deposit: %w", err)
	}
	before := [2]evm.Stats{seller.Settler.Stats(), buyer.Settler.Stats()}
	if err := warmUp(ctx, nodes, buyer); err != nil {
		return HireResult{}, err
	}
	// Rounds of credits and evm hires in turn, so that a machine whose load
	// changes during the run weighs on both alike.
	var credits, onEVM hireRun
	for i := range benchRounds {
		k := n/benchRounds + btoi(i < n%benchRounds)
		if err := credits.hires(ctx, creditsBuyer, k, concurrency); err != nil {
			return HireResult{}, err
		}
		if err := onEVM.hires(ctx, buyer, k, concurrency); err != nil {
			return HireResult{}, err
		}
	}
	res := onEVM.result(n, concurrency)
	// Every release is redeemed within the interval: wait for the last.
	want := n - res.Failed + 1 // the warm-up hire too
	deadline := time.Now().Add(o.RedeemInterval + time.Minute)
	for seller.Settler.Stats().Redeemed < want && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	ss, bs := seller.Settler.Stats(), buyer.Settler.Stats()
	ch := &Chain{ChainID: dep.ChainID, ByKind: map[string]int{}, Redeemed: ss.Redeemed, Batches: ss.Batches,
		ReleaseToPaid: summarize(ss.ReleaseToPaid), RedeemIntervalMS: o.RedeemInterval.Milliseconds()}
	for i, st := range []evm.Stats{ss, bs} {
		ch.Txs += st.Txs - before[i].Txs
		ch.Gas += st.Gas - before[i].Gas
		for k, v := range st.ByKind {
			if d := v - before[i].ByKind[k]; d > 0 {
				ch.ByKind[k] += d
			}
		}
	}
	if hires := n - res.Failed + 1; hires > 0 {
		ch.TxsPerHire = float64(ch.Txs) / float64(hires)
		ch.GasPerHire = float64(ch.Gas) / float64(hires)
	}
	if ss.Redeemed < want {
		return res, fmt.Errorf("bench hire: %d of %d releases redeemed within %s", ss.Redeemed, want, o.RedeemInterval+time.Minute)
	}
	res.Settlement, res.Chain = node.RailEVM, ch
	c, ratio := credits.result(n, concurrency).HiresPerSec, 0.0
	if c > 0 {
		ratio = res.HiresPerSec / c
	}
	res.CreditsHiresPerSec, res.RatioToCredits = &c, &ratio
	return res, nil
}

func commonAddress(hex string) common.Address { return common.HexToAddress(hex) }

// benchRounds is how many turns the credits and evm hires take.
const benchRounds = 4

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
