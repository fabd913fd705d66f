package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLIRoutingPolicyExplainAndTombstone drives the routing contract
// through the binary: hire --explain --json lists the candidates and the
// policy, a require_confirmation policy holds a hire with exit 2 until
// --confirm, a tombstoned ID is served by its successor, and caps show
// names the tombstone.
func TestCLIRoutingPolicyExplainAndTombstone(t *testing.T) {
	t.Parallel()
	seller := initRepo(t)
	startDaemon(t, seller)
	sellerAddr := nodeIDOf(t, seller).Addrs[0]
	buyer := initRepo(t)
	catalog := filepath.Join(buyer, "catalog.json")
	require.NoError(t, os.WriteFile(catalog, []byte(`{"capabilities":[
		{"id":"cap.stats.mean","status":"deprecated","superseded_by":"compute.statistics.mean","deprecated_catalog":"2.0.0"}]}`), 0o644))
	setConfig(t, buyer, `
[wcp]
catalog = "catalog.json"

[[policy]]
capability = "compute.statistics"
qos = "P3"
max_price = "0.2"

[[policy]]
capability = "compute.statistics.median"
require_confirmation = true`)
	startDaemon(t, buyer, "--bootstrap", sellerAddr)
	m := &testMarket{seller: seller, buyer: buyer}
	require.Equal(t, 0, swarmwage(t, "--repo", buyer, "wallet", "deposit", "10").Code)
	m.sell(t, "compute.statistics.mean", "0.05")
	m.sell(t, "compute.statistics.median", "0.05")

	r := swarmwage(t, "--repo", buyer, "hire", "--json", "--explain", "--input-json", `{"data":[1,2,3]}`, "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	var h struct {
		Capability string `json:"capability"`
		QoS        string `json:"qos"`
		Policy     struct {
			Capability string `json:"capability"`
			MaxPrice   string `json:"max_price"`
		} `json:"policy"`
		Candidates []struct {
			PeerID    string   `json:"peer_id"`
			Price     string   `json:"price"`
			Rating    *float64 `json:"rating"`
			LatencyMS *float64 `json:"latency_ms"`
			Chosen    bool     `json:"chosen"`
			Reason    string   `json:"reason"`
		} `json:"candidates"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &h), r.Stdout)
	require.Equal(t, "P3", h.QoS)
	require.Equal(t, "compute.statistics", h.Policy.Capability)
	require.Equal(t, "0.2", h.Policy.MaxPrice)
	require.Len(t, h.Candidates, 1)
	c := h.Candidates[0]
	require.True(t, c.Chosen)
	require.Equal(t, "0.05", c.Price)
	require.NotNil(t, c.Rating)
	require.NotNil(t, c.LatencyMS)
	require.NotEmpty(t, c.PeerID)
	require.Contains(t, c.Reason, "chosen")

	// The steward-like hold: exit 2, the policy named, nothing locked.
	r = swarmwage(t, "--repo", buyer, "hire", "--json", "--input-json", `{"data":[1,2,3]}`, "compute.statistics.median")
	require.Equal(t, 2, r.Code, r.Stdout)
	require.Contains(t, r.Stderr, "compute.statistics.median")
	require.Contains(t, r.Stderr, "--confirm")
	require.Equal(t, "0", balance(t, buyer).Held)
	r = swarmwage(t, "--repo", buyer, "hire", "--json", "--confirm", "--input-json", `{"data":[1,2,3]}`, "compute.statistics.median")
	require.Equal(t, 0, r.Code, r.Stderr)

	// A tombstoned ID runs as its successor.
	r = swarmwage(t, "--repo", buyer, "hire", "--json", "--input-json", `{"data":[1,2,3]}`, "cap.stats.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	var tomb struct {
		Capability string `json:"capability"`
		Requested  string `json:"requested"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &tomb))
	require.Equal(t, "compute.statistics.mean", tomb.Capability)
	require.Equal(t, "cap.stats.mean", tomb.Requested)

	r = swarmwage(t, "--repo", buyer, "caps", "show", "--json", "cap.stats.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"superseded_by": "compute.statistics.mean"`)
	require.Contains(t, r.Stdout, `"routes_to": "compute.statistics.mean"`)

	r = swarmwage(t, "--repo", buyer, "find", "--explain", "--qos", "P0", "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "QoS P0")
	require.Contains(t, r.Stdout, "chosen")
}

// An invalid [[policy]] stops the daemon at start-up with exit 2 and names
// the key.
func TestCLIInvalidPolicyRefusedAtStartUp(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	setConfig(t, repo, "[[policy]]\ncapability = \"compute\"\nqos = \"P7\"")
	r := swarmwage(t, "--repo", repo, "daemon")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "qos")
	require.Contains(t, r.Stderr, "policy")
}
