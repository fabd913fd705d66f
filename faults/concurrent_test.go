package faults

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"
)

const (
	// concurrentHires are started at once against sellers that run two
	// jobs and queue four: most of them meet a full seller.
	concurrentHires = 40
	// concurrentTimeout is each hire's --timeout.
	concurrentTimeout = 10 * time.Second
)

// TestConcurrentHires starts dozens of hires at once, a third of them
// with the dishonest seller, and checks every lock and both ledgers.
func TestConcurrentHires(t *testing.T) {
	t.Parallel()
	var sum tally
	c := newCluster(t, clusterConfig{honest: true, liar: true, sum: &sum, sellerMarket: "concurrency = 2\nqueue = 4"})
	results := burst(c, concurrentHires, concurrentTimeout)
	c.injected(1)
	checkBurst(t, c, results, nil)
	c.check(t, c.converge(time.Now()))
	t.Logf("summary: %s", &sum)
}

// burst runs n hires at once, every third one with the dishonest seller.
func burst(c *cluster, n int, timeout time.Duration) []hireResult {
	results := make([]hireResult, n)
	var wg sync.WaitGroup
	for i := range n {
		seller := c.honest
		if c.liar != nil && i%3 == 0 {
			seller = c.liar
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c.hire(seller, timeout)
		}()
	}
	wg.Wait()
	return results
}

// checkBurst: the honest seller is never refunded for bad output, the
// dishonest one never paid, and every lock the buyer made since known was
// read is reported by the hire that made it, whatever its exit code
// (README, "Exit codes": a hire that sent a lock names its job, also when
// it exits 3 because the seller stayed busy until the deadline).
func checkBurst(t *testing.T, c *cluster, results []hireResult, known map[string]escrowRec) {
	t.Helper()
	codes := make(map[string]int)
	reported := make(map[string]bool)
	for _, h := range results {
		codes[fmt.Sprintf("%s exit %d", h.seller.name, h.res.code)]++
		if h.info.JobID != "" {
			reported[h.info.JobID] = true
		}
		switch {
		case h.seller == c.honest && h.res.code == 5:
			t.Errorf("an honest job failed verification: %s", h)
		case h.seller == c.liar && h.res.code == 0:
			t.Errorf("a dishonest job passed: %s", h)
		case h.res.code == 2 || h.res.code < 0:
			t.Errorf("a hire was refused as misuse or did not end: %s", h)
		}
	}
	t.Logf("%d hires at once: %v", len(results), codes)
	l := readLedger(c.buyer, "buyer", false)
	if l.readErr != nil {
		t.Fatal(l.readErr)
	}
	var unreported []string
	for _, id := range slices.Sorted(maps.Keys(l.escrows)) {
		if _, old := known[id]; !old && !reported[id] {
			unreported = append(unreported, id+" ("+l.escrows[id].String()+")")
		}
	}
	if len(unreported) > 0 {
		t.Errorf("%d jobs were locked that no hire result names (a hire that sent a lock names its job), such as %v",
			len(unreported), unreported[:min(3, len(unreported))])
	}
}
