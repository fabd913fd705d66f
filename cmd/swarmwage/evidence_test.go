package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCLIEvidenceAnyoneCanCheck: the seller exports a sold job's evidence,
// and verify --evidence re-runs the verification from the file alone; a
// tampered file is refused with exit 2.
func TestCLIEvidenceAnyoneCanCheck(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "compute.statistics.mean", "0.05")
	h, r := hire(t, m.buyer, "--input-json", `{"data":[1,2,3,6]}`, "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Eventually(t, func() bool { return escrowState(t, m.seller, h.JobID) == "released" }, 10*time.Second, 100*time.Millisecond)

	r = swarmwage(t, "--repo", m.seller, "escrow", "evidence", h.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	file := filepath.Join(t.TempDir(), "evidence.json")
	require.NoError(t, os.WriteFile(file, []byte(r.Stdout), 0o600))

	r = swarmwage(t, "verify", "--json", "--evidence", file)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"decision": "release"`)
	require.Contains(t, r.Stdout, `"refund_shown_false": false`)

	tampered := filepath.Join(t.TempDir(), "tampered.json")
	evidence, err := os.ReadFile(file)
	require.NoError(t, err)
	bad := strings.Replace(string(evidence), `"amount": "0.05"`, `"amount": "5"`, 1)
	require.NotEqual(t, string(evidence), bad)
	require.NoError(t, os.WriteFile(tampered, []byte(bad), 0o600))
	r = swarmwage(t, "verify", "--evidence", tampered)
	require.Equal(t, 2, r.Code, r.Stdout)
	require.Contains(t, r.Stderr, "does not check out")

	r = swarmwage(t, "--repo", m.buyer, "escrow", "evidence", h.JobID)
	require.Equal(t, 2, r.Code, "a buyer has no sold job to show")
}
