package escrow_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// scenario is what happens to one hire in the simulation.
type scenario int

const (
	scHappy            scenario = iota // delivered, verified, released
	scVerifyFails                      // delivered, verification fails, refunded (seller disputes)
	scSellerFails                      // the handler fails, the buyer refunds
	scLockNeverArrives                 // POST /jobs failed before the seller saw the lock; the buyer refunds
	scSellerSilent                     // the seller accepts and never answers: both deadlines refund
	scBuyerGone                        // the buyer vanishes after the delivery: both windows release
	scDeliveryLost                     // the delivery never reaches the buyer: deadline refund, seller disputes
	scReleaseLost                      // the release never reaches the seller: its window releases
	scLockOnly                         // the buyer locks, then crashes before sending: deadline refund
	numScenarios
)

type step int

const (
	stLock step = iota
	stAccept
	stDeliver  // seller delivers and the delivery reaches the buyer
	stDeliverX // seller delivers, the delivery is lost
	stRelease
	stRefund
	stFail
)

var scripts = map[scenario][]step{
	scHappy:            {stLock, stAccept, stDeliver, stRelease},
	scVerifyFails:      {stLock, stAccept, stDeliver, stRefund},
	scSellerFails:      {stLock, stAccept, stFail, stRefund},
	scLockNeverArrives: {stLock, stRefund},
	scSellerSilent:     {stLock, stAccept},
	scBuyerGone:        {stLock, stAccept, stDeliver},
	scDeliveryLost:     {stLock, stAccept, stDeliverX},
	scReleaseLost:      {stLock, stAccept, stDeliver, stRelease},
	scLockOnly:         {stLock},
}

type simJob struct {
	id       string
	seller   int
	scenario scenario
	amount   int64
	timeout  time.Duration
	window   time.Duration
	next     int  // index into the script
	aborted  bool // a step lost a race against a timer; the timers finish the job
	lock     *escrow.Lock
}

func (j *simJob) done() bool { return j.aborted || j.next >= len(scripts[j.scenario]) }

type sim struct {
	t         *testing.T
	rng       *rand.Rand
	clock     *fakeClock
	buyer     *testNode
	sellers   []*testNode
	jobs      []*simJob
	byID      map[string]*simJob
	forwarded int // buyer hooks already forwarded
}

// TestConformanceRandomHires runs many random hires between one buyer and
// several sellers, each with its own Badger DB, with failures injected
// (lost messages, failing handlers, silent peers, replays, forgeries,
// restarts) and timers racing the parties. Afterwards every hold is
// settled, the ledger invariant holds on every node, both sides agree on
// every job, and what the buyer paid equals what the sellers earned.
func TestConformanceRandomHires(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	jobs := 120
	if testing.Short() {
		seeds, jobs = seeds[:1], 40
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			runSim(t, seed, 4, jobs)
		})
	}
}

func runSim(t *testing.T, seed uint64, nSellers, nJobs int) {
	clock := newClock()
	s := &sim{t: t, rng: rand.New(rand.NewPCG(seed, seed*7919)), clock: clock, byID: map[string]*simJob{}}
	// The buyer verifies again what a crash left undecided (as the market
	// does); these outputs pass.
	s.buyer = setupNode(t, clock, escrow.WithUndecided(func(ctx context.Context, r escrow.Record) {
		require.NoError(t, s.buyer.e.Accept(ctx, r.JobID))
	}))
	for range nSellers {
		s.sellers = append(s.sellers, setupNode(t, clock))
	}
	const deposit int64 = 1000 * credit
	require.NoError(t, s.buyer.e.Deposit(t.Context(), deposit, "test credits"))
	for i := range nJobs {
		j := &simJob{
			id:       fmt.Sprintf("job-%d-%d", seed, i),
			seller:   s.rng.IntN(nSellers),
			scenario: scenario(s.rng.IntN(int(numScenarios))),
			amount:   1 + s.rng.Int64N(2*credit),
			timeout:  time.Duration(5+s.rng.IntN(55)) * time.Second,
			window:   time.Duration(2+s.rng.IntN(18)) * time.Second,
		}
		s.jobs = append(s.jobs, j)
		s.byID[j.id] = j
	}
	for s.open() > 0 {
		switch r := s.rng.IntN(100); {
		case r < 70:
			s.advance()
		case r < 95:
			s.tick(time.Duration(s.rng.IntN(3000)) * time.Millisecond)
		default:
			s.restart()
		}
	}
	// Let every timer run out: windows (an undecided delivery is verified
	// again, then released), then the sellers' finality horizon for
	// releases whose confirmation was lost.
	s.tick(2 * time.Hour)
	s.tick(time.Second)
	s.tick(escrow.DefaultFinality)
	s.check(deposit)
}

func (s *sim) open() int {
	n := 0
	for _, j := range s.jobs {
		if !j.done() {
			n++
		}
	}
	return n
}

// advance runs the next step of a random unfinished job.
func (s *sim) advance() {
	// A handful of hires are in flight at a time, so most finish before
	// the clock runs out their deadlines, and some do not.
	const inFlight = 6
	var open []*simJob
	for _, j := range s.jobs {
		if !j.done() && len(open) < inFlight {
			open = append(open, j)
		}
	}
	j := open[s.rng.IntN(len(open))]
	st := scripts[j.scenario][j.next]
	j.next++
	err := s.run(j, st)
	if errors.Is(err, escrow.ErrBadState) {
		// A timer got there first (deadline or window passed): the parties
		// stop acting and the timers settle the job.
		j.aborted = true
		return
	}
	require.NoError(s.t, err, "job %s scenario %d step %d", j.id, j.scenario, st)
	s.forwardSettles()
}

func (s *sim) run(j *simJob, st step) error {
	ctx := s.t.Context()
	seller := s.sellers[j.seller]
	switch st {
	case stLock:
		l, err := s.buyer.e.Lock(ctx, escrow.LockParams{
			JobID: j.id, QuoteID: "q", Capability: "compute.statistics.mean", Seller: seller.id,
			Amount: j.amount, Deadline: s.clock.Now().Add(j.timeout), Window: j.window,
		})
		j.lock = l
		return err
	case stAccept:
		err := acceptLock(seller.e, ctx, j.lock)
		if err == nil && s.rng.IntN(5) == 0 {
			err = acceptLock(seller.e, ctx, j.lock) // replayed
		}
		return err
	case stDeliver, stDeliverX:
		d, err := seller.e.Deliver(ctx, j.id, []byte(j.id))
		if err != nil || st == stDeliverX {
			return err
		}
		if s.rng.IntN(5) == 0 {
			s.forgeDelivery(d)
		}
		err = s.buyer.e.RecordDelivery(ctx, d, []byte(j.id))
		if err == nil && s.rng.IntN(5) == 0 {
			err = s.buyer.e.RecordDelivery(ctx, d, []byte(j.id)) // replayed
		}
		return err
	case stRelease:
		_, err := s.buyer.e.Release(ctx, j.id)
		return err
	case stRefund:
		_, err := s.buyer.e.Refund(ctx, j.id, "verification failed", []string{"check"})
		return err
	case stFail:
		return seller.e.FailJob(ctx, j.id, "handler failed")
	}
	return fmt.Errorf("unknown step %d", st)
}

// forwardSettles sends the settles the buyer signed (by a call or a timer)
// to the sellers, as the market does right away; refunds are retried until
// they arrive, a release may be lost (scReleaseLost).
func (s *sim) forwardSettles() {
	ctx := s.t.Context()
	hooks := s.buyer.hooks()
	for _, r := range hooks[s.forwarded:] {
		j := s.byID[r.JobID]
		require.NotNil(s.t, r.Settle, "job %s", r.JobID)
		if r.Settle.Decision == escrow.DecisionRelease && j.scenario == scReleaseLost {
			continue
		}
		seller := s.sellers[j.seller]
		if s.rng.IntN(5) == 0 {
			s.forgeSettle(seller, r.Settle)
		}
		err := seller.e.ApplySettle(ctx, r.Settle)
		if errors.Is(err, escrow.ErrUnknownJob) {
			// The lock never reached the seller, or reached it too late.
			_, gerr := seller.e.GetRole(ctx, j.id, escrow.RoleSeller)
			require.ErrorIs(s.t, gerr, escrow.ErrNotFound, "job %s", j.id)
			continue
		}
		require.NoError(s.t, err, "job %s scenario %d", j.id, j.scenario)
		if s.rng.IntN(5) == 0 {
			require.NoError(s.t, seller.e.ApplySettle(ctx, r.Settle), "replayed settle")
		}
	}
	s.forwarded = len(hooks)
}

// forgeSettle tries tampered copies of a settle on the seller: each must be
// rejected.
func (s *sim) forgeSettle(seller *testNode, real *escrow.Settle) {
	ctx := s.t.Context()
	f := *real
	f.Amount++
	require.ErrorIs(s.t, seller.e.ApplySettle(ctx, &f), escrow.ErrForged)
	f = *real
	if f.Decision == escrow.DecisionRefund {
		f.Decision = escrow.DecisionRelease
	} else {
		f.Decision = escrow.DecisionRefund
	}
	require.ErrorIs(s.t, seller.e.ApplySettle(ctx, &f), escrow.ErrForged)
	other := s.jobs[s.rng.IntN(len(s.jobs))]
	if other.id != real.JobID {
		f = *real
		f.JobID = other.id
		require.ErrorIs(s.t, seller.e.ApplySettle(ctx, &f), escrow.ErrForged)
	}
}

func (s *sim) forgeDelivery(real *escrow.Delivery) {
	f := *real
	f.OutputHash = hashOf("forged")
	require.ErrorIs(s.t, s.buyer.e.RecordDelivery(s.t.Context(), &f, nil), escrow.ErrForged)
}

// tick moves the clock and fires the timers: the buyer's first, whose
// settles are forwarded, then the sellers'.
func (s *sim) tick(d time.Duration) {
	s.clock.Advance(d)
	_, err := s.buyer.e.FireDue(s.t.Context())
	require.NoError(s.t, err)
	s.forwardSettles()
	for _, n := range s.sellers {
		_, err := n.e.FireDue(s.t.Context())
		require.NoError(s.t, err)
	}
}

func (s *sim) restart() {
	nodes := append([]*testNode{s.buyer}, s.sellers...)
	nodes[s.rng.IntN(len(nodes))].reopen(s.t)
}

func (s *sim) check(deposit int64) {
	t := s.t
	ctx := t.Context()
	nodes := append([]*testNode{s.buyer}, s.sellers...)
	for _, n := range nodes {
		n.requireInvariant(t)
		recs, err := n.e.List(ctx, escrow.Filter{})
		require.NoError(t, err)
		for _, r := range recs {
			require.True(t, r.State.Final(), "job %s is still %s", r.JobID, r.State)
		}
	}
	b := s.buyer.balance(t)
	require.Zero(t, b.Held, "every hold settled")
	require.Equal(t, deposit, b.Available+b.Paid)
	var earned int64
	for _, n := range s.sellers {
		earned += n.balance(t).Earned
	}
	require.Equal(t, b.Paid, earned, "what the buyer paid equals what the sellers earned")

	counts := map[string]int{}
	for _, j := range s.jobs {
		rb, err := s.buyer.e.GetRole(ctx, j.id, escrow.RoleBuyer)
		require.NoError(t, err)
		rs, err := s.sellers[j.seller].e.GetRole(ctx, j.id, escrow.RoleSeller)
		if errors.Is(err, escrow.ErrNotFound) {
			require.Equal(t, escrow.StateRefunded, rb.State, "job %s: the seller never saw the lock", j.id)
			counts["refunded/-"]++
			continue
		}
		require.NoError(t, err)
		if rb.State == escrow.StateReleased {
			require.Equal(t, escrow.StateReleased, rs.State, "job %s scenario %d", j.id, j.scenario)
		} else {
			require.Contains(t, []escrow.State{escrow.StateRefunded, escrow.StateDisputed, escrow.StateFailed}, rs.State,
				"job %s scenario %d", j.id, j.scenario)
		}
		counts[string(rb.State)+"/"+string(rs.State)]++
	}
	t.Logf("outcomes (buyer/seller): %v", counts)
}

// TestConcurrentHires runs hires from many goroutines against one buyer and
// several sellers at once; the ledgers must balance and agree afterwards.
func TestConcurrentHires(t *testing.T) {
	clock := newClock()
	buyer := setupNode(t, clock)
	sellers := []*testNode{setupNode(t, clock), setupNode(t, clock), setupNode(t, clock)}
	const deposit = 100 * credit
	require.NoError(t, buyer.e.Deposit(t.Context(), deposit, ""))
	const workers, perWorker = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for i := range perWorker {
				if err := concurrentHire(t.Context(), rng, clock, buyer, sellers, fmt.Sprintf("w%d-%d", w, i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	buyer.requireInvariant(t)
	var earned int64
	for _, n := range sellers {
		n.requireInvariant(t)
		earned += n.balance(t).Earned
	}
	b := buyer.balance(t)
	require.Zero(t, b.Held)
	require.Equal(t, b.Paid, earned)
	require.Equal(t, int64(deposit), b.Available+b.Paid)
}

func concurrentHire(ctx context.Context, rng *rand.Rand, clock *fakeClock, buyer *testNode, sellers []*testNode, id string) error {
	seller := sellers[rng.IntN(len(sellers))]
	l, err := buyer.e.Lock(ctx, escrow.LockParams{JobID: id, Seller: seller.id, Amount: 1 + rng.Int64N(credit),
		Deadline: clock.Now().Add(time.Hour), Window: time.Minute})
	if err != nil {
		return err
	}
	if err := acceptLock(seller.e, ctx, l); err != nil {
		return err
	}
	var s *escrow.Settle
	switch rng.IntN(3) {
	case 0: // fails at the seller
		if err := seller.e.FailJob(ctx, id, "x"); err != nil {
			return err
		}
		s, err = buyer.e.Refund(ctx, id, "failed", nil)
	default:
		d, err := seller.e.Deliver(ctx, id, []byte(id))
		if err != nil {
			return err
		}
		if err := buyer.e.RecordDelivery(ctx, d, []byte(id)); err != nil {
			return err
		}
		if rng.IntN(2) == 0 {
			s, err = buyer.e.Release(ctx, id)
		} else {
			s, err = buyer.e.Refund(ctx, id, "verification failed", nil)
		}
		if err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	return seller.e.ApplySettle(ctx, s)
}
