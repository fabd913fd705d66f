package escrow_test

// The escrow's side of a settlement rail, with a fake rail (the evm rail
// itself is tested against anvil in escrow/evm and end to end in
// cmd/swarmwage): the messages carry the rail's proofs, a refund stays held
// until the rail confirms it, the chain's outcome wins in both ledgers.

import (
	"context"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// fakeRail proves locks with {"job":..,"amount":..} and releases with
// {"release":..}; its addresses are "addr-" and a name. cover is what it
// says every buyer's money covers.
type fakeRail struct {
	addr  string
	cover int64

	mu       sync.Mutex
	refunded []string
	opens    []int64 // the open amounts PrepareLock and CheckLock were given
}

func (f *fakeRail) Name() string    { return "fake" }
func (f *fakeRail) Address() string { return f.addr }
func (f *fakeRail) CheckAddress(a string) (string, error) {
	if !strings.HasPrefix(a, "addr-") {
		return "", fmt.Errorf("%q is no fake address", a)
	}
	return a, nil
}
func (f *fakeRail) JobRef(jobID string) string { return "ref-" + jobID }

type fakeProof struct {
	Job     string `json:"job,omitempty"`
	Amount  int64  `json:"amount,omitempty"`
	Release string `json:"release,omitempty"`
}

func (f *fakeRail) PrepareLock(_ context.Context, t escrow.LockTerms, open int64) (json.RawMessage, error) {
	f.mu.Lock()
	f.opens = append(f.opens, open)
	f.mu.Unlock()
	if open+t.Amount > f.cover {
		return nil, fmt.Errorf("%w: fake line short", escrow.ErrNotCovered)
	}
	return json.Marshal(fakeProof{Job: t.JobID, Amount: t.Amount})
}

func (f *fakeRail) CheckLock(_ context.Context, t escrow.LockTerms, proof json.RawMessage, open int64) error {
	f.mu.Lock()
	f.opens = append(f.opens, open)
	f.mu.Unlock()
	var p fakeProof
	if err := json.Unmarshal(proof, &p); err != nil || p.Job != t.JobID || p.Amount != t.Amount {
		return fmt.Errorf("%w: fake proof is not this lock's", escrow.ErrInvalidMessage)
	}
	if open+t.Amount > f.cover {
		return fmt.Errorf("%w: fake line short", escrow.ErrNotCovered)
	}
	return nil
}

func (f *fakeRail) Release(_ context.Context, t escrow.LockTerms, _ json.RawMessage) (json.RawMessage, error) {
	return json.Marshal(fakeProof{Release: t.JobID})
}

func (f *fakeRail) CheckRelease(_ context.Context, t escrow.LockTerms, _, release json.RawMessage) error {
	var p fakeProof
	if err := json.Unmarshal(release, &p); err != nil || p.Release != t.JobID {
		return errors.New("fake release is not this job's")
	}
	return nil
}

func (f *fakeRail) Refund(t escrow.LockTerms) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refunded = append(f.refunded, t.JobID)
}

// railPair is a buyer (10 credits booked as a rail deposit) and a seller
// on the fake rail.
type railPair struct {
	*pair
	br, sr *fakeRail
}

func setupRailPair(t *testing.T) *railPair {
	t.Helper()
	clock := newClock()
	br, sr := &fakeRail{addr: "addr-buyer", cover: 1 * credit}, &fakeRail{addr: "addr-seller", cover: 1 * credit}
	p := &railPair{pair: &pair{clock: clock}, br: br, sr: sr}
	p.buyer = setupNode(t, clock, escrow.WithRail(br))
	p.seller = setupNode(t, clock, escrow.WithRail(sr))
	ok, err := p.buyer.e.BookRail(context.Background(), escrow.RailEntry{Kind: escrow.RailDeposit, Ref: "tx-1:deposit", Amount: 10 * credit})
	require.NoError(t, err)
	require.True(t, ok)
	return p
}

func (p *railPair) lockParams(jobID string) escrow.LockParams {
	lp := p.pair.lockParams(jobID)
	lp.SellerAddress = p.sr.addr
	return lp
}

// lock locks a job through the wire: the seller decodes what the buyer
// signed.
func (p *railPair) lock(t *testing.T, jobID string) *escrow.Lock {
	t.Helper()
	ctx := context.Background()
	l, err := p.buyer.e.Lock(ctx, p.lockParams(jobID))
	require.NoError(t, err)
	wire, err := json.Marshal(l)
	require.NoError(t, err)
	got, err := escrow.DecodeLock(wire)
	require.NoError(t, err)
	require.NoError(t, acceptLock(p.seller.e, ctx, got))
	return got
}

func TestRailLockCarriesTheRailsProofSigned(t *testing.T) {
	p := setupRailPair(t)
	l := p.lock(t, "job-1")
	require.Equal(t, "fake", l.Rail)
	require.Equal(t, "addr-buyer", l.BuyerAddress)
	require.Equal(t, "addr-seller", l.SellerAddress)
	require.Equal(t, l.Deadline.Add(l.Window).Add(testGrace), l.NotBefore, "not_before: the buyer's timers come first")
	require.JSONEq(t, `{"job":"job-1","amount":50000}`, string(l.RailProof))
	wire, err := json.Marshal(l)
	require.NoError(t, err)
	require.Contains(t, string(wire), `"type":"`+escrow.TypeLockRail+`"`)

	// The proof, the addresses and not_before are signed: changing one breaks it.
	for _, edit := range []func(w map[string]any){
		func(w map[string]any) { w["rail_proof"] = map[string]any{"job": "job-1", "amount": "60000"} },
		func(w map[string]any) { w["seller_address"] = "addr-mallory" },
		func(w map[string]any) { w["not_before"] = "2030-01-01T00:00:00Z" },
	} {
		var w map[string]any
		require.NoError(t, json.Unmarshal(wire, &w))
		edit(w)
		b, err := json.Marshal(w)
		require.NoError(t, err)
		got, err := escrow.DecodeLock(b)
		require.NoError(t, err)
		require.ErrorIs(t, got.Verify(), escrow.ErrForged)
	}
	// A version 2 lock carries no rail fields; a version 3 lock needs them.
	for _, tc := range []struct{ from, to string }{
		{`"type":"` + escrow.TypeLockRail + `"`, `"type":"` + escrow.TypeLock + `"`},
		{`"rail_proof":{"amount":50000,"job":"job-1"},`, ``},
	} {
		bad := strings.Replace(string(wire), tc.from, tc.to, 1)
		if bad == string(wire) {
			bad = strings.Replace(string(wire), `"rail_proof":{"job":"job-1","amount":50000},`, tc.to, 1)
		}
		require.NotEqual(t, string(wire), bad, tc.from)
		_, err := escrow.DecodeLock([]byte(bad))
		require.ErrorIs(t, err, escrow.ErrInvalidMessage, bad)
	}

	r, err := p.seller.e.GetRole(context.Background(), "job-1", escrow.RoleSeller)
	require.NoError(t, err)
	require.Equal(t, "fake", r.Rail)
	require.Equal(t, "addr-buyer", r.RailCounterparty)
	found, err := p.seller.e.FindRailJob(context.Background(), "ref-job-1")
	require.NoError(t, err)
	require.Len(t, found, 1)
	require.Equal(t, escrow.RoleSeller, found[0].Role)
}

func TestRailSellerRefusesLocksOfAnotherRail(t *testing.T) {
	ctx := context.Background()
	p := setupRailPair(t)
	credits := setupNode(t, p.clock)
	l, err := p.buyer.e.Lock(ctx, escrow.LockParams{JobID: "to-credits", QuoteID: "q", Capability: "compute.statistics.mean",
		Seller: credits.id, Amount: testPrice, Deadline: p.clock.Now().Add(testTimeout), Window: testWindow, SellerAddress: "addr-seller"})
	require.NoError(t, err)
	err = acceptLock(credits.e, ctx, l)
	require.ErrorIs(t, err, escrow.ErrInvalidMessage)
	require.Contains(t, err.Error(), "settles in credits")

	// A credits buyer's lock is refused by a rail seller.
	cb := setupNode(t, p.clock)
	require.NoError(t, cb.e.Deposit(ctx, credit, "test"))
	cl, err := cb.e.Lock(ctx, escrow.LockParams{JobID: "from-credits", QuoteID: "q", Capability: "compute.statistics.mean",
		Seller: p.seller.id, Amount: testPrice, Deadline: p.clock.Now().Add(testTimeout), Window: testWindow})
	require.NoError(t, err)
	err = acceptLock(p.seller.e, ctx, cl)
	require.ErrorIs(t, err, escrow.ErrInvalidMessage)
	require.Contains(t, err.Error(), "settles on rail fake")

	// A lock that pays another address is forged for this seller.
	l2, err := p.buyer.e.Lock(ctx, escrow.LockParams{JobID: "elsewhere", QuoteID: "q", Capability: "compute.statistics.mean",
		Seller: p.seller.id, Amount: testPrice, Deadline: p.clock.Now().Add(testTimeout), Window: testWindow, SellerAddress: "addr-mallory"})
	require.NoError(t, err)
	require.ErrorIs(t, acceptLock(p.seller.e, ctx, l2), escrow.ErrForged)

	// No payout address: the buyer cannot lock on the rail.
	_, err = p.buyer.e.Lock(ctx, escrow.LockParams{JobID: "nowhere", QuoteID: "q", Capability: "compute.statistics.mean",
		Seller: p.seller.id, Amount: testPrice, Deadline: p.clock.Now().Add(testTimeout), Window: testWindow})
	require.ErrorIs(t, err, escrow.ErrInvalidMessage)
}

// TestRailCoverageCountsOpenLocks: the rail is given what is open with the
// counterparty, so locks together never pass what it covers; a refused
// lock stores nothing.
func TestRailCoverageCountsOpenLocks(t *testing.T) {
	ctx := context.Background()
	p := setupRailPair(t)
	for i := range 20 {
		_, err := p.buyer.e.Lock(ctx, p.lockParams(fmt.Sprintf("job-%d", i)))
		require.NoError(t, err)
	}
	_, err := p.buyer.e.Lock(ctx, p.lockParams("one-too-many"))
	require.ErrorIs(t, err, escrow.ErrNotCovered)
	_, err = p.buyer.e.GetRole(ctx, "one-too-many", escrow.RoleBuyer)
	require.ErrorIs(t, err, escrow.ErrNotFound)
	open, err := p.buyer.e.RailOpenAmount(ctx, escrow.RoleBuyer, "addr-seller")
	require.NoError(t, err)
	require.Equal(t, int64(20*testPrice), open)
	require.Equal(t, int64(19*testPrice), p.br.opens[19])
	p.buyer.requireInvariant(t)
}

// TestRailCoverageCountsALockInFlightOnce: a lock whose record is stored
// while its reservation still runs (the moment between the commit and the
// reservation's end) counts once in what the next lock is told is open,
// not twice: a burst of locks that the line covers is not refused.
func TestRailCoverageCountsALockInFlightOnce(t *testing.T) {
	ctx := context.Background()
	p := setupRailPair(t)
	p.lock(t, "stored")
	_, release, err := escrow.ReserveRail(ctx, p.buyer.e, escrow.RoleBuyer, "addr-seller", "in-flight", testPrice)
	require.NoError(t, err)
	// The lock of the reserved job is stored; its reservation has not ended.
	_, err = p.buyer.e.Lock(ctx, p.lockParams("in-flight"))
	require.NoError(t, err)
	open, release2, err := escrow.ReserveRail(ctx, p.buyer.e, escrow.RoleBuyer, "addr-seller", "next", testPrice)
	require.NoError(t, err)
	require.Equal(t, int64(2*testPrice), open, "stored and in-flight, each once")
	release()
	release2()
	open, release3, err := escrow.ReserveRail(ctx, p.buyer.e, escrow.RoleBuyer, "addr-seller", "after", testPrice)
	require.NoError(t, err)
	release3()
	require.Equal(t, int64(2*testPrice), open, "from the ledger alone once the reservations ended")
	p.buyer.requireInvariant(t)
}

func TestRailRefundStaysHeldUntilTheRailConfirms(t *testing.T) {
	ctx := context.Background()
	p := setupRailPair(t)
	p.lock(t, "job-r")
	st, err := p.buyer.e.Refund(ctx, "job-r", "verification failed", []string{"value_matches"})
	require.NoError(t, err)
	require.Equal(t, "fake", st.Rail)
	require.Equal(t, []string{"job-r"}, p.br.refunded, "the rail is asked to cancel")
	r, err := p.buyer.e.GetRole(ctx, "job-r", escrow.RoleBuyer)
	require.NoError(t, err)
	require.Equal(t, escrow.StateRefunded, r.State)
	require.True(t, r.RefundPending)
	require.Equal(t, int64(testPrice), p.buyer.balance(t).Held, "held until the chain confirms")
	p.buyer.requireInvariant(t)

	require.NoError(t, p.buyer.e.ApplyRailOutcome(ctx, escrow.RoleBuyer, "job-r", escrow.RailOutcome{Kind: escrow.RailCancelled, Tx: "tx-c"}))
	require.NoError(t, p.buyer.e.ApplyRailOutcome(ctx, escrow.RoleBuyer, "job-r", escrow.RailOutcome{Kind: escrow.RailCancelled, Tx: "tx-c"}), "idempotent")
	r, err = p.buyer.e.GetRole(ctx, "job-r", escrow.RoleBuyer)
	require.NoError(t, err)
	require.False(t, r.RefundPending)
	require.Equal(t, escrow.RailCancelled, r.ChainOutcome)
	require.Equal(t, escrow.Balance{Available: 10 * credit, Deposited: 10 * credit}, p.buyer.balance(t))
	p.buyer.requireInvariant(t)
	open, err := p.buyer.e.RailOpenAmount(ctx, escrow.RoleBuyer, "addr-seller")
	require.NoError(t, err)
	require.Zero(t, open)
}

func TestRailSettleCarriesAndNeedsTheRailsRelease(t *testing.T) {
	ctx := context.Background()
	p := setupRailPair(t)
	p.lock(t, "job-s")
	p.deliver(t, "job-s")
	st, err := p.buyer.e.Release(ctx, "job-s")
	require.NoError(t, err)
	require.JSONEq(t, `{"release":"job-s"}`, string(st.RailProof))
	wire, err := json.Marshal(st)
	require.NoError(t, err)
	require.Contains(t, string(wire), `"type":"`+escrow.TypeSettleRail+`"`)

	// Without the rail's release, or with another job's, nothing changes.
	noProof := strings.Replace(string(wire), `"rail_proof":{"release":"job-s"},`, ``, 1)
	require.NotEqual(t, string(wire), noProof)
	s1, err := escrow.DecodeSettle([]byte(noProof))
	require.NoError(t, err)
	require.ErrorIs(t, p.seller.e.ApplySettle(ctx, s1), escrow.ErrForged, "the signature covered the proof")
	require.Equal(t, escrow.StateDelivered, p.seller.state(t, "job-s", escrow.RoleSeller))

	got, err := escrow.DecodeSettle(wire)
	require.NoError(t, err)
	require.NoError(t, p.seller.e.ApplySettle(ctx, got))
	require.Equal(t, escrow.StateReleased, p.seller.state(t, "job-s", escrow.RoleSeller))
	require.Equal(t, int64(testPrice), p.seller.balance(t).Earned)
	// Redeemed: the money left for the seller's address.
	require.NoError(t, p.seller.e.ApplyRailOutcome(ctx, escrow.RoleSeller, "job-s", escrow.RailOutcome{Kind: escrow.RailPaid, Released: true, Tx: "tx-r"}))
	require.Equal(t, escrow.Balance{Earned: testPrice, Withdrawn: testPrice}, p.seller.balance(t))
	require.NoError(t, p.buyer.e.ApplyRailOutcome(ctx, escrow.RoleBuyer, "job-s", escrow.RailOutcome{Kind: escrow.RailPaid, Released: true, Tx: "tx-r"}))
	require.Equal(t, escrow.Balance{Available: 10*credit - testPrice, Paid: testPrice, Deposited: 10 * credit}, p.buyer.balance(t))
	p.buyer.requireInvariant(t)
	p.seller.requireInvariant(t)
}

// TestRailChainOutcomeWins: whatever either ledger had, the chain's
// outcome is what both end with, and the ledgers stay balanced.
func TestRailChainOutcomeWins(t *testing.T) {
	type setup func(t *testing.T, p *railPair, id string)
	locked := func(t *testing.T, p *railPair, id string) { p.lock(t, id) }
	delivered := func(t *testing.T, p *railPair, id string) { p.lock(t, id); p.deliver(t, id) }
	released := func(t *testing.T, p *railPair, id string) {
		delivered(t, p, id)
		st, err := p.buyer.e.Release(context.Background(), id)
		require.NoError(t, err)
		require.NoError(t, p.seller.e.ApplySettle(context.Background(), st))
	}
	refunded := func(t *testing.T, p *railPair, id string) {
		delivered(t, p, id)
		st, err := p.buyer.e.Refund(context.Background(), id, "verification failed", nil)
		require.NoError(t, err)
		require.NoError(t, p.seller.e.ApplySettle(context.Background(), st))
	}
	provisional := func(t *testing.T, p *railPair, id string) {
		delivered(t, p, id)
		// The buyer goes silent; the seller's timer releases provisionally.
		p.clock.Advance(testTimeout + testWindow + 2*testGrace)
		_, err := p.seller.e.FireDue(context.Background())
		require.NoError(t, err)
	}
	testCases := []struct {
		name          string
		setup         setup
		outcome       string
		buyer, seller escrow.State
		sellerEarned  int64
	}{
		{"delivered, claimed", delivered, escrow.RailPaid, escrow.StateReleased, escrow.StateReleased, testPrice},
		{"provisional, claimed", provisional, escrow.RailPaid, escrow.StateReleased, escrow.StateReleased, testPrice},
		{"provisional, cancelled", provisional, escrow.RailCancelled, escrow.StateRefunded, escrow.StateDisputed, 0},
		{"locked, cancelled", locked, escrow.RailCancelled, escrow.StateRefunded, escrow.StateRefunded, 0},
		{"released, cancelled: the release still pays", released, escrow.RailCancelled, escrow.StateReleased, escrow.StateReleased, testPrice},
		{"refunded, paid: the cancel came too late", refunded, escrow.RailPaid, escrow.StateReleased, escrow.StateReleased, testPrice},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			p := setupRailPair(t)
			tc.setup(t, p, "job")
			o := escrow.RailOutcome{Kind: tc.outcome, Tx: "tx"}
			require.NoError(t, p.buyer.e.ApplyRailOutcome(ctx, escrow.RoleBuyer, "job", o))
			require.NoError(t, p.seller.e.ApplyRailOutcome(ctx, escrow.RoleSeller, "job", o))
			b, err := p.buyer.e.GetRole(ctx, "job", escrow.RoleBuyer)
			require.NoError(t, err)
			s, err := p.seller.e.GetRole(ctx, "job", escrow.RoleSeller)
			require.NoError(t, err)
			require.Equal(t, tc.buyer, b.State)
			require.Equal(t, tc.seller, s.State)
			require.False(t, s.Provisional)
			require.NotNil(t, b.Settle, "a settled buyer record has its signed settle")
			require.Equal(t, tc.sellerEarned, p.seller.balance(t).Earned)
			require.Zero(t, p.seller.balance(t).Pending)
			if tc.buyer == escrow.StateReleased {
				require.Equal(t, int64(testPrice), p.buyer.balance(t).Paid)
			} else {
				require.Equal(t, escrow.Balance{Available: 10 * credit, Deposited: 10 * credit}, p.buyer.balance(t))
			}
			p.buyer.requireInvariant(t)
			p.seller.requireInvariant(t)
		})
	}
}

// TestRailProvisionalReleaseWaitsForTheChain: on a rail no finality
// horizon makes a seller's provisional release final; only the chain does.
func TestRailProvisionalReleaseWaitsForTheChain(t *testing.T) {
	ctx := context.Background()
	p := setupRailPair(t)
	p.lock(t, "job-p")
	p.deliver(t, "job-p")
	p.clock.Advance(testTimeout + testWindow + 2*testGrace)
	_, err := p.seller.e.FireDue(ctx)
	require.NoError(t, err)
	p.clock.Advance(escrow.DefaultFinality + time.Hour)
	_, err = p.seller.e.FireDue(ctx)
	require.NoError(t, err)
	r, err := p.seller.e.GetRole(ctx, "job-p", escrow.RoleSeller)
	require.NoError(t, err)
	require.True(t, r.Provisional)
	require.Equal(t, escrow.Balance{Pending: testPrice}, p.seller.balance(t))
	p.seller.requireInvariant(t)
}

func TestBookRailBooksOnce(t *testing.T) {
	ctx := context.Background()
	p := setupRailPair(t)
	ok, err := p.buyer.e.BookRail(ctx, escrow.RailEntry{Kind: escrow.RailDeposit, Ref: "tx-1:deposit", Amount: 10 * credit})
	require.NoError(t, err)
	require.False(t, ok, "booked before")
	_, err = p.buyer.e.BookRail(ctx, escrow.RailEntry{Kind: escrow.RailWithdrawal, Ref: "tx-2", Amount: 11 * credit})
	require.ErrorIs(t, err, escrow.ErrInsufficientFunds)
	ok, err = p.buyer.e.BookRail(ctx, escrow.RailEntry{Kind: escrow.RailWithdrawal, Ref: "tx-3", Amount: 4 * credit})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, escrow.Balance{Available: 6 * credit, Deposited: 10 * credit, Withdrawn: 4 * credit}, p.buyer.balance(t))
	p.buyer.requireInvariant(t)
	b, err := json.Marshal(p.buyer.balance(t))
	require.NoError(t, err)
	require.Contains(t, string(b), `"withdrawn":"4"`)
}

// TestUnbookRailUndoesAVanishedDeposit: a deposit a reorg took away
// leaves the ledger in one transaction (a reversing entry keeps the
// deposit log summing to the balance), can be booked again if it comes
// back, and is not undone while its money is locked in a job.
func TestUnbookRailUndoesAVanishedDeposit(t *testing.T) {
	ctx := context.Background()
	p := setupRailPair(t) // the buyer has "tx-1:deposit", 10 credits
	ok, err := p.buyer.e.UnbookRail(ctx, "tx-nope", credit, "vanished")
	require.NoError(t, err)
	require.False(t, ok, "never booked")
	ok, err = p.buyer.e.BookRail(ctx, escrow.RailEntry{Kind: escrow.RailDeposit, Ref: "tx-9:deposit", Amount: 3 * credit})
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = p.buyer.e.UnbookRail(ctx, "tx-9:deposit", 3*credit, "vanished in a reorg")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, escrow.Balance{Available: 10 * credit, Deposited: 10 * credit}, p.buyer.balance(t))
	p.buyer.requireInvariant(t)
	ok, err = p.buyer.e.UnbookRail(ctx, "tx-9:deposit", 3*credit, "again")
	require.NoError(t, err)
	require.False(t, ok, "undone once")
	ok, err = p.buyer.e.BookRail(ctx, escrow.RailEntry{Kind: escrow.RailDeposit, Ref: "tx-9:deposit", Amount: 3 * credit})
	require.NoError(t, err)
	require.True(t, ok, "back on the chain: booked again")
	// Spent: 13 available, 13 + 1 cannot be taken.
	ok, err = p.buyer.e.BookRail(ctx, escrow.RailEntry{Kind: escrow.RailWithdrawal, Ref: "tx-10", Amount: 12 * credit})
	require.NoError(t, err)
	require.True(t, ok)
	_, err = p.buyer.e.UnbookRail(ctx, "tx-9:deposit", 3*credit, "vanished")
	require.ErrorIs(t, err, escrow.ErrInsufficientFunds)
	require.Equal(t, escrow.Balance{Available: 1 * credit, Deposited: 13 * credit, Withdrawn: 12 * credit}, p.buyer.balance(t))
	p.buyer.requireInvariant(t)
}

// provingRail is fakeRail that proves payments ({"tx","block"} of the
// chain's outcome) and accepts as paid only the proof of transaction
// "tx-r".
type provingRail struct{ *fakeRail }

func (provingRail) Payment(rec escrow.Record) (json.RawMessage, error) {
	return json.Marshal(map[string]any{"tx": rec.ChainTx, "block": rec.ChainBlock})
}

func (provingRail) CheckPayment(_ context.Context, r *escrow.Receipt) error {
	var p struct{ Tx string }
	if err := json.Unmarshal(r.Payment, &p); err != nil || p.Tx != "tx-r" {
		return fmt.Errorf("%w: no such payment", escrow.ErrForged)
	}
	return nil
}

// TestRailReceiptsCarryTheRailsPayment: a seller's receipt of a job the
// chain paid carries its rail's proof (transaction and block); a buyer's
// escrow asks its own rail about it, and says not paid for a rail it does
// not run or one that cannot check. A receipt relabelled with another rail
// than its lock's does not check out.
func TestRailReceiptsCarryTheRailsPayment(t *testing.T) {
	ctx := context.Background()
	clock := newClock()
	br := provingRail{&fakeRail{addr: "addr-buyer", cover: 1 * credit}}
	sr := provingRail{&fakeRail{addr: "addr-seller", cover: 1 * credit}}
	p := &railPair{pair: &pair{clock: clock}, br: br.fakeRail, sr: sr.fakeRail}
	p.buyer = setupNode(t, clock, escrow.WithRail(br))
	p.seller = setupNode(t, clock, escrow.WithRail(sr))
	_, err := p.buyer.e.BookRail(ctx, escrow.RailEntry{Kind: escrow.RailDeposit, Ref: "tx-1:deposit", Amount: 10 * credit})
	require.NoError(t, err)
	p.lock(t, "job-p")
	p.deliver(t, "job-p")
	st, err := p.buyer.e.Release(ctx, "job-p")
	require.NoError(t, err)
	require.NoError(t, p.seller.e.ApplySettle(ctx, st))

	rs, _, err := p.seller.e.Receipts(ctx, escrow.ReceiptFilter{})
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Empty(t, rs[0].Payment, "not settled on chain yet")
	require.ErrorIs(t, p.buyer.e.CheckPayment(ctx, &rs[0]), escrow.ErrForged, "the rail decides")

	require.NoError(t, p.seller.e.ApplyRailOutcome(ctx, escrow.RoleSeller, "job-p", escrow.RailOutcome{Kind: escrow.RailPaid, Released: true, Tx: "tx-r", Block: 7}))
	rec, err := p.seller.e.GetRole(ctx, "job-p", escrow.RoleSeller)
	require.NoError(t, err)
	require.Equal(t, uint64(7), rec.ChainBlock)
	rs, _, err = p.seller.e.Receipts(ctx, escrow.ReceiptFilter{})
	require.NoError(t, err)
	require.JSONEq(t, `{"tx":"tx-r","block":7}`, string(rs[0].Payment))
	wire, err := json.Marshal(rs[0])
	require.NoError(t, err)
	r, err := escrow.DecodeReceipt(wire)
	require.NoError(t, err)
	require.NoError(t, r.Check())
	require.Equal(t, "fake", r.Rail)
	require.NoError(t, p.buyer.e.CheckPayment(ctx, r))

	// A node on credits cannot check a fake-rail payment: not paid.
	credits := setupNode(t, clock)
	require.ErrorIs(t, credits.e.CheckPayment(ctx, r), escrow.ErrNotPaid)
	// A rail that does not check payments: not paid either.
	plain := setupNode(t, clock, escrow.WithRail(&fakeRail{addr: "addr-plain"}))
	require.ErrorIs(t, plain.e.CheckPayment(ctx, r), escrow.ErrNotPaid)

	// Relabelled as credits (which needs no check), it no longer checks out.
	relabelled := *r
	relabelled.Rail = escrow.RailCredits
	require.ErrorIs(t, relabelled.Check(), escrow.ErrInvalidMessage)

	// The payment is bounded and must be an object.
	for _, bad := range []string{`"tx-r"`, `{"tx":"` + strings.Repeat("x", escrow.MaxPaymentSize) + `"}`} {
		w := strings.Replace(string(wire), `"payment":{"block":7,"tx":"tx-r"}`, `"payment":`+bad, 1)
		require.NotEqual(t, string(wire), w)
		_, err := escrow.DecodeReceipt([]byte(w))
		require.ErrorIs(t, err, escrow.ErrInvalidMessage)
	}
}

// TestRailRevertUndoesExactlyTheOutcome: a chain outcome that a reorg
// takes away is reverted as it was applied: the account moves back, the
// job is open on the rail again and marked chain_provisional, the
// invariant holds, and the outcome applied again lands where it was.
func TestRailRevertUndoesExactlyTheOutcome(t *testing.T) {
	type setup func(t *testing.T, p *railPair, id string)
	delivered := func(t *testing.T, p *railPair, id string) { p.lock(t, id); p.deliver(t, id) }
	released := func(t *testing.T, p *railPair, id string) {
		delivered(t, p, id)
		st, err := p.buyer.e.Release(context.Background(), id)
		require.NoError(t, err)
		require.NoError(t, p.seller.e.ApplySettle(context.Background(), st))
	}
	refunded := func(t *testing.T, p *railPair, id string) {
		delivered(t, p, id)
		st, err := p.buyer.e.Refund(context.Background(), id, "verification failed", nil)
		require.NoError(t, err)
		require.NoError(t, p.seller.e.ApplySettle(context.Background(), st))
	}
	refundLost := func(t *testing.T, p *railPair, id string) {
		delivered(t, p, id)
		_, err := p.buyer.e.Refund(context.Background(), id, "verification failed", nil)
		require.NoError(t, err) // the refund never reaches the seller
	}
	testCases := []struct {
		name          string
		setup         setup
		outcome       string
		buyer, seller escrow.State // after the revert
		refundPending bool
		sellerProv    bool
		buyerBal      escrow.Balance
		sellerBal     escrow.Balance
	}{
		{"released, paid: redeemed again", released, escrow.RailPaid, escrow.StateReleased, escrow.StateReleased, false, false,
			escrow.Balance{Available: 10*credit - testPrice, Paid: testPrice, Deposited: 10 * credit},
			escrow.Balance{Available: testPrice, Earned: testPrice}},
		{"delivered, claimed: claimed again", delivered, escrow.RailPaid, escrow.StateReleased, escrow.StateReleased, false, true,
			escrow.Balance{Available: 10*credit - testPrice, Paid: testPrice, Deposited: 10 * credit},
			escrow.Balance{Pending: testPrice}},
		// The seller had the buyer's signed refund: it stays disputed and
		// never claims; the buyer holds the amount and cancels again.
		{"refunded, cancelled: held and cancelled again", refunded, escrow.RailCancelled, escrow.StateRefunded, escrow.StateDisputed, true, false,
			escrow.Balance{Available: 10*credit - testPrice, Held: testPrice, Deposited: 10 * credit},
			escrow.Balance{}},
		// Disputed only by the chain's cancel: the seller claims at
		// not_before unless the buyer's cancel comes again.
		{"refund lost, cancelled: the seller may claim again", refundLost, escrow.RailCancelled, escrow.StateRefunded, escrow.StateReleased, true, true,
			escrow.Balance{Available: 10*credit - testPrice, Held: testPrice, Deposited: 10 * credit},
			escrow.Balance{Pending: testPrice}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			p := setupRailPair(t)
			tc.setup(t, p, "job")
			o := escrow.RailOutcome{Kind: tc.outcome, Tx: "tx-1", Block: 9}
			require.NoError(t, p.buyer.e.ApplyRailOutcome(ctx, escrow.RoleBuyer, "job", o))
			require.NoError(t, p.seller.e.ApplyRailOutcome(ctx, escrow.RoleSeller, "job", o))
			applied := [2]escrow.Balance{p.buyer.balance(t), p.seller.balance(t)}
			for _, n := range []*testNode{p.buyer, p.seller} {
				w, err := n.e.RailWatched(ctx, nil, 0)
				require.NoError(t, err)
				require.Len(t, w, 1, "a recorded outcome is watched")
				// Another transaction is not the recorded one: nothing moves.
				ok, err := n.e.RevertRailOutcome(ctx, w[0].Role, "job", "tx-other", "x")
				require.NoError(t, err)
				require.False(t, ok)
				ok, err = n.e.RevertRailOutcome(ctx, w[0].Role, "job", "tx-1", "vanished")
				require.NoError(t, err)
				require.True(t, ok)
				w, err = n.e.RailWatched(ctx, nil, 0)
				require.NoError(t, err)
				require.Empty(t, w)
				n.requireInvariant(t)
			}
			b, err := p.buyer.e.GetRole(ctx, "job", escrow.RoleBuyer)
			require.NoError(t, err)
			s, err := p.seller.e.GetRole(ctx, "job", escrow.RoleSeller)
			require.NoError(t, err)
			require.Equal(t, tc.buyer, b.State)
			require.Equal(t, tc.seller, s.State)
			require.Equal(t, tc.refundPending, b.RefundPending)
			require.Equal(t, tc.sellerProv, s.Provisional)
			for _, r := range []escrow.Record{b, s} {
				require.Empty(t, r.ChainOutcome)
				require.Empty(t, r.ChainTx)
				require.True(t, r.ChainProvisional)
				require.Equal(t, "vanished", r.ChainNote)
			}
			require.Equal(t, tc.buyerBal, p.buyer.balance(t))
			require.Equal(t, tc.sellerBal, p.seller.balance(t))
			open, err := p.seller.e.RailOpen(ctx, escrow.RoleSeller, nil)
			require.NoError(t, err)
			require.Equal(t, tc.seller == escrow.StateReleased, len(open) == 1, "a seller's payout is open on the rail again: re-sent")
			// The chain shows the outcome again (another transaction).
			// The buyer's comes with a note (the outcome found on chain,
			// not in the logs): recorded in the same write.
			o2 := escrow.RailOutcome{Kind: tc.outcome, Tx: "tx-2", Block: 11}
			noted := o2
			noted.Note = "missing from the logs"
			require.NoError(t, p.buyer.e.ApplyRailOutcome(ctx, escrow.RoleBuyer, "job", noted))
			require.NoError(t, p.seller.e.ApplyRailOutcome(ctx, escrow.RoleSeller, "job", o2))
			require.Equal(t, applied, [2]escrow.Balance{p.buyer.balance(t), p.seller.balance(t)})
			s, err = p.seller.e.GetRole(ctx, "job", escrow.RoleSeller)
			require.NoError(t, err)
			require.False(t, s.ChainProvisional)
			require.Empty(t, s.ChainNote)
			b, err = p.buyer.e.GetRole(ctx, "job", escrow.RoleBuyer)
			require.NoError(t, err)
			require.Equal(t, "tx-2", b.ChainTx)
			require.Equal(t, noted.Note, b.ChainNote)
			require.NoError(t, p.seller.e.RailFinal(ctx, escrow.RoleSeller, "job", "tx-2"))
			w, err := p.seller.e.RailWatched(ctx, nil, 0)
			require.NoError(t, err)
			require.Empty(t, w, "final: no longer watched")
			p.buyer.requireInvariant(t)
			p.seller.requireInvariant(t)
		})
	}
}

// TestRailOpenSumsFollowTheIndex: what is open with a counterparty is one
// stored sum (issue 25: reserveRail scanned the index under its lock on
// every lock), kept with the index as jobs lock and settle, and rebuilt at
// start-up for a store written before the sums were kept.
func TestRailOpenSumsFollowTheIndex(t *testing.T) {
	ctx := context.Background()
	p := setupRailPair(t)
	open := func(n *testNode, role escrow.Role, cp string) int64 {
		t.Helper()
		v, err := n.e.RailOpenAmount(ctx, role, cp)
		require.NoError(t, err)
		return v
	}
	for i := range 5 {
		p.lock(t, fmt.Sprintf("job-%d", i))
	}
	require.Equal(t, int64(5*testPrice), open(p.buyer, escrow.RoleBuyer, "addr-seller"))
	require.Equal(t, int64(5*testPrice), open(p.seller, escrow.RoleSeller, "addr-buyer"))
	// A job the seller fails leaves the seller's open sum; the buyer's
	// refund stays open until the rail confirms it.
	require.NoError(t, p.seller.e.FailJob(ctx, "job-0", "boom"))
	require.Equal(t, int64(4*testPrice), open(p.seller, escrow.RoleSeller, "addr-buyer"))
	p.buyer.requireInvariant(t)
	p.seller.requireInvariant(t)

	// A store from before: no sums. The restart adds them up again.
	for _, n := range []*testNode{p.buyer, p.seller} {
		require.NoError(t, n.db.DropPrefix([]byte("escrow/railsum")))
		n.reopen(t)
		n.requireInvariant(t)
	}
	require.Equal(t, int64(5*testPrice), open(p.buyer, escrow.RoleBuyer, "addr-seller"))
	require.Equal(t, int64(4*testPrice), open(p.seller, escrow.RoleSeller, "addr-buyer"))
	// A sum that disagrees with the index is a broken invariant.
	require.NoError(t, p.seller.db.Update(func(txn *badgerTxn) error {
		return txn.Set([]byte("escrow/railsum/seller/"+strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte("addr-buyer")))), []byte("1"))
	}))
	require.ErrorIs(t, p.seller.e.CheckInvariant(ctx), escrow.ErrInvariant)
}
