package faults

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// partitionCase cuts the buyer and the seller apart at one moment of a
// hire, for a while.
type partitionCase struct {
	name string
	liar bool
	// at is "delivery" (the seller has recorded its delivery, the result
	// is not sent yet) or "settle" (the buyer has decided, the settle is
	// not sent yet).
	at  string
	dur time.Duration
}

// Durations: short ones end before the lock's deadline, long ones outlast
// the seller's own timer (deadline + grace).
const (
	shortPartition = 3 * time.Second
	longPartition  = 12 * time.Second
	soakPartition  = 20 * time.Second
	// partitionHireTimeout leaves a short partition room to heal before
	// the deadline.
	partitionHireTimeout = 4 * time.Second
	// holdOpen is how long a failpoint holds the moment of the partition
	// open while the test injects it.
	holdOpen = 1500 * time.Millisecond
)

var partitionCases = []partitionCase{
	{name: "delivery-honest-short", at: "delivery", dur: shortPartition},
	{name: "delivery-honest-long", at: "delivery", dur: longPartition},
	{name: "settle-liar-short", liar: true, at: "settle", dur: shortPartition},
	{name: "settle-liar-long", liar: true, at: "settle", dur: longPartition},
}

// TestPartition partitions buyer and seller at the moment of delivery and
// of the settle and checks that the ledgers converge after it heals.
func TestPartition(t *testing.T) {
	t.Parallel()
	var sum tally
	var wg sync.WaitGroup
	for _, pc := range partitionCases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(pc.name, func(t *testing.T) { runPartition(t, pc, &sum) })
		}()
	}
	wg.Wait()
	t.Logf("summary: %s", &sum)
}

// partitionFailpoints holds the moment of a partition open.
func partitionFailpoints(at string) map[string]string {
	hold := fmt.Sprintf("sleep(%d)", holdOpen.Milliseconds())
	if at == "delivery" {
		return map[string]string{"seller": "seller/after-deliver=" + hold}
	}
	return map[string]string{"buyer": "buyer/after-decision=" + hold}
}

func runPartition(t *testing.T, pc partitionCase, sum *tally) {
	c := newClusterFor(t, clusterConfig{honest: !pc.liar, liar: pc.liar, failpoints: map[string]string{}, sum: sum}, partitionFailpoints(pc.at))
	seller := c.sellers[0]
	moment := c.watchFor(t, seller, pc.at)
	hire := c.hireAsync(seller, partitionHireTimeout)
	end := c.partitionAt(t, seller, moment, pc.dur)
	t.Logf("%s", <-hire)
	c.check(t, c.converge(end))
}

// moment is a point of a hire to wait for: a new job of role in one of
// the states on the daemon watched.
type moment struct {
	at     string
	watch  *daemon
	role   string
	states map[string]bool
	known  map[string]escrowRec
}

// watchFor prepares to wait for the moment at ("accepted", "delivery" or
// "settle") of the next hire from seller; call it before the hire starts.
func (c *cluster) watchFor(t testing.TB, seller *daemon, at string) moment {
	t.Helper()
	m := moment{at: at, watch: seller, role: "seller", states: map[string]bool{"delivered": true}}
	switch at {
	case "accepted":
		m.states = map[string]bool{"locked": true}
	case "settle":
		m.watch, m.role, m.states = c.buyer, "buyer", map[string]bool{"released": true, "refunded": true}
	}
	l := readLedger(m.watch, m.role, false)
	if l.readErr != nil {
		t.Fatal(l.readErr)
	}
	m.known = l.escrows
	return m
}

// wait polls until a new job reached the moment.
func (m moment) wait(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		l := readLedger(m.watch, m.role, false)
		for id, r := range l.escrows {
			if _, old := m.known[id]; !old && m.states[r.State] {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no job reached %s on %s within 30 s (read error: %v)", m.at, m.watch.name, l.readErr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// partitionAt waits for the moment of the hire in flight with seller, then
// partitions buyer and seller for dur; it returns when the partition ends.
func (c *cluster) partitionAt(t testing.TB, seller *daemon, m moment, dur time.Duration) time.Time {
	t.Helper()
	m.wait(t)
	// Both sides refuse each other. The buyer's side is cut first and
	// heals last: its dials are refused by its own gater and never reach
	// the seller's, so they leave no dial backoff behind, and the test
	// measures the escrow, not libp2p's backoff.
	end := time.Now().Add(dur)
	c.partition(t, c.buyer, seller, dur)
	c.partition(t, seller, c.buyer, max(time.Until(end)-250*time.Millisecond, time.Millisecond))
	c.injected(1)
	return end
}

// partition makes a refuse b for dur.
func (c *cluster) partition(t testing.TB, a, b *daemon, dur time.Duration) {
	t.Helper()
	// The route's body (node.PartitionRequest, only in a failpoints build).
	body, _ := json.Marshal(map[string]string{"peer": b.id, "duration": dur.String()})
	status, resp, err := a.apiPost("/v1/debug/partition", body)
	if err != nil || status != http.StatusOK {
		t.Fatalf("partition %s from %s: %d %s %v", a.name, b.name, status, resp, err)
	}
}
