package main

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type historyJSON struct {
	Days []struct {
		Date  string `json:"date"`
		Hires int    `json:"hires"`
		Spent string `json:"spent"`
	} `json:"days"`
	Capabilities []struct {
		Capability string `json:"capability"`
		Hires      int    `json:"hires"`
		Spent      string `json:"spent"`
		Refunded   string `json:"refunded"`
		Sales      int    `json:"sales"`
		Earned     string `json:"earned"`
	} `json:"capabilities"`
	Total struct {
		Hires    int    `json:"hires"`
		Spent    string `json:"spent"`
		Refunded string `json:"refunded"`
		Sales    int    `json:"sales"`
		Earned   string `json:"earned"`
	} `json:"total"`
}

func walletHistoryOf(t *testing.T, repo string, args ...string) historyJSON {
	t.Helper()
	r := swarmwage(t, append([]string{"--repo", repo, "wallet", "history", "--json"}, args...)...)
	require.Equal(t, 0, r.Code, r.Stderr)
	var h historyJSON
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &h), r.Stdout)
	return h
}

// TestCLIWalletHistory: spending and earnings per day and per capability,
// through the daemon and offline.
func TestCLIWalletHistory(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "compute.statistics.mean", "0.01")
	m.sell(t, "custom.test.fails", "0.02", "--handler", `exec:sh -c "exit 3"`)
	_, r := hire(t, m.buyer, "--input-json", `{"data":[1,2,3]}`, "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	_, r = hire(t, m.buyer, "--input-json", `{}`, "custom.test.fails")
	require.Equal(t, 4, r.Code, r.Stderr)

	today := time.Now().Format(time.DateOnly)
	h := walletHistoryOf(t, m.buyer)
	require.Len(t, h.Days, 1)
	require.Equal(t, today, h.Days[0].Date)
	require.Equal(t, 2, h.Days[0].Hires)
	require.Equal(t, "0.01", h.Days[0].Spent)
	require.Len(t, h.Capabilities, 2)
	require.Equal(t, "compute.statistics.mean", h.Capabilities[0].Capability)
	require.Equal(t, "0.01", h.Capabilities[0].Spent)
	require.Equal(t, "0.02", h.Capabilities[1].Refunded)
	require.Equal(t, 2, h.Total.Hires)

	require.Eventually(t, func() bool {
		s := walletHistoryOf(t, m.seller)
		return s.Total.Sales == 2 && s.Total.Earned == "0.01"
	}, 10*time.Second, 100*time.Millisecond)

	text := swarmwage(t, "--repo", m.buyer, "wallet", "history")
	require.Equal(t, 0, text.Code, text.Stderr)
	require.Contains(t, text.Stdout, today)
	require.Contains(t, text.Stdout, "compute.statistics.mean")

	tomorrow := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
	require.Zero(t, walletHistoryOf(t, m.buyer, "--since", tomorrow).Total.Hires)
	require.Equal(t, 2, walletHistoryOf(t, m.buyer, "--days", "0").Total.Hires)
	require.Equal(t, 2, swarmwage(t, "--repo", m.buyer, "wallet", "history", "--days", "-1").Code)
	require.Equal(t, 2, swarmwage(t, "--repo", m.buyer, "wallet", "history", "--since", "yesterday").Code)

	// Offline: the same figures from the repo.
	require.NoError(t, m.buyerCmd.Process.Signal(os.Interrupt))
	_ = m.buyerCmd.Wait()
	off := walletHistoryOf(t, m.buyer)
	require.Equal(t, h.Total, off.Total)
}
