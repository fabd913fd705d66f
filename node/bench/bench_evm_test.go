package bench_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
	"github.com/swarmwage/swarmwage/node/bench"
)

// BenchmarkHireEVMConcurrent32 measures hires on the evm rail (a real
// anvil) against the credits rail in the same run, 32 in flight, with the
// chain's cost per hire ('swarmwage bench hire --settlement evm' prints the
// same figures).
func BenchmarkHireEVMConcurrent32(b *testing.B) {
	a := evmtest.StartAnvil(b)
	k, err := evm.ParseKey(a.Keys[0])
	require.NoError(b, err)
	res, err := bench.HireEVM(context.Background(), max(b.N, 64), 32, bench.EVMOptions{RPC: a.URL, Deployer: k})
	require.NoError(b, err)
	b.ReportMetric(res.HiresPerSec, "hires/s")
	b.ReportMetric(*res.CreditsHiresPerSec, "credits-hires/s")
	b.ReportMetric(*res.RatioToCredits, "ratio")
	b.ReportMetric(res.Chain.TxsPerHire, "txs/hire")
	b.ReportMetric(res.Chain.GasPerHire, "gas/hire")
	b.ReportMetric(res.Chain.ReleaseToPaid.P50MS, "release-to-paid-p50-ms")
}

// TestBenchHireEVMReportsTheChain runs a small evm bench: every hire is
// released, every release redeemed, and the chain's figures are counted.
func TestBenchHireEVMReportsTheChain(t *testing.T) {
	if testing.Short() {
		// The CI's race step runs -short; under the race detector anvil's
		// waits take many times longer. 'go test ./node/bench' runs it.
		t.Skip("-short: a 40-hire evm bench on anvil; 'go test ./node/bench' runs it")
	}
	a := evmtest.StartAnvil(t)
	k, err := evm.ParseKey(a.Keys[0])
	require.NoError(t, err)
	res, err := bench.HireEVM(t.Context(), 40, 8, bench.EVMOptions{RPC: a.URL, Deployer: k})
	require.NoError(t, err)
	require.Zero(t, res.Failed, res.FirstError)
	require.Equal(t, "evm", res.Settlement)
	require.Equal(t, 41, res.Chain.Redeemed, "every release redeemed, the warm-up's too")
	require.Positive(t, res.Chain.ByKind["allocate"])
	require.Positive(t, res.Chain.ByKind["redeem"])
	require.Zero(t, res.Chain.ByKind["cancel"], "no refunds on the happy path")
	require.Less(t, res.Chain.TxsPerHire, 1.0, "less than one transaction a hire")
	require.Equal(t, 41, res.Chain.ReleaseToPaid.N)
	require.Positive(t, *res.CreditsHiresPerSec)
}
