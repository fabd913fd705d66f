package node_test

import (
	"context"
	"encoding/json"

	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
	"github.com/swarmwage/swarmwage/verify"
)

// flakyWorker is an http handler for the statistics capabilities that
// fails in every way a seller can: a 500 (job fails), a wrong answer
// (verification fails), or a hang past the job deadline.
type flakyWorker struct {
	mu    sync.Mutex
	rng   *rand.Rand
	hang  time.Duration
	stats map[string]*atomic.Int64
}

func (f *flakyWorker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.URL.Path, "/")
	var in struct {
		Data []float64 `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	roll := f.rng.IntN(100)
	f.mu.Unlock()
	v, _ := verify.Statistic(op, in.Data)
	switch {
	case roll < 15:
		f.stats["fail"].Add(1)
		http.Error(w, "injected failure", http.StatusInternalServerError)
		return
	case roll < 30:
		f.stats["wrong"].Add(1)
		v += 1000
	case roll < 35:
		f.stats["hang"].Add(1)
		select {
		case <-time.After(f.hang):
		case <-r.Context().Done():
		}
	default:
		f.stats["ok"].Add(1)
	}
	_ = json.NewEncoder(w).Encode(map[string]float64{"result": v})
}

// TestConcurrentHiresWithFailuresConserveCredits: 200 concurrent hires
// among 5 nodes, each node a buyer and a seller whose handler fails at
// random. Afterwards every hold is settled, the ledger invariant holds on
// every node, and what buyers paid equals what sellers earned.
func TestConcurrentHiresWithFailuresConserveCredits(t *testing.T) {
	if testing.Short() {
		t.Skip("200 concurrent hires: skipped in -short mode")
	}
	const nodes, hires = 5, 200
	ops := []string{"mean", "median", "variance", "stddev", "percentile-95"}
	worker := &flakyWorker{rng: rand.New(rand.NewPCG(1, 2)), hang: 4 * time.Second, stats: map[string]*atomic.Int64{}}
	for _, k := range []string{"fail", "wrong", "hang", "ok"} {
		worker.stats[k] = new(atomic.Int64)
	}
	srv := httptest.NewServer(worker)
	t.Cleanup(srv.Close)

	opts := node.Options{
		MarketOptions: []market.Option{market.VerificationWindow(2 * time.Second), market.OutboxInterval(200 * time.Millisecond)},
		EscrowOptions: []escrow.Option{escrow.WithSettleGrace(time.Second), escrow.WithTimerInterval(100 * time.Millisecond)},
	}
	all := make([]*node.Node, nodes)
	all[0] = startNodeOpts(t, newRepo(t, t.TempDir()), opts)
	for i := 1; i < nodes; i++ {
		all[i] = startNodeOpts(t, newRepo(t, t.TempDir()), opts, all[0])
	}
	ctx := context.Background()
	for i, n := range all {
		h, err := market.ParseHandler("http:" + srv.URL + "/" + ops[i])
		require.NoError(t, err)
		_, err = n.Market.AddListing(ctx, market.ListingParams{Capability: "compute.statistics." + ops[i], Price: int64(10_000 * (i + 1)), Handler: h})
		require.NoError(t, err)
		require.NoError(t, n.Escrow.Deposit(ctx, 1_000_000_000, "test"))
	}
	waitReady(t, all...)

	rng := rand.New(rand.NewPCG(3, 4))
	type job struct{ buyer, op int }
	jobs := make([]job, hires)
	for i := range jobs {
		b := rng.IntN(nodes)
		op := (b + 1 + rng.IntN(nodes-1)) % nodes // never its own capability
		jobs[i] = job{b, op}
	}
	outcomes := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func(j job) {
			defer wg.Done()
			_, err := all[j.buyer].Market.Hire(ctx, market.HireRequest{
				Capability: "compute.statistics." + ops[j.op],
				Input:      json.RawMessage(`{"data":[1,2,3,4,5,6,7,8,9,10]}`),
				Timeout:    3 * time.Second,
			})
			key := "released"
			if err != nil {
				key = strings.SplitN(err.Error(), ":", 2)[0]
			}
			mu.Lock()
			outcomes[key]++
			mu.Unlock()
		}(j)
	}
	wg.Wait()
	t.Logf("outcomes: %v; injected: fail=%d wrong=%d hang=%d ok=%d", outcomes,
		worker.stats["fail"].Load(), worker.stats["wrong"].Load(), worker.stats["hang"].Load(), worker.stats["ok"].Load())
	require.Positive(t, outcomes["released"], "some hires must succeed")
	require.Greater(t, len(outcomes), 1, "failures must have been injected")

	// Every hold settles: nothing locked or delivered on either side.
	require.Eventually(t, func() bool {
		for _, n := range all {
			for _, st := range []escrow.State{escrow.StateLocked, escrow.StateDelivered} {
				recs, err := n.Escrow.List(ctx, escrow.Filter{State: st})
				if err != nil || len(recs) > 0 {
					return false
				}
			}
		}
		return true
	}, 60*time.Second, 200*time.Millisecond)

	var paid, earned int64
	for i, n := range all {
		require.NoError(t, n.Escrow.CheckInvariant(ctx), "node %d", i)
		b, err := n.Escrow.Balance(ctx)
		require.NoError(t, err)
		require.Zero(t, b.Held, "node %d holds credits", i)
		paid += b.Paid
		earned += b.Earned
	}
	require.Positive(t, paid)
	require.Equal(t, paid, earned, "what buyers paid must equal what sellers earned")

}

func startNodeOpts(t testing.TB, repo *node.Repo, opts node.Options, boot ...*node.Node) *node.Node {
	return nodetest.Start(t, repo, opts, boot...)
}
