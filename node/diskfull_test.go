//go:build linux

package node_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
	"github.com/swarmwage/swarmwage/node/storage"
)

// gatedMean is an http handler for compute.statistics.mean that holds each
// job until gate closes, so that a test can fill the disk mid-job.
type gatedMean struct {
	started chan struct{}
	gate    chan struct{}
}

func (g *gatedMean) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Data []float64 `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case g.started <- struct{}{}:
	default:
	}
	select {
	case <-g.gate:
	case <-r.Context().Done():
		return
	}
	sum := 0.0
	for _, v := range in.Data {
		sum += v
	}
	_ = json.NewEncoder(w).Encode(map[string]float64{"result": sum / float64(len(in.Data))})
}

// TestFullDiskRefusesNewWorkSettlesRunningJobsAndResumes: the seller and
// the buyer keep their repos on a real 384 MiB tmpfs, which another program
// fills to the last block while a job runs. Before, Badger's mmapped writes
// killed the daemon with SIGBUS here. Now new quotes and hires are refused
// with the disk-full error and nothing is locked for them, reads work, the
// running job settles on both sides on the full disk, and once the space is
// freed hires work again without a restart. The decisions are on disk.
func TestFullDiskRefusesNewWorkSettlesRunningJobsAndResumes(t *testing.T) {
	disk := nodetest.Tmpfs(t, 384<<20)
	minFree := func(c *node.Config) { c.Storage.MinFree = "48MiB" }
	ctx := context.Background()
	worker := &gatedMean{started: make(chan struct{}, 1), gate: make(chan struct{})}
	srv := httptest.NewServer(worker)
	t.Cleanup(srv.Close)

	boot := startNode(t, newRepo(t, t.TempDir()))
	sellerDir, buyerDir := filepath.Join(disk, "seller"), filepath.Join(disk, "buyer")
	seller := nodetest.Start(t, nodetest.NewRepoWith(t, sellerDir, testNetwork, minFree), node.Options{}, boot)
	buyer := nodetest.Start(t, nodetest.NewRepoWith(t, buyerDir, testNetwork, minFree), node.Options{}, boot)
	stranger := startNode(t, newRepo(t, t.TempDir()), boot) // a buyer with room to spare
	h, err := market.ParseHandler("http:" + srv.URL)
	require.NoError(t, err)
	_, err = seller.Market.AddListing(ctx, market.ListingParams{Capability: "compute.statistics.mean", Price: mustAmount(t, "0.05"), Handler: h})
	require.NoError(t, err)
	require.NoError(t, buyer.Escrow.Deposit(ctx, mustAmount(t, "10"), "test"))
	require.NoError(t, stranger.Escrow.Deposit(ctx, mustAmount(t, "10"), "test"))
	waitReady(t, boot, seller, buyer, stranger)
	reserves := []string{filepath.Join(sellerDir, "data", "swarmwage.reserve"), filepath.Join(buyerDir, "data", "swarmwage.reserve")}
	require.Eventually(t, func() bool { return exist(reserves[0]) && exist(reserves[1]) }, 10*time.Second, 50*time.Millisecond,
		"with room to spare each node keeps a reserve")

	hire := func(n *node.Node) (market.HireResult, error) {
		return n.Market.Hire(ctx, market.HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3,4]}`), Timeout: 30 * time.Second})
	}
	type result struct {
		res market.HireResult
		err error
	}
	running := make(chan result, 1)
	go func() {
		res, err := hire(buyer)
		running <- result{res, err}
	}()
	select {
	case <-worker.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the first job never reached the seller's handler")
	}

	// Another program fills the disk. A node gives up its reserve when the
	// disk is full (the space it frees serves the other node too); the
	// program takes that space as well, until no reserve is left.
	var fills []string
	require.Eventually(t, func() bool {
		fills = append(fills, nodetest.FillDisk(t, disk))
		return !exist(reserves[0]) && !exist(reserves[1])
	}, 20*time.Second, 300*time.Millisecond, "on a full disk the reserves are released")
	fills = append(fills, nodetest.FillDisk(t, disk))
	require.Less(t, nodetest.FreeBytes(t, disk), uint64(64<<10), "the disk is full to the last blocks")

	// A new hire is refused before anything is locked, and says why.
	before, err := buyer.Escrow.Balance(ctx)
	require.NoError(t, err)
	_, err = hire(buyer)
	require.ErrorIs(t, err, storage.ErrDiskFull)
	require.Contains(t, err.Error(), "disk full")
	require.Contains(t, err.Error(), "new quotes and hires are refused")
	require.Contains(t, err.Error(), "Free space on that disk")
	after, err := buyer.Escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, before, after, "nothing locked for a refused hire")

	// The seller quotes no one: a buyer with room learns the class.
	_, err = stranger.Market.Hire(ctx, market.HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2]}`), Seller: seller.Host.ID(), Timeout: 10 * time.Second})
	require.ErrorIs(t, err, market.ErrNoSeller)
	require.Contains(t, err.Error(), "low on disk space")
	sb, err := stranger.Escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, mustAmount(t, "10"), sb.Available, "nothing locked for the stranger either")

	// Reads keep working.
	_, err = seller.Market.Store().List(ctx)
	require.NoError(t, err)
	recs, err := buyer.Escrow.List(ctx, escrow.Filter{})
	require.NoError(t, err)
	require.Len(t, recs, 1, "only the running job has an escrow")

	// The running job settles on both sides, on the full disk.
	close(worker.gate)
	r := <-running
	require.NoError(t, r.err)
	require.Equal(t, escrow.StateReleased, r.res.State)
	require.Eventually(t, func() bool {
		b, err := seller.Escrow.Balance(ctx)
		return err == nil && b.Earned == mustAmount(t, "0.05")
	}, 20*time.Second, 50*time.Millisecond, "the seller records the release")
	require.Less(t, nodetest.FreeBytes(t, disk), uint64(1<<20), "it settled with the disk still full")
	require.NoError(t, buyer.Escrow.CheckInvariant(ctx))
	require.NoError(t, seller.Escrow.CheckInvariant(ctx))

	// Space freed: new hires work again, without a restart.
	for _, f := range fills {
		require.NoError(t, os.Remove(f))
	}
	r2, err := hire(buyer)
	require.NoError(t, err)
	require.Equal(t, escrow.StateReleased, r2.State)
	r3, err := stranger.Market.Hire(ctx, market.HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[2,4]}`), Seller: seller.Host.ID(), Timeout: 30 * time.Second})
	require.NoError(t, err)
	require.Equal(t, escrow.StateReleased, r3.State)
	require.Eventually(t, func() bool { return exist(reserves[0]) && exist(reserves[1]) }, 10*time.Second, 50*time.Millisecond,
		"the reserves are made again")

	// The disk fills up again, and the nodes stop on it: the close reserve
	// makes room for Badger's flush, so the repos close cleanly and read
	// back offline, read-only, on the full disk.
	require.Eventually(t, func() bool {
		b, err := seller.Escrow.Balance(ctx)
		return err == nil && b.Earned == mustAmount(t, "0.15")
	}, 20*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		fills = append(fills, nodetest.FillDisk(t, disk))
		return !exist(reserves[0]) && !exist(reserves[1])
	}, 20*time.Second, 300*time.Millisecond)
	fills = append(fills, nodetest.FillDisk(t, disk))
	require.Less(t, nodetest.FreeBytes(t, disk), uint64(64<<10), "full again when the nodes stop")
	require.NoError(t, seller.Close())
	require.NoError(t, buyer.Close())
	for dir, want := range map[string]escrow.Balance{
		buyerDir:  {Available: mustAmount(t, "9.9"), Paid: mustAmount(t, "0.1"), Deposited: mustAmount(t, "10")},
		sellerDir: {Available: mustAmount(t, "0.15"), Earned: mustAmount(t, "0.15")},
	} {
		repo, err := node.Open(dir)
		require.NoError(t, err)
		l, err := node.OpenLocalReadOnly(repo)
		require.NoError(t, err)
		require.True(t, l.ReadOnly, "a cleanly closed repo opens read-only, which a full disk allows")
		esc, err := escrow.New(l.DB, repo.Key, escrow.WithLogger(discardLog()))
		require.NoError(t, err)
		b, err := esc.Balance(ctx)
		require.NoError(t, err)
		require.Equal(t, want, b, dir)
		recs, err := esc.List(ctx, escrow.Filter{})
		require.NoError(t, err)
		require.NotEmpty(t, recs)
		for _, rec := range recs {
			require.Equal(t, escrow.StateReleased, rec.State, "%s job %s", dir, rec.JobID)
		}
		require.NoError(t, esc.Close())
		require.NoError(t, l.Close())
	}
}

func discardLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

func exist(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
