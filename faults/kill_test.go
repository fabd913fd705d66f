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
	// hold are failpoints of the first start that only slow a daemon down
	// (sleep), by role.
	hold map[string]string
	// hires is how many hires run at once; 0 means 1.
	hires int
	// restartHold are failpoints of the restart that only slow a daemon
	// down, by role (when restart names none for it).
	restartHold map[string]string
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
	// The delivery went out early and its commit never happened: the
	// buyer must not take it for delivered.
	{name: "seller-after-early-delivery-honest", first: map[string]string{"seller": "seller/after-early-delivery=kill"}},
	{name: "seller-after-early-delivery-liar", liar: true, first: map[string]string{"seller": "seller/after-early-delivery=kill"}},
	{name: "buyer-after-early-delivery", first: map[string]string{"buyer": "buyer/after-early-delivery=kill"}},
	// The buyer dies after its lock, and again when its deadline timer
	// fires at the restart.
	{name: "buyer-before-fire", first: map[string]string{"buyer": "buyer/after-lock=kill"},
		restart: map[string]string{"buyer": "escrow/before-fire=kill"}},
	// The buyer dies after the delivery; the seller dies when its own
	// timer fires on the undecided job.
	{name: "seller-before-fire-liar", liar: true,
		first: map[string]string{"buyer": "buyer/after-record-delivery=kill", "seller": "escrow/before-fire=kill"}},
	// The buyer dies deciding one job while another is still running at
	// the seller (the seller holds each job after accepting it). At the
	// restart its timers wait a moment before they fire, as on a busy
	// machine, so the start-up reconciliation runs before the deadline
	// refund of the job that was in flight.
	{name: "buyer-after-decision-job-in-flight", hires: 2,
		first:       map[string]string{"buyer": "buyer/after-decision=kill"},
		hold:        map[string]string{"seller": "seller/after-accept-lock=sleep(1500)"},
		restartHold: map[string]string{"buyer": "escrow/before-fire=sleep(1000)"}},
}

// hireStagger separates the hires of a case with several.
const hireStagger = 500 * time.Millisecond

// killParallel is how many kill scenarios run at once: they mostly wait
// for timers.
const killParallel = 4

// TestKill SIGKILLs the buyer and the seller at every failpoint and checks
// that both ledgers converge once they are back.
func TestKill(t *testing.T) {
	t.Parallel()
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
	fps := make(map[string]string)
	for role, spec := range kc.hold {
		fps[role] = spec
	}
	for role, spec := range kc.first {
		fps[role] = spec
	}
	c := newClusterFor(t, cfg, fps)
	seller := c.sellers[0]
	// A hire's --timeout (hireTimeout) covers the whole hire. Under a CPU
	// hog the buyer's first contact with the seller (dial, handshakes,
	// identify, the listing) once took all of it: the job never reached
	// the step whose fault the case injects, and its failpoint never fired.
	c.connect(t, c.buyer, seller)
	start := time.Now()
	var hires []<-chan hireResult
	for i := range max(kc.hires, 1) {
		if i > 0 {
			// Staggered, so that the later jobs are still running at the
			// seller when the first one's fault strikes.
			time.Sleep(hireStagger)
		}
		hires = append(hires, c.hireAsync(seller, hireTimeout))
	}
	for _, role := range []string{"seller", "buyer"} {
		if spec, ok := kc.first[role]; ok {
			c.expectKill(t, c.role(role), spec, 45*time.Second)
		}
	}
	for _, h := range hires {
		t.Logf("%s", <-h)
	}
	// Down past every due time of the job on both sides: the deadline,
	// the window after it, the seller's grace.
	time.Sleep(time.Until(start.Add(hireTimeout + window + settleGrace + time.Second)))
	for _, role := range []string{"seller", "buyer"} {
		if _, ok := kc.first[role]; !ok {
			continue
		}
		if spec, ok := kc.restartHold[role]; ok && kc.restart[role] == "" {
			c.role(role).start(t, spec)
			continue
		}
		c.restart(t, c.role(role), kc.restart[role])
	}
	for role := range kc.hold {
		if _, killed := kc.first[role]; !killed {
			if err := c.role(role).stop(); err != nil {
				t.Logf("stop %s: %v", role, err)
			}
			c.role(role).start(t, "")
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
