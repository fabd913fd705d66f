package demo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/market/builtin"
	"github.com/swarmwage/swarmwage/verify"
)

func TestRunHiresVerifiesAndSettlesThenCleansUp(t *testing.T) {
	tmp, out := t.TempDir(), t.TempDir()
	var steps []string
	res, err := Run(t.Context(), Options{
		OutDir:       out,
		TempDir:      tmp,
		Capabilities: []string{builtin.CapStatsMean, builtin.CapChart},
		Step:         func(s string) { steps = append(steps, s) },
	})
	require.NoError(t, err)
	require.True(t, res.OK)
	require.Len(t, res.Hires, 2)
	for _, h := range res.Hires {
		require.Equal(t, controlapi.OutcomeReleased, h.Outcome, h.Error)
		require.Equal(t, "released", h.Escrow)
		require.Equal(t, res.Seller, h.Seller)
		require.NotEmpty(t, h.JobID)
	}
	require.Equal(t, "0.03", res.BuyerBalance.Paid)
	require.Equal(t, "9.97", res.BuyerBalance.Available)
	require.Equal(t, "0", res.BuyerBalance.Held)
	require.Equal(t, "0.03", res.SellerBalance.Earned)
	require.Equal(t, filepath.Join(out, ChartFile), res.ChartPath)
	require.FileExists(t, res.ChartPath)
	require.Contains(t, steps, "hiring "+builtin.CapChart)

	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, entries, "the temporary repos are removed")
}

func TestSelectJobs(t *testing.T) {
	all, err := selectJobs(nil)
	require.NoError(t, err)
	require.Equal(t, Jobs(), all)

	some, err := selectJobs([]string{builtin.CapCodeSandboxed, builtin.CapStatsMean})
	require.NoError(t, err)
	require.Equal(t, builtin.CapCodeSandboxed, some[0].Capability)
	require.Equal(t, builtin.CapStatsMean, some[1].Capability)

	_, err = selectJobs([]string{"text.translate.en.it.fluent"})
	require.ErrorContains(t, err, `the demo does not hire "text.translate.en.it.fluent"`)
}

// TestEveryDemoInputMatchesItsSchema keeps the demo's inputs valid as the
// taxonomy changes: a broken input would fail with exit 2 before any hire.
func TestEveryDemoInputMatchesItsSchema(t *testing.T) {
	for _, j := range Jobs() {
		t.Run(j.Capability, func(t *testing.T) {
			require.NoError(t, verify.ValidateInput(j.Capability, j.Input))
		})
	}
}
