package faults

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

var soakSeed = flag.Int64("soak.seed", 0, "seed of the soak's random choices (0: from the clock); the soak logs it")

// defaultSoak is how long the soak runs without -soak.duration.
const defaultSoak = 10 * time.Minute

// TestSoak injects random faults into one long-lived cluster (an honest
// and a dishonest seller, a buyer) until -soak.duration has passed or
// -soak.runs runs are done, checks the ledgers after every run and logs a
// summary: runs, faults injected, divergences, wrong payments. It runs
// only when asked for: go test ./faults -run TestSoak -soak (or
// SWARMWAGE_SOAK=1).
func TestSoak(t *testing.T) {
	if !soakEnabled() {
		t.Skip("the soak runs only with -soak or SWARMWAGE_SOAK=1; the bounded run is the other tests")
	}
	dur := *soakDuration
	if dur == 0 {
		dur = defaultSoak
	}
	seed := *soakSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("soak: %s, seed %d (-soak.seed %d replays the choices)", dur, seed, seed)
	var sum tally
	s := &soaker{
		c:   newCluster(t, clusterConfig{honest: true, liar: true, sum: &sum}),
		rng: rand.New(rand.NewPCG(uint64(seed), 12)),
	}
	start := time.Now()
	for run := 1; time.Since(start) < dur && (*soakRuns == 0 || run <= *soakRuns); run++ {
		name, f := s.pick()
		checks := s.c.checked()
		t.Run(fmt.Sprintf("%03d-%s", run, name), f)
		if s.c.checked() == checks {
			// The run failed before its ledgers were compared; it still
			// counts, and its faults are counted by the next check.
			sum.add(1, 0, 0, 0)
			totals.add(1, 0, 0, 0)
		}
	}
	t.Logf("soak summary: %s, in %s", &sum, time.Since(start).Round(time.Second))
}

// soaker picks and runs the soak's scenarios on its cluster.
type soaker struct {
	c   *cluster
	rng *rand.Rand
}

// pick chooses the next run: a kill (half of them), a partition or a
// burst of hires.
func (s *soaker) pick() (string, func(*testing.T)) {
	switch n := s.rng.IntN(10); {
	case n < 5:
		kc := killCases[s.rng.IntN(len(killCases))]
		if s.rng.IntN(4) == 0 {
			kc.liar = !kc.liar
		}
		down := s.downtime()
		extra := s.rng.IntN(4)
		downName := "late"
		if down >= 0 {
			downName = down.String()
		}
		return fmt.Sprintf("kill-%s-liar=%v-down=%s-extra=%d", kc.name, kc.liar, downName, extra),
			func(t *testing.T) { s.kill(t, kc, down, extra) }
	case n < 8:
		pc := partitionCase{liar: s.rng.IntN(2) == 0, at: []string{"delivery", "settle"}[s.rng.IntN(2)], dur: soakPartition}
		if s.rng.IntN(3) == 0 {
			pc.dur = time.Duration(1+s.rng.IntN(20)) * time.Second
		}
		return fmt.Sprintf("partition-%s-liar=%v-%s", pc.at, pc.liar, pc.dur), func(t *testing.T) { s.partition(t, pc) }
	default:
		n := 10 + s.rng.IntN(21)
		return fmt.Sprintf("burst-%d", n), func(t *testing.T) { s.burst(t, n) }
	}
}

// downtime is how long a killed daemon stays down: none, a few seconds, or
// past every due time of its jobs (-1).
func (s *soaker) downtime() time.Duration {
	switch s.rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return time.Duration(s.rng.IntN(10000)) * time.Millisecond
	}
	return -1
}

// prepare starts every daemon with the failpoints given for it (none when
// not given), restarting those whose failpoints differ.
func (s *soaker) prepare(t *testing.T, want map[*daemon]string) {
	t.Helper()
	for _, d := range s.c.all() {
		spec := want[d]
		if d.running() && d.failpoints() == spec {
			continue
		}
		if err := d.stop(); err != nil {
			t.Logf("stop %s: %v", d.name, err)
		}
		d.start(t, spec)
	}
	s.c.reconnect(t)
}

func (s *soaker) seller(liar bool) *daemon {
	if liar {
		return s.c.liar
	}
	return s.c.honest
}

// kill runs a kill case with extra hires in flight to random sellers.
func (s *soaker) kill(t *testing.T, kc killCase, down time.Duration, extra int) {
	c, seller := s.c, s.seller(kc.liar)
	want := make(map[*daemon]string)
	victims := make(map[string]*daemon)
	for role, spec := range kc.hold {
		d := c.buyer
		if role == "seller" {
			d = seller
		}
		want[d] = spec
	}
	for role, spec := range kc.first {
		d := c.buyer
		if role == "seller" {
			d = seller
		}
		if want[d] != "" {
			spec += "," + want[d]
		}
		want[d], victims[role] = spec, d
	}
	s.prepare(t, want)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 1 + extra {
		to := seller
		if i > 0 {
			to = s.seller(s.rng.IntN(2) == 0)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.hire(to, hireTimeout)
		}()
	}
	for _, role := range []string{"seller", "buyer"} {
		if d, ok := victims[role]; ok {
			c.expectKill(t, d, kc.first[role], 45*time.Second)
		}
	}
	wg.Wait()
	if down < 0 {
		time.Sleep(time.Until(start.Add(hireTimeout + window + settleGrace + time.Second)))
	} else {
		time.Sleep(down)
	}
	for _, role := range []string{"seller", "buyer"} {
		if d, ok := victims[role]; ok {
			c.restart(t, d, kc.restart[role])
		}
	}
	c.check(t, c.converge(time.Now()))
}

// partition runs a partition case on the long-lived cluster.
func (s *soaker) partition(t *testing.T, pc partitionCase) {
	c, seller := s.c, s.seller(pc.liar)
	want := make(map[*daemon]string)
	for role, spec := range partitionFailpoints(pc.at) {
		d := c.buyer
		if role == "seller" {
			d = seller
		}
		want[d] = spec
	}
	s.prepare(t, want)
	m := c.watchFor(t, seller, pc.at)
	hire := c.hireAsync(seller, partitionHireTimeout)
	end := c.partitionAt(t, seller, m, pc.dur)
	t.Logf("%s", <-hire)
	c.check(t, c.converge(end))
}

// burst runs n hires at once.
func (s *soaker) burst(t *testing.T, n int) {
	s.prepare(t, nil)
	known := readLedger(s.c.buyer, "buyer", false).escrows
	results := burst(s.c, n, concurrentTimeout)
	s.c.injected(1)
	checkBurst(t, s.c, results, known)
	s.c.check(t, s.c.converge(time.Now()))
}
