package faults

import (
	"sync"
	"testing"
	"time"
)

// killCase is one SIGKILL scenario: daemons started with failpoints that
// kill them during one hire, kept down past every due time of the job,
// then restarted.
type killCase struct {
	name string
	// liar: hire the dishonest seller (verification must fail) instead of
	// the honest one.
	liar bool
	// first are the failpoints of the first start, by daemon role
	// ("buyer" or "seller"); every daemon named here must be killed.
	first map[string]string
	// restart are failpoints of the first restart, which must kill that
	// daemon again; it is then started clean.
	restart map[string]string
}

// killCases: every failpoint, on the side it belongs to, with the seller
// whose outcome makes the fault matter.
var killCases = []killCase{
	{name: "buyer-after-lock", first: map[string]string{"buyer": "buyer/after-lock=kill"}},
	{name: "buyer-after-record-delivery-liar", liar: true, first: map[string]string{"buyer": "buyer/after-record-delivery=kill"}},
	{name: "buyer-after-record-delivery-honest", first: map[string]string{"buyer": "buyer/after-record-delivery=kill"}},
	{name: "buyer-after-decision-liar", liar: true, first: map[string]string{"buyer": "buyer/after-decision=kill"}},
	{name: "buyer-after-decision-honest", first: map[string]string{"buyer": "buyer/after-decision=kill"}},
	{name: "seller-after-accept-lock", first: map[string]string{"seller": "seller/after-accept-lock=kill"}},
	{name: "seller-after-deliver-honest", first: map[string]string{"seller": "seller/after-deliver=kill"}},
	{name: "seller-after-deliver-liar", liar: true, first: map[string]string{"seller": "seller/after-deliver=kill"}},
	{name: "seller-after-apply-settle", first: map[string]string{"seller": "seller/after-apply-settle=kill"}},
	// The buyer dies after its lock, and again when its deadline timer
	// fires at the restart.
	{name: "buyer-before-fire", first: map[string]string{"buyer": "buyer/after-lock=kill"},
		restart: map[string]string{"buyer": "escrow/before-fire=kill"}},
	// The buyer dies after the delivery; the seller dies when its own
	// timer fires on the undecided job.
	{name: "seller-before-fire-liar", liar: true,
		first: map[string]string{"buyer": "buyer/after-record-delivery=kill", "seller": "escrow/before-fire=kill"}},
}

// killParallel is how many kill scenarios run at once: they mostly wait
// for timers.
const killParallel = 4

// TestKill SIGKILLs the buyer and the seller at every failpoint and checks
// that both ledgers converge once they are back.
func TestKill(t *testing.T) {
	var sum tally
	sem := make(chan struct{}, killParallel)
	var wg sync.WaitGroup
	for _, kc := range killCases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			t.Run(kc.name, func(t *testing.T) { runKill(t, kc, &sum) })
		}()
	}
	wg.Wait()
	t.Logf("summary: %s", &sum)
}

func runKill(t *testing.T, kc killCase, sum *tally) {
	cfg := clusterConfig{honest: !kc.liar, liar: kc.liar, failpoints: map[string]string{}, sum: sum}
	c := newClusterFor(t, cfg, kc.first)
	seller := c.sellers[0]
	start := time.Now()
	hire := c.hireAsync(seller, hireTimeout)
	for _, role := range []string{"seller", "buyer"} {
		if spec, ok := kc.first[role]; ok {
			c.expectKill(t, c.role(role), spec, 45*time.Second)
		}
	}
	h := <-hire
	t.Logf("%s", h)
	// Down past every due time of the job on both sides: the deadline,
	// the window after it, the seller's grace.
	time.Sleep(time.Until(start.Add(hireTimeout + window + settleGrace + time.Second)))
	for _, role := range []string{"seller", "buyer"} {
		if _, ok := kc.first[role]; ok {
			c.restart(t, c.role(role), kc.restart[role])
		}
	}
	// Both are up; whether and how they reconnect is theirs to do.
	c.check(t, c.converge(time.Now()))
}

// newClusterFor starts a cluster with the failpoints given by role.
func newClusterFor(t *testing.T, cfg clusterConfig, byRole map[string]string) *cluster {
	seller := "honest"
	if cfg.liar {
		seller = "liar"
	}
	for role, spec := range byRole {
		name := role
		if role == "seller" {
			name = seller
		}
		cfg.failpoints[name] = spec
	}
	return newCluster(t, cfg)
}

// role returns the buyer, or the cluster's first seller.
func (c *cluster) role(role string) *daemon {
	if role == "buyer" {
		return c.buyer
	}
	return c.sellers[0]
}
