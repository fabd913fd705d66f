package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// statusJSON is 'status --json' (the fields checked here).
type statusJSON struct {
	PeerID       string   `json:"peer_id"`
	Network      string   `json:"network"`
	Online       bool     `json:"online"`
	Peers        *int     `json:"peers"`
	DHTPeers     *int     `json:"dht_peers"`
	Reachability string   `json:"reachability"`
	RelayAddrs   []string `json:"relay_addrs"`
	HolePunch    *struct {
		Attempts  int             `json:"attempts"`
		Successes int             `json:"successes"`
		Last      json.RawMessage `json:"last"`
	} `json:"hole_punch"`
	Listings []struct {
		Capability    string `json:"capability"`
		Price         string `json:"price"`
		LastAnnounced string `json:"last_announced"`
	} `json:"listings"`
	Balance *struct {
		Available string `json:"available"`
	} `json:"balance"`
	JobsInFlight *struct {
		Bought int `json:"bought"`
		Sold   int `json:"sold"`
	} `json:"jobs_in_flight"`
}

func status(t *testing.T, repo string) statusJSON {
	t.Helper()
	r := swarmwage(t, "--repo", repo, "status", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var s statusJSON
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &s), r.Stdout)
	return s
}

func TestCLIStatusOfflineAndOnline(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	r := swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.01", "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", repo, "wallet", "deposit", "2")
	require.Equal(t, 0, r.Code, r.Stderr)

	s := status(t, repo)
	require.False(t, s.Online)
	require.Equal(t, "clitest", s.Network)
	require.Equal(t, "unknown", s.Reachability)
	require.NotNil(t, s.RelayAddrs)
	require.NotNil(t, s.HolePunch)
	require.Equal(t, "null", string(s.HolePunch.Last))
	require.Len(t, s.Listings, 1)
	require.Empty(t, s.Listings[0].LastAnnounced)
	require.Equal(t, "2", s.Balance.Available)
	require.NotNil(t, s.JobsInFlight)
	r = swarmwage(t, "--repo", repo, "status")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "offline (start 'swarmwage daemon')")

	// The first node of a private network, told to be its relay.
	startDaemon(t, repo, "--relay-service")
	s = status(t, repo)
	require.True(t, s.Online)
	require.Equal(t, "public", s.Reachability, "a private network's relay is public")
	require.NotNil(t, s.Peers)
	require.NotNil(t, s.DHTPeers)
	require.Equal(t, nodeIDOf(t, repo).PeerID, s.PeerID)
	r = swarmwage(t, "--repo", repo, "status")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "reachability:  public")
	require.Contains(t, r.Stdout, "selling:       compute.statistics.mean at 0.01")

	r = swarmwage(t, "--repo", repo, "id", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"reachability": "public"`)
	require.Contains(t, r.Stdout, `"relay_addrs": []`)
	require.Contains(t, r.Stdout, `"hole_punch"`)
}

func TestCLIBadP2PConfigExitsTwo(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, toml, want string
	}{
		{"unknown reachability", "[p2p]\nreachability = \"sometimes\"", "p2p.reachability"},
		{"private relay", "[p2p]\nreachability = \"private\"\nrelay_service = true", "p2p.relay_service"},
		{"relay without peer ID", "[p2p]\nrelays = [\"/ip4/198.20.1.10/tcp/4747\"]", "p2p.relays"},
		{"unknown key", "[p2p]\nrelay = true", "p2p.relay"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			repo := initRepo(t)
			setConfig(t, repo, tc.toml)
			r := swarmwage(t, "--repo", repo, "status")
			require.Equal(t, 2, r.Code, r.Stderr)
			require.True(t, strings.Contains(r.Stderr, tc.want), r.Stderr)
		})
	}
	repo := initRepo(t)
	setConfig(t, repo, "[p2p]\nreachability = \"private\"")
	r := swarmwage(t, "--repo", repo, "daemon", "--relay-service")
	require.Equal(t, 2, r.Code, "--relay-service with reachability private: %s", r.Stderr)
	require.Contains(t, r.Stderr, "p2p.relay_service")
}
