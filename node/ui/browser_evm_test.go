package ui_test

import (
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

// TestDashboardEVMMoneyInARealBrowser: a node on the evm rail, on a real
// anvil chain, shows its address and its money on chain on the money
// page, and the page's withdraw button pays its free deposit out to the
// address, as the chain then says.
func TestDashboardEVMMoneyInARealBrowser(t *testing.T) {
	chrome := needChromium(t)
	shots := artifactDir(t)
	ctx := t.Context()
	a := evmtest.StartAnvil(t)
	deployer, err := evm.ParseKey(a.Keys[0])
	require.NoError(t, err)
	dep, err := evm.Deploy(ctx, a.URL, deployer, evm.DeployOptions{TestToken: true, Notice: time.Hour})
	require.NoError(t, err)
	repo := nodetest.NewRepoWith(t, filepath.Join(t.TempDir(), "repo"), testNetwork, func(c *node.Config) {
		c.Settlement = node.SettlementConfig{Rail: node.RailEVM, RPC: a.URL, Escrow: dep.Escrow.Hex(), Token: dep.Token.Hex(), Confirmations: 1}
	})
	k, _, err := evm.LoadOrCreateKey(filepath.Join(repo.Dir, evm.KeyFileName))
	require.NoError(t, err)
	require.NoError(t, evm.SendNative(ctx, a.URL, deployer, k.Address(), new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)))
	require.NoError(t, evm.MintTest(ctx, a.URL, deployer, dep.Token, k.Address(), 10_000_000)) // 10 tokens
	n := nodetest.Start(t, repo, node.Options{})
	require.NotNil(t, n.Settler, "the node runs the evm rail")
	_, _, err = n.Settler.Deposit(ctx, 4_000_000)
	require.NoError(t, err)

	b := newTab(t, startBrowser(t, chrome))
	b.open(login(t, n))
	b.waitReady("overview")
	b.nav("money")
	b.waitFor(`#evm:not([hidden]) [data-field="address"]`)
	require.Equal(t, k.Address().Hex(), b.text(`[data-field="address"]`))
	require.Equal(t, "4", b.text(`[data-field="chain deposit"]`))
	require.Equal(t, "4", b.text(`[data-field="chain free"]`))
	require.Equal(t, "6", b.text(`[data-field="chain token"]`))
	require.Equal(t, "4 tokens", b.text(`[data-field="deposited"]`), "amounts in the rail's unit")
	b.shot(shots, "evm-money")

	b.click(`#withdraw`)
	require.Eventually(t, func() bool { return b.text(`[data-field="withdraw result"]`) != "Sending…" }, 30*time.Second, 100*time.Millisecond)
	require.Equal(t, "Withdrawn 4; pending (under notice) 0.", b.text(`[data-field="withdraw result"]`))
	require.Eventually(t, func() bool { return b.text(`[data-field="chain token"]`) == "10" }, 10*time.Second, 100*time.Millisecond,
		"the page shows the token back at the address")
	require.Equal(t, "0", b.text(`[data-field="chain deposit"]`))
	require.Equal(t, "4 tokens", b.text(`[data-field="withdrawn"]`))
	w, err := dial(t, n).Wallet(ctx)
	require.NoError(t, err)
	require.Equal(t, "10", w.Chain.Token, "and the chain agrees: %+v", w.Chain)
	b.shot(shots, "evm-money-withdrawn")
}
