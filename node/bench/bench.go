// Package bench holds the whole-node benchmarks behind 'swarmwage bench
// hire' and 'bench find'. They build real nodes (libp2p on loopback, Badger
// on disk) in temporary repos on a private network and print figures; they
// assert nothing. It sits above package node, which knows nothing of it.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/swarmwage/swarmwage/controlapi"
	"log/slog"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

// benchNetwork is the private network of the benchmarks.
const benchNetwork = "bench"

// Latencies summarizes a set of measurements.
type Latencies struct {
	P50MS float64 `json:"p50_ms"`
	P95MS float64 `json:"p95_ms"`
	N     int     `json:"n"`
}

func summarize(d []time.Duration) Latencies {
	if len(d) == 0 {
		return Latencies{}
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	at := func(q float64) float64 {
		i := int(q * float64(len(d)-1))
		return float64(d[i].Microseconds()) / 1000
	}
	return Latencies{P50MS: at(0.5), P95MS: at(0.95), N: len(d)}
}

// benchNodes starts n nodes in temporary repos, the first the bootstrap
// of the others. cleanup closes them and removes the repos.
func benchNodes(ctx context.Context, n int, opts node.Options) (nodes []*node.Node, cleanup func(), err error) {
	return benchNodesWith(ctx, n, opts, nil)
}

// benchNodesWith is benchNodes with setup run on each repo (its index,
// the repo just made) before its node is built.
func benchNodesWith(ctx context.Context, n int, opts node.Options, setup func(i int, repo *node.Repo) error) (nodes []*node.Node, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "swarmwage-bench")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() {
		var wg sync.WaitGroup
		for _, nd := range nodes {
			wg.Add(1)
			go func(nd *node.Node) { defer wg.Done(); nd.Close() }(nd)
		}
		wg.Wait()
		os.RemoveAll(dir)
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	start := func(i int, boot []string) (*node.Node, error) {
		cfg := node.DefaultConfig(benchNetwork)
		cfg.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
		cfg.API = "127.0.0.1:0"
		repo, err := node.Init(fmt.Sprintf("%s/n%d", dir, i), cfg)
		if err != nil {
			return nil, err
		}
		if setup != nil {
			if err := setup(i, repo); err != nil {
				return nil, err
			}
		}
		o := opts
		o.Bootstrap = boot
		o.Logger = slog.New(slog.DiscardHandler)
		var nd *node.Node
		withNodeLabel(ctx, i, func(ctx context.Context) {
			nd, err = node.New(ctx, repo, o)
			if err == nil {
				err = nd.Start(ctx)
			}
		})
		return nd, err
	}
	first, err := start(0, nil)
	if first != nil {
		nodes = append(nodes, first)
	}
	if err != nil {
		return nil, cleanup, err
	}
	var boot []string
	for _, a := range first.Host.Addrs() {
		boot = append(boot, a.String()+"/p2p/"+first.Host.ID().String())
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 1; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			nd, err := start(i, boot)
			mu.Lock()
			if nd != nil {
				nodes = append(nodes, nd)
			}
			mu.Unlock()
			if err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, cleanup, err
	}
	return nodes, cleanup, nil
}

// waitAnnounced waits until every node has DHT peers and has provided what
// it announced.
func waitAnnounced(ctx context.Context, nodes []*node.Node) error {
	for {
		ready := true
		for _, n := range nodes {
			if n.Routing.RoutingTableSize() == 0 || n.Routing.Pending() > 0 {
				ready = false
				break
			}
		}
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("network not ready: capabilities not announced in time")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// HireResult is the output of 'bench hire --json'.
type HireResult struct {
	P50MS       float64 `json:"p50_ms"`
	P95MS       float64 `json:"p95_ms"`
	HiresPerSec float64 `json:"hires_per_s"`
	N           int     `json:"n"`
	Concurrency int     `json:"concurrency"`
	Failed      int     `json:"failed"`
	// GOMAXPROCS is the Go Ps the run had: the figures depend on it.
	GOMAXPROCS int `json:"gomaxprocs"`
	// FirstError is the error of the first failed hire.
	FirstError string `json:"first_error,omitempty"`
	// The evm rail's run (bench_evm.go) adds these; a credits run has none.
	Settlement         string   `json:"settlement,omitempty"`
	CreditsHiresPerSec *float64 `json:"credits_hires_per_s,omitempty"`
	RatioToCredits     *float64 `json:"ratio_to_credits,omitempty"`
	Chain              *Chain   `json:"chain,omitempty"`
}

// Hire runs n hires of compute.statistics.mean, concurrency at a time,
// from a buyer node to a seller node on loopback.
func Hire(ctx context.Context, n, concurrency int, opts ...Option) (HireResult, error) {
	var cfg benchConfig
	for _, o := range opts {
		o(&cfg)
	}
	if n < 1 || concurrency < 1 {
		return HireResult{}, errors.New("bench hire: n and concurrency must be at least 1")
	}
	buyer, cleanup, err := benchCreditsPair(ctx, n, concurrency)
	if err != nil {
		return HireResult{}, err
	}
	defer cleanup()
	prof, err := startProfile(cfg.profileDir)
	if err != nil {
		return HireResult{}, err
	}
	var run hireRun
	err = run.hires(ctx, buyer, n, concurrency)
	if perr := prof.stop(); err == nil {
		err = perr
	}
	if err != nil {
		return HireResult{}, err
	}
	return run.result(n, concurrency), nil
}

// benchCreditsPair starts a seller of compute.statistics.mean and a buyer
// with credits for n hires, on the credits rail, and returns the buyer
// after one warm-up hire.
func benchCreditsPair(ctx context.Context, n, concurrency int) (buyer *node.Node, cleanup func(), err error) {
	nodes, cleanup, err := benchNodes(ctx, 2, node.Options{MarketOptions: []market.Option{market.Concurrency(max(concurrency, 4), 4*concurrency+64)}})
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	seller, buyer := nodes[0], nodes[1]
	if _, err := seller.Market.AddListing(ctx, market.ListingParams{Capability: "compute.statistics.mean", Price: 1000, Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}}); err != nil {
		return nil, nil, err
	}
	if err := buyer.Escrow.Deposit(ctx, int64(n+10)*1000, "bench"); err != nil {
		return nil, nil, err
	}
	if err := warmUp(ctx, nodes, buyer); err != nil {
		return nil, nil, err
	}
	return buyer, cleanup, nil
}

var benchReq = market.HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3,4,5,6,7,8,9,10]}`), Timeout: 30 * time.Second}

// warmUp waits for the nodes' announcements and runs one hire: the first
// pays for the DHT search and the connection.
func warmUp(ctx context.Context, nodes []*node.Node, buyer *node.Node) error {
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := waitAnnounced(wctx, nodes); err != nil {
		return err
	}
	if info := buyer.RunHire(ctx, benchReq, nil); info.Outcome != controlapi.OutcomeReleased {
		return fmt.Errorf("bench hire: warm-up hire: %s: %s", info.Outcome, info.Error)
	}
	return nil
}

// hireRun accumulates the hires of one or more rounds.
type hireRun struct {
	lat      []time.Duration
	elapsed  time.Duration
	failed   int
	firstErr string
}

// hires runs n hires of compute.statistics.mean from buyer, concurrency at
// a time, and adds them to the run.
func (h *hireRun) hires(ctx context.Context, buyer *node.Node, n, concurrency int) error {
	var mu sync.Mutex
	work := make(chan struct{}, n)
	for range n {
		work <- struct{}{}
	}
	close(work)
	start := time.Now()
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go withNodeLabel(ctx, 1, func(ctx context.Context) {
			defer wg.Done()
			for range work {
				t0 := time.Now()
				info := buyer.RunHire(ctx, benchReq, nil)
				d := time.Since(t0)
				mu.Lock()
				if info.Outcome != controlapi.OutcomeReleased {
					h.failed++
					if h.firstErr == "" && info.Error != "" {
						h.firstErr = info.Error
					}
				} else {
					h.lat = append(h.lat, d)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	h.elapsed += time.Since(start)
	return ctx.Err()
}

func (h *hireRun) result(n, concurrency int) HireResult {
	s := summarize(h.lat)
	return HireResult{
		P50MS: s.P50MS, P95MS: s.P95MS, HiresPerSec: float64(len(h.lat)) / h.elapsed.Seconds(),
		N: n, Concurrency: concurrency, Failed: h.failed, FirstError: h.firstErr, GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
}

// FindResult is the output of 'bench find --json'.
type FindResult struct {
	Nodes int       `json:"nodes"`
	Cold  Latencies `json:"cold"`
	Warm  Latencies `json:"warm"`
}

// Find builds a network of nodes, each selling one of caps
// capabilities, and measures find latency: cold (prefetch cache dropped,
// so a DHT search plus listing fetches) and warm (from the cache, listing
// fetches only), rounds times per capability.
func Find(ctx context.Context, nodes, caps, rounds int) (FindResult, error) {
	if nodes < 2 || caps < 1 || rounds < 1 {
		return FindResult{}, errors.New("bench find: need at least 2 nodes, 1 capability and 1 round")
	}
	all, cleanup, err := benchNodes(ctx, nodes, node.Options{DHTOptions: []dht.Option{dht.CacheRefresh(time.Hour)}})
	if err != nil {
		return FindResult{}, err
	}
	defer cleanup()
	capID := func(i int) string { return fmt.Sprintf("custom.bench%d.cap", i%caps) }
	for i, n := range all {
		if _, err := n.Market.AddListing(ctx, market.ListingParams{Capability: capID(i), Price: 1000, Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}}); err != nil {
			return FindResult{}, err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := waitAnnounced(wctx, all); err != nil {
		return FindResult{}, err
	}
	var cold, warm []time.Duration
	for r := range rounds {
		for c := range caps {
			n := all[(r*caps+c)%len(all)]
			id := capID(c)
			n.Routing.Forget(id)
			t0 := time.Now()
			if _, err := n.Market.Find(ctx, id, 20); err != nil {
				return FindResult{}, err
			}
			cold = append(cold, time.Since(t0))
			t0 = time.Now()
			if _, err := n.Market.Find(ctx, id, 20); err != nil {
				return FindResult{}, err
			}
			warm = append(warm, time.Since(t0))
		}
	}
	return FindResult{Nodes: nodes, Cold: summarize(cold), Warm: summarize(warm)}, nil
}
