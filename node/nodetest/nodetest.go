// Package nodetest builds real swarmwage nodes for tests: repos in
// t.TempDir, libp2p on loopback only, a private network, Badger on disk.
// It is imported by tests only.
package nodetest

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/node"
)

// RaiseFileLimit lifts RLIMIT_NOFILE to its hard limit: many in-process
// nodes need many file descriptors. Call it from TestMain or init.
func RaiseFileLimit() {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
}

// NewRepo creates a repo in a fresh temp dir for a loopback-only node on
// the private network.
func NewRepo(t testing.TB, network string) *node.Repo {
	t.Helper()
	return NewRepoAt(t, t.TempDir(), network)
}

// NewRepoAt is NewRepo in dir.
func NewRepoAt(t testing.TB, dir, network string) *node.Repo {
	t.Helper()
	return NewRepoWith(t, dir, network, nil)
}

// NewRepoWith is NewRepoAt with edit applied to the config first.
func NewRepoWith(t testing.TB, dir, network string, edit func(*node.Config)) *node.Repo {
	t.Helper()
	cfg := node.DefaultConfig(network)
	cfg.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.API = "127.0.0.1:0"
	if edit != nil {
		edit(&cfg)
	}
	repo, err := node.Init(dir, cfg)
	require.NoError(t, err)
	return repo
}

// Start starts a node from repo bootstrapping from boot, with the prefetch
// cache's background refresh off (tests refresh it by hand), and closes it
// when the test ends.
func Start(t testing.TB, repo *node.Repo, opts node.Options, boot ...*node.Node) *node.Node {
	t.Helper()
	for _, b := range boot {
		opts.Bootstrap = append(opts.Bootstrap, Addrs(b)...)
	}
	opts.DHTOptions = append([]dht.Option{dht.CacheRefresh(time.Hour)}, opts.DHTOptions...)
	n, err := node.New(context.Background(), repo, opts)
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	require.NoError(t, n.Start(context.Background()))
	return n
}

// Addrs are n's listen addresses with /p2p/<id>.
func Addrs(n *node.Node) []string {
	var out []string
	for _, a := range n.Host.Addrs() {
		out = append(out, a.String()+"/p2p/"+n.Host.ID().String())
	}
	return out
}

// WaitReady polls until every node has DHT peers and has provided every
// capability it announced.
func WaitReady(t testing.TB, nodes ...*node.Node) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, n := range nodes {
			if n.Routing.RoutingTableSize() == 0 || n.Routing.Pending() > 0 {
				return false
			}
		}
		return true
	}, 60*time.Second, 50*time.Millisecond)
}

// Amount parses a decimal credit amount.
func Amount(t testing.TB, s string) int64 {
	t.Helper()
	v, err := escrow.ParseAmount(s)
	require.NoError(t, err)
	return v
}
