package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/node"
)

// runWallet runs the built binary.
func runWallet(t *testing.T, args ...string) cliResult {
	t.Helper()
	return swarmwage(t, args...)
}

func initRepoOn(t *testing.T, network string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	r := swarmwage(t, "--repo", dir, "init", "--network", network, "--listen", "/ip4/127.0.0.1/tcp/0", "--api", "127.0.0.1:0")
	require.Equal(t, 0, r.Code, r.Stderr)
	return dir
}

func TestWalletDepositAndBalance(t *testing.T) {
	t.Parallel()
	repo := initRepoOn(t, "clitest")
	r := runWallet(t, "--repo", repo, "wallet", "balance", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	// Issue 13: wallet balance --json says which rail the node settles on.
	require.JSONEq(t, `{"available":"0","held":"0","paid":"0","deposited":"0","earned":"0","pending":"0","rail":"credits"}`, r.Stdout)

	r = runWallet(t, "--repo", repo, "wallet", "deposit", "10")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "deposited 10 test credits; available 10")
	r = runWallet(t, "--repo", repo, "wallet", "deposit", "0.05", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"deposited":"0.05","balance":{"available":"10.05","held":"0","paid":"0","deposited":"10.05","earned":"0","pending":"0"}}`, r.Stdout)

	r = runWallet(t, "--repo", repo, "wallet", "balance", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var b map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &b))
	require.Equal(t, "10.05", b["available"])
	require.Equal(t, "0", b["held"])

	r = runWallet(t, "--repo", repo, "wallet", "balance")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Regexp(t, `available\s+10.05`, r.Stdout)
}

func TestWalletDepositRejects(t *testing.T) {
	t.Parallel()
	repo := initRepoOn(t, "clitest")
	testCases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no amount", []string{"wallet", "deposit"}, exitUsage, "exactly one amount"},
		{"negative", []string{"wallet", "deposit", "-1"}, exitUsage, "-1"},
		{"negative after --", []string{"wallet", "deposit", "--", "-1"}, exitUsage, "the amount must be positive"},
		{"zero", []string{"wallet", "deposit", "0"}, exitUsage, "the amount must be positive"},
		{"too many decimals", []string{"wallet", "deposit", "0.0000001"}, exitUsage, "decimals"},
		{"exponent", []string{"wallet", "deposit", "1e3"}, exitUsage, "parse amount"},
		{"no subcommand", []string{"wallet"}, exitUsage, "balance, deposit"},
		{"balance with an argument", []string{"wallet", "balance", "x"}, exitUsage, "no arguments"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r := runWallet(t, append([]string{"--repo", repo}, tc.args...)...)
			require.Equal(t, tc.code, r.Code, r.Stderr)
			require.Contains(t, r.Stderr, tc.msg)
			require.Empty(t, r.Stdout)
		})
	}
	r := runWallet(t, "--repo", filepath.Join(t.TempDir(), "none"), "wallet", "balance")
	require.Equal(t, exitUsage, r.Code, r.Stderr)
}

// On the public network a deposit must say it is test credits.
func TestWalletDepositOnAminoNeedsTestCreditsFlag(t *testing.T) {
	t.Parallel()
	repo := initRepoOn(t, "amino")
	r := runWallet(t, "--repo", repo, "wallet", "deposit", "5")
	require.Equal(t, exitUsage, r.Code)
	require.Contains(t, r.Stderr, "--test-credits")
	r = runWallet(t, "--repo", repo, "wallet", "deposit", "--test-credits", "5", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"available": "5"`)
}

func TestEscrowListAndShow(t *testing.T) {
	t.Parallel()
	repo := initRepoOn(t, "clitest")
	seller := lockSomething(t, repo)

	r := runWallet(t, "--repo", repo, "escrow", "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var list struct {
		Escrows []map[string]any `json:"escrows"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &list))
	require.Len(t, list.Escrows, 2)
	require.Equal(t, "job-2", list.Escrows[0]["job_id"], "newest first")
	require.Equal(t, "refunded", list.Escrows[0]["state"])
	require.Equal(t, "locked", list.Escrows[1]["state"])
	require.Equal(t, "1.5", list.Escrows[1]["amount"])
	require.Equal(t, seller.String(), list.Escrows[1]["counterparty"])

	r = runWallet(t, "--repo", repo, "escrow", "list", "--state", "locked")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "job-1")
	require.NotContains(t, r.Stdout, "job-2")

	r = runWallet(t, "--repo", repo, "escrow", "show", "job-2", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var rec escrow.Record
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rec))
	require.Equal(t, escrow.StateRefunded, rec.State)
	require.Equal(t, "seller unreachable", rec.Reason)
	require.NotNil(t, rec.Settle)
	require.NoError(t, rec.Lock.Verify())
	require.NoError(t, rec.Settle.Verify())

	r = runWallet(t, "--repo", repo, "escrow", "show", "job-1")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Regexp(t, `state\s+locked`, r.Stdout)

	r = runWallet(t, "--repo", repo, "wallet", "balance", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"held": "1.5"`)

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"escrow", "show", "nope"}, exitFailure, "no escrow for job"},
		{[]string{"escrow", "show"}, exitUsage, "exactly one job ID"},
		{[]string{"escrow", "list", "--role", "thief"}, exitUsage, "--role"},
		{[]string{"escrow", "list", "--state", "lost"}, exitUsage, "--state"},
		{[]string{"escrow", "list", "x"}, exitUsage, "no arguments"},
	} {
		r := runWallet(t, append([]string{"--repo", repo}, tc.args...)...)
		require.Equal(t, tc.code, r.Code, r.Stderr)
		require.Contains(t, r.Stderr, tc.msg)
	}
}

// lockSomething opens the repo offline, deposits, locks job-1 and locks and
// refunds job-2, and returns the seller.
func lockSomething(t *testing.T, dir string) peer.ID {
	t.Helper()
	ctx := context.Background()
	repo, err := node.Open(dir)
	require.NoError(t, err)
	l, err := node.OpenLocal(repo)
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	now := time.Now()
	clock := func() time.Time { return now }
	esc, err := escrow.New(l.DB, repo.Key, escrow.WithClock(clock))
	require.NoError(t, err)
	defer esc.Close()
	k, _, err := crypto.GenerateEd25519Key(nil)
	require.NoError(t, err)
	seller, err := peer.IDFromPrivateKey(k)
	require.NoError(t, err)
	require.NoError(t, esc.Deposit(ctx, 5*escrow.MicroPerCredit, "test"))
	for _, id := range []string{"job-1", "job-2"} {
		_, err = esc.Lock(ctx, escrow.LockParams{JobID: id, Capability: "compute.statistics.mean", Seller: seller,
			Amount: 1_500_000, Deadline: now.Add(time.Hour), Window: time.Minute})
		require.NoError(t, err)
		now = now.Add(time.Second) // distinct creation times order the list
	}
	_, err = esc.Refund(ctx, "job-2", "seller unreachable", nil)
	require.NoError(t, err)
	return seller
}

// With a daemon running, the commands go through its control API.
func TestWalletThroughDaemon(t *testing.T) {
	t.Parallel()
	repo := initRepoOn(t, "clitest")
	startDaemon(t, repo)
	r := runWallet(t, "--repo", repo, "wallet", "deposit", "2.5", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = runWallet(t, "--repo", repo, "wallet", "balance", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var b map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &b))
	require.Equal(t, "2.5", b["available"])
	require.Equal(t, "2.5", b["deposited"])
	r = runWallet(t, "--repo", repo, "escrow", "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"escrows":[]}`, r.Stdout)
	r = runWallet(t, "--repo", repo, "escrow", "show", "nope")
	require.Equal(t, exitFailure, r.Code, r.Stderr)
}
