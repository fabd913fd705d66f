package faults

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// The comparison itself, on made-up ledgers: it must find every kind of
// problem the suite looks for, and nothing in agreeing ledgers.
func TestCompare(t *testing.T) {
	t.Parallel()
	now := time.Now()
	past := now.Add(-time.Minute)
	rec := func(role, state string) escrowRec {
		return escrowRec{JobID: "j1", Role: role, State: state, Amount: "0.01", Buyer: "B", Seller: "S",
			Deadline: past, WindowMS: 2000}
	}
	prov := func(r escrowRec) escrowRec { r.Provisional = true; return r }
	pend := func(b *escrow.Balance, s string) *escrow.Balance {
		v, err := escrow.ParseAmount(s)
		require.NoError(t, err)
		b.Pending = v
		return b
	}
	settled := func(r escrowRec, at time.Time) escrowRec { r.SettledAt = &at; return r }
	bal := func(avail, held, paid, dep, earned string) *escrow.Balance {
		p := func(s string) int64 { v, err := escrow.ParseAmount(s); require.NoError(t, err); return v }
		return &escrow.Balance{Available: p(avail), Held: p(held), Paid: p(paid), Deposited: p(dep), Earned: p(earned)}
	}
	type want struct {
		problems    []string // substrings, one per problem, in order
		pending     int
		divergences int
		wrong       int
	}
	for _, tc := range []struct {
		name      string
		buyer     map[string]escrowRec
		seller    map[string]escrowRec
		dishonest bool
		decisions map[string]string
		full      bool
		bb, sb    *escrow.Balance
		jobs      []jobRec
		final     bool
		want      want
	}{
		{name: "released on both", buyer: m(rec("buyer", "released")), seller: m(rec("seller", "released"))},
		{name: "refunded and disputed", buyer: m(rec("buyer", "refunded")), seller: m(rec("seller", "disputed"))},
		{name: "refunded and failed", buyer: m(rec("buyer", "refunded")), seller: m(rec("seller", "failed"))},
		{name: "refunded, the lock never arrived", buyer: m(rec("buyer", "refunded"))},
		{name: "refunded on the buyer, released on the seller", buyer: m(rec("buyer", "refunded")), seller: m(rec("seller", "released")),
			want: want{problems: []string{"diverges"}, divergences: 1}},
		{name: "released on the buyer, disputed on the seller", buyer: m(rec("buyer", "released")), seller: m(rec("seller", "disputed")),
			want: want{problems: []string{"diverges"}, divergences: 1}},
		{name: "released with no seller record", buyer: m(rec("buyer", "released")),
			want: want{problems: []string{"diverges"}, divergences: 1}},
		{name: "seller record without a lock", seller: m(rec("seller", "released")),
			want: want{problems: []string{"never locked"}, divergences: 1}},
		{name: "provisional release is pending", buyer: m(rec("buyer", "refunded")), seller: m(prov(rec("seller", "released"))),
			want: want{pending: 1}},
		{name: "provisional release at the deadline", buyer: m(rec("buyer", "refunded")), seller: m(prov(rec("seller", "released"))), final: true,
			want: want{problems: []string{"provisional"}}},
		{name: "open hold is pending", buyer: m(rec("buyer", "delivered")), seller: m(rec("seller", "delivered")),
			want: want{pending: 1}},
		{name: "open hold at the deadline", buyer: m(rec("buyer", "released")), seller: m(rec("seller", "delivered")), final: true,
			want: want{problems: []string{"is delivered on seller"}}},
		{name: "dishonest job paid by the buyer", dishonest: true, buyer: m(rec("buyer", "released")), seller: m(rec("seller", "released")),
			want: want{problems: []string{"the buyer paid and seller was credited"}, wrong: 1}},
		{name: "dishonest job credited on the seller only", dishonest: true, buyer: m(rec("buyer", "refunded")), seller: m(rec("seller", "released")),
			want: want{problems: []string{"seller was credited", "diverges"}, wrong: 1, divergences: 1}},
		{name: "dishonest job refunded", dishonest: true, buyer: m(rec("buyer", "refunded")), seller: m(rec("seller", "disputed"))},
		{name: "lost decision", buyer: m(rec("buyer", "refunded")), decisions: map[string]string{"j1": "released"},
			want: want{problems: []string{"lost decision"}}},
		{name: "decision without a record", decisions: map[string]string{"j9": "released"},
			want: want{problems: []string{"lost decision"}}},
		{name: "balances agree", full: true, buyer: m(rec("buyer", "released")), seller: m(rec("seller", "released")),
			bb: bal("9.99", "0", "0.01", "10", "0"), sb: bal("0.01", "0", "0", "0", "0.01")},
		{name: "invariant broken", full: true, buyer: m(rec("buyer", "refunded")),
			bb: bal("9.99", "0", "0", "10", "0"), sb: bal("0", "0", "0", "0", "0"),
			want: want{problems: []string{"invariant broken on buyer"}}},
		{name: "held without an open escrow", full: true, buyer: m(rec("buyer", "refunded")),
			bb: bal("9.99", "0.01", "0", "10", "0"), sb: bal("0", "0", "0", "0", "0"),
			want: want{problems: []string{"holds 0.01"}}},
		{name: "paid more than released", full: true, buyer: m(rec("buyer", "refunded")), seller: m(rec("seller", "refunded")),
			bb: bal("9.99", "0", "0.01", "10", "0"), sb: bal("0", "0", "0", "0", "0"),
			want: want{problems: []string{"paid 0.01, its released", "paid 0.01 in all"}}},
		{name: "earned without a release", full: true, buyer: m(rec("buyer", "refunded")), seller: m(rec("seller", "disputed")),
			bb: bal("10", "0", "0", "10", "0"), sb: bal("0.01", "0", "0", "0", "0.01"),
			want: want{problems: []string{"earned 0.01", "paid 0 in all"}}},
		{name: "provisional release counted as pending", full: true, buyer: m(rec("buyer", "refunded")), seller: m(prov(rec("seller", "released"))),
			bb: bal("10", "0", "0", "10", "0"), sb: pend(bal("0", "0", "0", "0", "0"), "0.01"),
			want: want{pending: 1}},
		{name: "provisional release not in pending", full: true, buyer: m(rec("buyer", "refunded")), seller: m(prov(rec("seller", "released"))),
			bb: bal("10", "0", "0", "10", "0"), sb: bal("0", "0", "0", "0", "0"),
			want: want{problems: []string{"0 pending, its provisional releases add up to 0.01"}, pending: 1}},
		{name: "job record running long after its escrow settled", full: true, buyer: m(rec("buyer", "refunded")),
			seller: m(settled(rec("seller", "refunded"), past)),
			bb:     bal("10", "0", "0", "10", "0"), sb: bal("0", "0", "0", "0", "0"),
			jobs: []jobRec{{JobID: "j1", Role: "seller", Status: "running"}},
			want: want{problems: []string{"still running, its escrow has been refunded"}}},
		{name: "job record running just after its escrow settled", full: true, buyer: m(rec("buyer", "refunded")),
			seller: m(settled(rec("seller", "refunded"), now)),
			bb:     bal("10", "0", "0", "10", "0"), sb: bal("0", "0", "0", "0", "0"),
			jobs: []jobRec{{JobID: "j1", Role: "seller", Status: "running"}},
			want: want{pending: 1}},
		{name: "job record running", full: true, buyer: m(rec("buyer", "refunded")),
			bb: bal("10", "0", "0", "10", "0"), sb: bal("0", "0", "0", "0", "0"),
			jobs: []jobRec{{JobID: "j1", Role: "seller", Status: "running"}}, final: true,
			want: want{problems: []string{"still running"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshot{
				buyer:     ledger{name: "buyer", id: "B", escrows: orEmpty(tc.buyer), balance: tc.bb},
				sellers:   []ledger{{name: "seller", id: "S", dishonest: tc.dishonest, escrows: orEmpty(tc.seller), balance: tc.sb, jobs: tc.jobs}},
				decisions: tc.decisions, full: tc.full, final: tc.final, now: now,
			}
			v := compare(s)
			require.Len(t, v.problems, len(tc.want.problems), "problems: %q", v.problems)
			for i, p := range tc.want.problems {
				require.True(t, strings.Contains(v.problems[i].msg, p), "problem %d %q does not say %q", i, v.problems[i].msg, p)
			}
			require.Len(t, v.pending, tc.want.pending, "pending: %q", v.pending)
			require.Equal(t, tc.want.divergences, v.count(kindDivergence), "divergences")
			require.Equal(t, tc.want.wrong, v.count(kindWrongPayment), "wrong payments")
		})
	}
}

func m(recs ...escrowRec) map[string]escrowRec {
	out := make(map[string]escrowRec)
	for _, r := range recs {
		out[r.JobID] = r
	}
	return out
}

func orEmpty(in map[string]escrowRec) map[string]escrowRec {
	if in == nil {
		return map[string]escrowRec{}
	}
	return in
}

func TestDue(t *testing.T) {
	t.Parallel()
	deadline := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	at := func(s int) *time.Time { x := deadline.Add(time.Duration(s) * time.Second); return &x }
	for _, tc := range []struct {
		name string
		r    escrowRec
		want time.Time
	}{
		{"buyer locked: the deadline", escrowRec{Role: "buyer", State: "locked", Deadline: deadline, WindowMS: 2000}, deadline},
		{"buyer delivered: a window after", escrowRec{Role: "buyer", State: "delivered", Deadline: deadline, WindowMS: 2000, DeliveredAt: at(-5)}, deadline.Add(-3 * time.Second)},
		{"seller locked: deadline and grace", escrowRec{Role: "seller", State: "locked", Deadline: deadline, WindowMS: 2000}, deadline.Add(settleGrace)},
		{"seller delivered early: not before the deadline", escrowRec{Role: "seller", State: "delivered", Deadline: deadline, WindowMS: 2000, DeliveredAt: at(-5)}, deadline.Add(settleGrace)},
		{"seller delivered late: window and grace", escrowRec{Role: "seller", State: "delivered", Deadline: deadline, WindowMS: 2000, DeliveredAt: at(1)}, deadline.Add(3*time.Second + settleGrace)},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, tc.r.due()) })
	}
}
