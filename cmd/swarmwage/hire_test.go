package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// market is a seller and a buyer daemon on a private loopback network; the
// buyer holds 10 test credits.
type testMarket struct {
	seller, buyer       string
	sellerCmd, buyerCmd *exec.Cmd
	sellerAddr          string
}

// setConfig appends TOML to a repo's config.toml.
func setConfig(t *testing.T, repo, toml string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(repo, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n" + toml + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func startMarket(t *testing.T, sellerConfig string) *testMarket {
	t.Helper()
	m := &testMarket{seller: initRepo(t), buyer: initRepo(t)}
	if sellerConfig != "" {
		setConfig(t, m.seller, sellerConfig)
	}
	m.sellerCmd = startDaemon(t, m.seller)
	m.sellerAddr = nodeIDOf(t, m.seller).Addrs[0]
	m.buyerCmd = startDaemon(t, m.buyer, "--bootstrap", m.sellerAddr)
	r := swarmwage(t, "--repo", m.buyer, "wallet", "deposit", "10")
	require.Equal(t, 0, r.Code, r.Stderr)
	return m
}

// sell lists capID on the seller and waits until the buyer finds it.
func (m *testMarket) sell(t *testing.T, capID, price string, extra ...string) {
	t.Helper()
	args := append([]string{"--repo", m.seller, "sell", "add", "--price", price}, extra...)
	r := swarmwage(t, append(args, capID)...)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Eventually(t, func() bool {
		r := swarmwage(t, "--repo", m.buyer, "find", "--json", "--timeout", "5s", capID)
		return r.Code == 0 && strings.Contains(r.Stdout, `"price"`)
	}, 30*time.Second, 200*time.Millisecond)
}

type hireJSON struct {
	JobID        string          `json:"job_id"`
	Capability   string          `json:"capability"`
	Seller       string          `json:"seller"`
	Price        string          `json:"price"`
	Output       json.RawMessage `json:"output"`
	Verification struct {
		Passed bool `json:"passed"`
		Checks []struct {
			Name   string `json:"name"`
			Passed bool   `json:"passed"`
		} `json:"checks"`
	} `json:"verification"`
	Escrow struct {
		State string `json:"state"`
	} `json:"escrow"`
}

func hire(t *testing.T, repo string, args ...string) (hireJSON, cliResult) {
	t.Helper()
	r := swarmwage(t, append([]string{"--repo", repo, "hire", "--json"}, args...)...)
	var h hireJSON
	if r.Stdout != "" {
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &h), r.Stdout)
	}
	return h, r
}

type balanceJSON struct {
	Available string `json:"available"`
	Held      string `json:"held"`
	Earned    string `json:"earned"`
	Paid      string `json:"paid"`
}

func balance(t *testing.T, repo string) balanceJSON {
	t.Helper()
	r := swarmwage(t, "--repo", repo, "wallet", "balance", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var b balanceJSON
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &b))
	return b
}

func escrowState(t *testing.T, repo, jobID string) string {
	t.Helper()
	r := swarmwage(t, "--repo", repo, "escrow", "show", "--json", jobID)
	if r.Code != 0 {
		return ""
	}
	var rec struct {
		State string `json:"state"`
	}
	_ = json.Unmarshal([]byte(r.Stdout), &rec)
	return rec.State
}

func TestCLIHireMeanMovesBothBalancesByThePrice(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "compute.statistics.mean", "0.05")

	h, r := hire(t, m.buyer, "--input-json", `{"data":[1,2,3,4]}`, "--max-price", "0.1", "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"result":2.5}`, string(h.Output))
	require.True(t, h.Verification.Passed)
	require.Equal(t, "released", h.Escrow.State)
	require.Equal(t, "0.05", h.Price)
	require.Equal(t, nodeIDOf(t, m.seller).PeerID, h.Seller)

	require.Equal(t, balanceJSON{Available: "9.95", Held: "0", Paid: "0.05", Earned: "0"}, balance(t, m.buyer))
	require.Eventually(t, func() bool { return balance(t, m.seller).Earned == "0.05" }, 10*time.Second, 100*time.Millisecond)
	require.Equal(t, "0.05", balance(t, m.seller).Available)

	// The buyer rates the job; find shows the rating.
	r = swarmwage(t, "--repo", m.buyer, "rate", h.JobID, "5")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", m.buyer, "rate", h.JobID, "6")
	require.Equal(t, 2, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", m.buyer, "find", "--json", "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"rating": 5`)
	require.Contains(t, r.Stdout, `"ratings": 1`)

	// Both sides remember the job.
	r = swarmwage(t, "--repo", m.buyer, "jobs", "show", "--json", h.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"status": "verified"`)
	r = swarmwage(t, "--repo", m.seller, "jobs", "list", "--json", "--role", "seller")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, h.JobID)
	r = swarmwage(t, "--repo", m.buyer, "jobs", "show", "nosuchjob")
	require.Equal(t, 2, r.Code, r.Stderr)

	// --seller hires that peer; an unknown peer is no seller.
	h2, r := hire(t, m.buyer, "--seller", h.Seller, "--input-json", `{"data":[5]}`, "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, h.Seller, h2.Seller)
	_, r = hire(t, m.buyer, "--seller", "not-a-peer-id", "--input-json", `{"data":[5]}`, "compute.statistics.mean")
	require.Equal(t, 2, r.Code, r.Stderr)

	// Without --json the output JSON goes to stdout, nothing else; the input
	// comes inline, from stdin or from a file.
	r = swarmwage(t, "--repo", m.buyer, "hire", "--input-json", `{"data":[2,4]}`, "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"result":3}`, r.Stdout)
	r = swarmwageIn(t, `{"data":[3,5]}`, "--repo", m.buyer, "hire", "--input", "-", "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"result":4}`, r.Stdout)
	in := filepath.Join(t.TempDir(), "in.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"data":[10]}`), 0o644))
	r = swarmwage(t, "--repo", m.buyer, "hire", "--input", in, "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"result":10}`, r.Stdout)

	// Input that breaks the schema is refused before anything is sent.
	r = swarmwage(t, "--repo", m.buyer, "hire", "--input-json", `{"data":"1,2"}`, "compute.statistics.mean")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "/data")
	r = swarmwage(t, "--repo", m.buyer, "hire", "--input-json", `{not json`, "compute.statistics.mean")
	require.Equal(t, 2, r.Code, r.Stderr)
}

func TestCLIHireWrongAnswerFailsVerificationAndRefunds(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "compute.statistics.mean", "0.05", "--handler", `exec:sh -c "cat >/dev/null; echo '{\"result\": 42}'"`)

	h, r := hire(t, m.buyer, "--input-json", `{"data":[1,2,3]}`, "compute.statistics.mean")
	require.Equal(t, 5, r.Code, r.Stderr)
	require.False(t, h.Verification.Passed)
	require.Equal(t, "refunded", h.Escrow.State)
	failed := ""
	for _, c := range h.Verification.Checks {
		if !c.Passed {
			failed = c.Name
		}
	}
	require.Equal(t, "value_matches", failed)
	require.Contains(t, r.Stderr, "verification failed")
	require.Equal(t, balanceJSON{Available: "10", Held: "0", Paid: "0", Earned: "0"}, balance(t, m.buyer))
	// The seller delivered, so on its side a refund is a dispute: it keeps
	// the signed evidence, and earns nothing.
	require.Eventually(t, func() bool { return escrowState(t, m.seller, h.JobID) == "disputed" }, 10*time.Second, 100*time.Millisecond)
	require.Equal(t, "0", balance(t, m.seller).Earned)
}

func TestCLIMaxPriceUnderEveryListingExitsThreeWithNoHold(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "compute.statistics.median", "0.05")

	_, r := hire(t, m.buyer, "--input-json", `{"data":[1,2,3]}`, "--max-price", "0.04", "compute.statistics.median")
	require.Equal(t, 3, r.Code, r.Stderr)
	require.Equal(t, balanceJSON{Available: "10", Held: "0", Paid: "0", Earned: "0"}, balance(t, m.buyer))
	r = swarmwage(t, "--repo", m.buyer, "escrow", "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stdout, "job_id", "no hold may be left behind")

	// Regression: --max-price 0 read as "no limit" and paid 0.01.
	_, r = hire(t, m.buyer, "--input-json", `{"data":[1,2,3]}`, "--max-price", "0", "compute.statistics.median")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "must be more than 0")
	require.Equal(t, balanceJSON{Available: "10", Held: "0", Paid: "0", Earned: "0"}, balance(t, m.buyer))
}

// Regression (issue 22): hire had no spending limit by default. Without
// --max-price a hire pays at most [market] max_price ("1" unless set): a
// seller at 3 is not hired (exit 3, nothing held, the message names the key
// and the flag); --max-price above the configured limit is the user's
// explicit choice and hires it; a lower [market] max_price applies too.
func TestCLIHireSpendsAtMostTheConfiguredMaxPriceByDefault(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "compute.statistics.median", "3")
	in := []string{"--input-json", `{"data":[1,2,3]}`}

	_, r := hire(t, m.buyer, append(in, "compute.statistics.median")...)
	require.Equal(t, 3, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "no seller within the price limit 1 ([market] max_price; raise it or pass --max-price)")
	require.Equal(t, balanceJSON{Available: "10", Held: "0", Paid: "0", Earned: "0"}, balance(t, m.buyer))

	h, r := hire(t, m.buyer, append(in, "--max-price", "3.5", "compute.statistics.median")...)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "3", h.Price)
	require.Equal(t, balanceJSON{Available: "7", Held: "0", Paid: "3", Earned: "0"}, balance(t, m.buyer))
}

// TestCLISellerKilledMidJobBuyerRefundsAtDeadline: the seller dies (SIGKILL)
// while its handler runs; the buyer gets its hold back when the job's
// deadline passes.
func TestCLISellerKilledMidJobBuyerRefundsAtDeadline(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "compute.statistics.mean", "0.05", "--handler", `exec:sh -c "cat >/dev/null; sleep 20"`)

	done := make(chan cliResult, 1)
	go func() {
		r := swarmwage(t, "--repo", m.buyer, "hire", "--json", "--timeout", "6s", "--input-json", `{"data":[1]}`, "compute.statistics.mean")
		done <- r
	}()
	// Kill the seller once it has accepted the job: its side of the escrow
	// is locked, and the handler runs.
	require.Eventually(t, func() bool {
		r := swarmwage(t, "--repo", m.seller, "escrow", "list", "--json")
		return strings.Contains(r.Stdout, `"locked"`)
	}, 20*time.Second, 50*time.Millisecond)
	require.NoError(t, m.sellerCmd.Process.Kill())

	var r cliResult
	select {
	case r = <-done:
	case <-time.After(40 * time.Second):
		t.Fatal("hire did not end after the deadline")
	}
	require.Equal(t, 4, r.Code, "stdout=%s stderr=%s", r.Stdout, r.Stderr)
	var h hireJSON
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &h))
	require.Equal(t, "refunded", h.Escrow.State)
	require.Equal(t, balanceJSON{Available: "10", Held: "0", Paid: "0", Earned: "0"}, balance(t, m.buyer))
}

// TestCLIBuyerKilledAfterDeliveryHoldAutoReleases: a custom capability has
// no standard verifier, so its hold stays delivered for the verification
// window; the buyer daemon is killed and restarted meanwhile, and the hold
// is released at the end of the window on both sides.
func TestCLIBuyerKilledAfterDeliveryHoldAutoReleases(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "[market]\nverification_window = \"4s\"")
	m.sell(t, "custom.test.echo", "0.25", "--handler", "exec:cat")

	h, r := hire(t, m.buyer, "--input-json", `{"hello":"world"}`, "custom.test.echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"hello":"world"}`, string(h.Output))
	require.Equal(t, "delivered", h.Escrow.State)
	require.Equal(t, "0.25", balance(t, m.buyer).Held)

	require.NoError(t, m.buyerCmd.Process.Kill())
	_ = m.buyerCmd.Wait()
	require.Equal(t, "delivered", escrowState(t, m.buyer, h.JobID), "killed before the window ended")
	startDaemon(t, m.buyer, "--bootstrap", m.sellerAddr)

	require.Eventually(t, func() bool { return escrowState(t, m.buyer, h.JobID) == "released" }, 20*time.Second, 100*time.Millisecond)
	require.Equal(t, balanceJSON{Available: "9.75", Held: "0", Paid: "0.25", Earned: "0"}, balance(t, m.buyer))
	require.Eventually(t, func() bool { return balance(t, m.seller).Earned == "0.25" }, 20*time.Second, 100*time.Millisecond)
}

// TestCLIRefundDeliveredCustomJob: the buyer refunds a custom capability's
// delivered output before the window ends; the hold comes back and the
// seller records a dispute.
func TestCLIRefundDeliveredCustomJob(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "custom.test.echo", "0.25", "--handler", "exec:cat")
	h, r := hire(t, m.buyer, "--input-json", `{"a":1}`, "custom.test.echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "delivered", h.Escrow.State)

	r = swarmwage(t, "--repo", m.buyer, "escrow", "refund", h.JobID)
	require.Equal(t, 2, r.Code, "a refund needs a reason")
	r = swarmwage(t, "--repo", m.buyer, "escrow", "refund", "--reason", "not what I asked for", h.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, balanceJSON{Available: "10", Held: "0", Paid: "0", Earned: "0"}, balance(t, m.buyer))
	require.Eventually(t, func() bool { return escrowState(t, m.seller, h.JobID) == "disputed" }, 10*time.Second, 100*time.Millisecond)
}
