package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Chain faults on the evm rail (issue 22): a stranger's payment for a job
// ID, and reorgs deeper than the confirmation depth during live hires.

const (
	// strangerHires is how many hires TestEVMStrangersPaymentForAJobID runs;
	// the stranger pays for each of their job IDs.
	strangerHires = 6
	// strangerUnit is what the stranger pays for each job ID: 1 base unit,
	// as in the issue.
	strangerUnit = 1
	// strangerRedeemInterval is the seller's redeem_interval in that test:
	// long enough that the stranger pays while the seller's release waits
	// for its batch.
	strangerRedeemInterval = "6s"
	// evmHireTimeout is the --timeout of hires on the evm rail: the first
	// allocates the buyer's line on chain.
	evmHireTimeout = 8 * time.Second
)

// receiptsDoc is the part of a seller's GET /receipts the stranger reads.
type receiptsDoc struct {
	Receipts []struct {
		JobID   string          `json:"job_id"`
		Payment json.RawMessage `json:"payment"`
	} `json:"receipts"`
}

// receiptsOf reads the seller's public receipts from its plain-HTTP agent
// endpoint (daemon --agent-http), as anyone can.
func receiptsOf(agent string) (receiptsDoc, error) {
	var doc receiptsDoc
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + agent + "/receipts?limit=200")
	if err != nil {
		return doc, fmt.Errorf("GET /receipts: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return doc, fmt.Errorf("GET /receipts: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return doc, fmt.Errorf("GET /receipts: %s: %s", resp.Status, body)
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return doc, fmt.Errorf("GET /receipts: %w", err)
	}
	return doc, nil
}

// paymentTx is the transaction a receipt's payment proof names, "" when
// it has none.
func paymentTx(p json.RawMessage) string {
	var pj struct {
		Tx string `json:"tx"`
	}
	if len(p) == 0 || json.Unmarshal(p, &pj) != nil {
		return ""
	}
	return strings.ToLower(pj.Tx)
}

// TestEVMStrangersPaymentForAJobID is issue 22's attack on the evm rail
// against real daemons: a stranger reads each job ID from the seller's
// public GET /receipts while the release waits for the seller's next
// redeem batch, deposits, allocates 1 base unit to the seller, signs a
// Release for that job ID with itself as buyer and redeems it. The seller
// must still redeem the buyer's real voucher and be paid the real amount;
// no job record or receipt may name the stranger's transaction; the chain
// and both ledgers agree job by job; no token is created or lost.
func TestEVMStrangersPaymentForAJobID(t *testing.T) {
	t.Parallel()
	var sum tally
	agent := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	c := newCluster(t, clusterConfig{honest: true, sum: &sum,
		evm:        &evmConfig{redeemInterval: strangerRedeemInterval},
		daemonArgs: map[string][]string{"honest": {"--agent-http", agent}}})
	st := c.chain.newChainStranger(t, strangerHires*strangerUnit)
	seller := c.chain.address(c.honest.name)

	// The stranger watches the receipts and pays for every job ID there
	// whose payment the seller has not proved yet.
	var (
		mu      sync.Mutex
		paidFor = map[string]string{}
		errs    []string
	)
	ctx, cancel := context.WithCancel(context.Background())
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		for ctx.Err() == nil {
			doc, err := receiptsOf(agent)
			for _, r := range doc.Receipts {
				mu.Lock()
				_, done := paidFor[r.JobID]
				mu.Unlock()
				if done || paymentTx(r.Payment) != "" {
					continue
				}
				tx, err := st.pay(seller, r.JobID, strangerUnit)
				mu.Lock()
				if err != nil {
					errs = append(errs, err.Error())
				} else {
					paidFor[r.JobID] = tx.Hex()
				}
				mu.Unlock()
				if err == nil {
					c.injected(1)
				}
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err.Error())
				mu.Unlock()
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	for range strangerHires {
		if h := c.hire(c.honest, evmHireTimeout); !h.res.ok() || h.info.Escrow.State != "released" {
			t.Errorf("a hire of the honest seller: want released, got %s", h)
		}
	}
	// Each released job's receipt shows before the seller's next batch.
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(paidFor)
		mu.Unlock()
		if n >= strangerHires || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	cancel()
	<-watching
	mu.Lock()
	if len(paidFor) < strangerHires {
		t.Errorf("the stranger paid for %d of %d job IDs (errors: %q)", len(paidFor), strangerHires, errs)
	}
	mu.Unlock()

	v := c.converge(time.Now())
	// The receipts the seller serves name the buyer's payments, never the
	// stranger's.
	doc, err := receiptsOf(agent)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	strangerTx := map[string]bool{}
	for _, tx := range paidFor {
		strangerTx[strings.ToLower(tx)] = true
	}
	mu.Unlock()
	for _, r := range doc.Receipts {
		switch tx := paymentTx(r.Payment); {
		case strangerTx[tx]:
			v.problem(kindWrongPayment, r.JobID, "the seller's receipt of job %s names the stranger's transaction %s as its payment", r.JobID, tx)
		case tx == "":
			v.problem(kindDivergence, r.JobID, "the seller's receipt of job %s proves no payment after convergence", r.JobID)
		}
	}
	if len(doc.Receipts) != strangerHires {
		v.problem(kindDivergence, "receipts", "the seller serves %d receipts for %d released hires", len(doc.Receipts), strangerHires)
	}
	c.check(t, v)
	t.Logf("stranger's payments: %d, the seller's chain notes: %s", len(paidFor), c.notes(t))
	t.Logf("summary: %s", &sum)
}

// notes are the chain notes of the honest seller's records (what its rail
// noticed and did not act on), counted by their first words.
func (c *cluster) notes(t testing.TB) string {
	t.Helper()
	l := readLedger(c.honest, "seller", false)
	if l.readErr != nil {
		return l.readErr.Error()
	}
	n := 0
	for _, r := range l.escrows {
		if r.ChainNote != "" {
			n++
		}
	}
	return fmt.Sprintf("%d of %d jobs carry one", n, len(l.escrows))
}

// Reorgs: rounds of anvil evm_snapshot, a few seconds of live hires, then
// evm_revert of every block since the snapshot (2 to 6 blocks, padded
// with empty ones when the hires mined fewer) and a longer chain of empty
// blocks in their place.
const (
	// reorgRounds is how many reorgs the bounded run injects; the soak
	// (-soak) runs reorgSoakRounds.
	reorgRounds     = 5
	reorgSoakRounds = 40
	// reorgMinDepth and reorgMaxDepth bound the depth drawn for each
	// reorg: deeper than the confirmation depth (1).
	reorgMinDepth = 2
	reorgMaxDepth = 6
	// reorgLive is how long hires run between a snapshot and its revert.
	reorgLive = 3 * time.Second
)

// TestEVMReorgsDuringHires runs hires back to back (every third with the
// dishonest seller, whose output fails verification and must be refunded
// and cancelled on chain) while the chain reorganizes deeper than the
// confirmation depth again and again, taking allocations, payouts and
// cancels away. Afterwards both ledgers and the chain agree job by job, no
// refunded job is paid, no token is created or lost, and a restart of
// every daemon changes nothing.
func TestEVMReorgsDuringHires(t *testing.T) {
	t.Parallel()
	rounds := reorgRounds
	if soakEnabled() {
		rounds = reorgSoakRounds
	}
	seed := *soakSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 22))
	t.Logf("reorgs: %d rounds, seed %d (-soak.seed %d replays the depths)", rounds, seed, seed)
	var sum tally
	c := newCluster(t, clusterConfig{honest: true, liar: true, sum: &sum, evm: &evmConfig{}})

	ctx, cancel := context.WithCancel(context.Background())
	hiring := make(chan struct{})
	go func() {
		defer close(hiring)
		for i := 0; ctx.Err() == nil; i++ {
			seller := c.honest
			if i%3 == 2 {
				seller = c.liar
			}
			c.hire(seller, evmHireTimeout)
		}
	}()
	var depths []uint64
	for round := range rounds {
		snap, err := c.chain.snapshot()
		if err != nil {
			t.Fatalf("evm_snapshot: %v", err)
		}
		start, err := c.chain.head()
		if err != nil {
			t.Fatal(err)
		}
		// The hires mine blocks; the reorg takes the first want of them
		// (padded with empty blocks if they mined fewer within reorgLive).
		want := uint64(reorgMinDepth + rng.IntN(reorgMaxDepth-reorgMinDepth+1))
		head := start
		for until := time.Now().Add(reorgLive); head-start < want && time.Now().Before(until); time.Sleep(20 * time.Millisecond) {
			if head, err = c.chain.head(); err != nil {
				t.Fatal(err)
			}
		}
		if head-start < want {
			if err := c.chain.mine(want - (head - start)); err != nil {
				t.Fatal(err)
			}
		}
		depth, err := c.chain.reorg(snap, start)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		depths = append(depths, depth)
		c.injected(1)
	}
	cancel()
	<-hiring
	c.mu.Lock()
	codes := map[string]int{}
	for _, h := range c.hires {
		codes[fmt.Sprintf("%s exit %d", h.seller.name, h.res.code)]++
		if h.res.code != 0 && h.res.code != 5 {
			t.Logf("%s after %s", h, time.Since(h.start).Round(time.Millisecond))
		}
	}
	hires := len(c.hires)
	c.mu.Unlock()
	t.Logf("%d hires during %d reorgs of depths %v blocks: %v", hires, rounds, depths, codes)

	c.check(t, c.converge(time.Now()))
	// A restart of every daemon changes nothing.
	c.restartAll(t)
	t.Logf("summary: %s", &sum)
}
