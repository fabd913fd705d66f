package evm

// Receipts' payment proofs against a real anvil: a seller's receipts carry
// the transactions that paid it, and a buyer's node counts a release as
// paid only if its own RPC shows that payment.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
	"github.com/swarmwage/swarmwage/reputation"
)

// releaseJob hires seller, releases, and waits until the seller's record
// shows the chain's payment.
func releaseJob(t testing.TB, buyer, seller *railNode, jobID string, amount int64) {
	t.Helper()
	ctx := context.Background()
	hireTB(t, buyer, seller, jobID, amount)
	st, err := buyer.esc.Release(ctx, jobID)
	require.NoError(t, err)
	require.NoError(t, seller.esc.ApplySettle(ctx, st))
}

// hireTB is hire for tests and benchmarks.
func hireTB(t testing.TB, buyer, seller *railNode, jobID string, amount int64) {
	t.Helper()
	ctx := context.Background()
	input := []byte(`{"data":[1,2,3]}`)
	l, err := buyer.esc.Lock(ctx, escrow.LockParams{
		JobID: jobID, QuoteID: "q-" + jobID, Capability: "compute.statistics.mean", Seller: seller.id,
		Amount: amount, Deadline: time.Now().Add(time.Minute), Window: 10 * time.Second, Input: input,
		SellerAddress: seller.key.Address().Hex(),
	})
	require.NoError(t, err)
	_, err = seller.esc.AcceptLock(ctx, l, input)
	require.NoError(t, err)
	out := []byte(`{"result":2}`)
	d, err := seller.esc.Deliver(ctx, jobID, out)
	require.NoError(t, err)
	require.NoError(t, buyer.esc.RecordDelivery(ctx, d, out))
}

func waitPaid(t testing.TB, seller *railNode, jobIDs ...string) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, id := range jobIDs {
			r, err := seller.esc.GetRole(context.Background(), id, escrow.RoleSeller)
			if err != nil || r.ChainOutcome != escrow.RailPaid {
				return false
			}
		}
		return true
	}, 30*time.Second, 50*time.Millisecond)
}

func sellerReceipts(t testing.TB, seller *railNode) map[string]escrow.Receipt {
	t.Helper()
	rs, next, err := seller.esc.Receipts(context.Background(), escrow.ReceiptFilter{})
	require.NoError(t, err)
	require.Empty(t, next)
	out := map[string]escrow.Receipt{}
	for _, r := range rs {
		// Through the wire form, as a buyer gets them.
		b, err := json.Marshal(r)
		require.NoError(t, err)
		back, err := escrow.DecodeReceipt(b)
		require.NoError(t, err)
		out[r.Lock.JobID] = *back
	}
	return out
}

func wireOf(t testing.TB, rs ...escrow.Receipt) [][]byte {
	t.Helper()
	out := make([][]byte, len(rs))
	for i, r := range rs {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		out[i] = b
	}
	return out
}

// TestReceiptPaymentsCountOnlyWhatMovedOnChain: an honest seller's evm
// receipts name the transactions that paid it and count as paid on the
// buyer's own chain; a proof the chain contradicts counts as forged; a
// proof the buyer's node cannot check now (the chain is down) leaves the
// release unpaid, while payments it checked before stay paid (cached).
func TestReceiptPaymentsCountOnlyWhatMovedOnChain(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	p := evmtest.StartProxy(t, n.a.URL)
	// The buyer reads the chain through a proxy it can lose.
	buyer, seller := newBuyerAndSeller(t, n, p.URL, 10_000_000, 1_000_000)
	ctx := t.Context()
	_, depositTx, err := buyer.s.Deposit(ctx, 5_000_000)
	require.NoError(t, err)

	for _, id := range []string{"job-a", "job-b", "job-c"} {
		releaseJob(t, buyer, seller, id, 40_000)
	}
	hireTB(t, buyer, seller, "job-r", 40_000)
	st, err := buyer.esc.Refund(ctx, "job-r", "verification failed", []string{"value_matches"})
	require.NoError(t, err)
	require.NoError(t, seller.esc.ApplySettle(ctx, st))
	waitPaid(t, seller, "job-a", "job-b", "job-c")
	// job-d is paid by a transaction of its own, after the others.
	releaseJob(t, buyer, seller, "job-d", 40_000)
	waitPaid(t, seller, "job-d")

	rs := sellerReceipts(t, seller)
	require.Len(t, rs, 5)
	for _, id := range []string{"job-a", "job-b", "job-c", "job-d"} {
		rec := seller.record(t, escrow.RoleSeller, id)
		pay, err := DecodePayment(rs[id].Payment)
		require.NoError(t, err, "job %s", id)
		require.Equal(t, Payment{Outcome: escrow.RailPaid, ChainID: uint64(n.a.ChainID), Escrow: n.dep.Escrow, JobID: JobID(id),
			Buyer: buyer.key.Address(), Seller: seller.key.Address(), Amount: 40_000, Tx: common.HexToHash(rec.ChainTx), Block: rec.ChainBlock}, *pay)
		require.NotZero(t, pay.Block)
	}

	// The buyer scores the seller with three of the four releases: all
	// paid on its chain.
	sample := []escrow.Receipt{rs["job-a"], rs["job-b"], rs["job-c"], rs["job-r"]}
	s := reputation.SummarizeWire(ctx, seller.id, wireOf(t, sample...), nil, buyer.esc.CheckPayment)
	require.Equal(t, reputation.Summary{Released: 3, Refunded: 1, Volume: 120_000, Buyers: 1, PayingBuyers: 1, Checked: 4}, withoutScore(s))

	honest := rs["job-a"]
	far := new(big.Int).SetUint64(1 << 40)
	testCases := []struct {
		name string
		r    escrow.Receipt
		want error
	}{
		{"a real transaction that paid nothing (the buyer's deposit)", withPayment(t, honest, func(m map[string]any) { m["tx"] = depositTx.Hex() }), escrow.ErrForged},
		{"a transaction that does not exist, its block final", withPayment(t, honest, func(m map[string]any) {
			m["tx"] = common.HexToHash("0xdead").Hex()
		}), escrow.ErrForged},
		{"the amount raised", withPayment(t, honest, func(m map[string]any) { m["amount"] = "4000000" }), escrow.ErrForged},
		{"paid to someone else", withPayment(t, honest, func(m map[string]any) { m["seller"] = buyer.key.Address().Hex() }), escrow.ErrForged},
		{"a transaction not mined yet, its block in the future", withPayment(t, honest, func(m map[string]any) {
			m["tx"], m["block"] = common.HexToHash("0xbeef").Hex(), far.Uint64()
		}), escrow.ErrNotPaid},
		{"no proof yet", func() escrow.Receipt { r := honest; r.Payment = nil; return r }(), escrow.ErrNotPaid},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			err := buyer.esc.CheckPayment(ctx, &tc.r)
			require.ErrorIs(t, err, tc.want)
			bad := []escrow.Receipt{tc.r, rs["job-b"], rs["job-c"]}
			s := reputation.SummarizeWire(ctx, seller.id, wireOf(t, bad...), nil, buyer.esc.CheckPayment)
			require.Equal(t, 2, s.Released)
			if tc.want == escrow.ErrForged {
				require.Equal(t, 1, s.Forged, "%+v", s)
				require.Equal(t, 2, s.Checked)
			} else {
				require.Zero(t, s.Forged)
				require.Equal(t, 1, s.Unpaid)
				require.Equal(t, 3, s.Checked)
			}
		})
	}

	// With the buyer's chain down, what it checked stays paid; a payment it
	// never saw cannot be shown and counts for nothing, not as forged.
	p.Down()
	time.Sleep(100 * time.Millisecond) // past the cached head
	require.NoError(t, buyer.esc.CheckPayment(ctx, ptr(rs["job-a"])))
	err = buyer.esc.CheckPayment(ctx, ptr(rs["job-d"]))
	require.ErrorIs(t, err, escrow.ErrNotPaid)
	require.NotErrorIs(t, err, escrow.ErrForged)
	s = reputation.SummarizeWire(ctx, seller.id, wireOf(t, rs["job-a"], rs["job-d"]), nil, buyer.esc.CheckPayment)
	require.Equal(t, 1, s.Released)
	require.Equal(t, 1, s.Unpaid)
	require.Zero(t, s.Forged)
	require.NoError(t, p.Up())
	require.Eventually(t, func() bool { return buyer.esc.CheckPayment(ctx, ptr(rs["job-d"])) == nil }, 10*time.Second, 100*time.Millisecond)
}

func ptr(r escrow.Receipt) *escrow.Receipt { return &r }

func withoutScore(s reputation.Summary) reputation.Summary {
	s.Score, s.FirstAt = 0, time.Time{}
	return s
}

// TestReceiptPaymentOnAnotherContractOrChainDoesNotCount: receipts paid
// honestly through another escrow contract (on the same chain) or on
// another chain are no payment this node can see: they count for nothing,
// and not as forged. The node on that contract counts them.
func TestReceiptPaymentOnAnotherContractOrChainDoesNotCount(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	dep2, err := Deploy(ctx, n.a.URL, n.deployer, DeployOptions{TestToken: true, Notice: time.Hour, Logger: quiet})
	require.NoError(t, err)
	require.NotEqual(t, n.dep.Escrow, dep2.Escrow)
	n2 := &anvilNet{a: n.a, dep: dep2, deployer: n.deployer, rpc: n.rpc}

	keys := make([]*Key, 3)
	for i := range keys {
		keys[i], err = GenerateKey()
		require.NoError(t, err)
		n.fundGas(t, keys[i].Address())
	}
	n2.mint(t, keys[0].Address(), 1_000_000)
	buyer2 := newRailNode(t, n2, keys[0], n.a.URL, SettlerConfig{LineChunk: 500_000})
	seller2 := newRailNode(t, n2, keys[1], n.a.URL, SettlerConfig{})
	_, _, err = buyer2.s.Deposit(ctx, 1_000_000)
	require.NoError(t, err)
	releaseJob(t, buyer2, seller2, "job-2", 30_000)
	waitPaid(t, seller2, "job-2")
	r := sellerReceipts(t, seller2)["job-2"]

	// A node on the first contract.
	here := newRailNode(t, n, keys[2], n.a.URL, SettlerConfig{})
	err = here.esc.CheckPayment(ctx, &r)
	require.ErrorIs(t, err, escrow.ErrNotPaid)
	require.NotErrorIs(t, err, escrow.ErrForged)
	require.ErrorContains(t, err, dep2.Escrow.Hex())
	s := reputation.SummarizeWire(ctx, seller2.id, wireOf(t, r), nil, here.esc.CheckPayment)
	require.Equal(t, reputation.Summary{Unpaid: 1, Checked: 1}, withoutScore(s))
	// The node on its contract counts it.
	s = reputation.SummarizeWire(ctx, seller2.id, wireOf(t, r), nil, buyer2.esc.CheckPayment)
	require.Equal(t, reputation.Summary{Released: 1, Volume: 30_000, Buyers: 1, PayingBuyers: 1, Checked: 1}, withoutScore(s))

	// Pointing that honest receipt at this node's contract makes it a
	// forgery: its vouchers were signed for the other one.
	moved := withPayment(t, r, func(m map[string]any) { m["escrow"] = n.dep.Escrow.Hex() })
	require.ErrorIs(t, here.esc.CheckPayment(ctx, &moved), escrow.ErrForged)

	// Another chain: vouchers and proof consistently for chain 84532.
	other := signedReceipt(t, Domain{ChainID: big.NewInt(84532), Escrow: n.dep.Escrow}, newReceiptParty(t), newReceiptParty(t), "job-x", 10_000)
	err = here.esc.CheckPayment(ctx, &other)
	require.ErrorIs(t, err, escrow.ErrNotPaid)
	require.ErrorContains(t, err, "chain 84532")
}

// TestReceiptPaymentOfAnotherAmountIsForged: a self-dealing seller with a
// buyer identity of its own signs a job of 50,000 but moves only 1 on
// chain for it: the chain's Paid event shows 1, so the receipt is forged.
// The receipt of what it did pay counts, at its real amount.
func TestReceiptPaymentOfAnotherAmountIsForged(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	n.deposited(t, 1_000, 1_000)
	_, err := n.buyer.EnsureLine(ctx, n.seller.Address(), 1_000, 1_000)
	require.NoError(t, err)
	rel := &Release{JobID: JobID("sybil-1"), Buyer: n.buyer.Address(), Seller: n.seller.Address(), Amount: 1}
	require.NoError(t, n.buyer.Domain().SignRelease(anvilKey(t, n.a, 1), rel))
	red, err := n.seller.Redeem(ctx, []Voucher{{Release: rel}})
	require.NoError(t, err)
	require.Equal(t, int64(1), red.Total)

	sybilBuyer, sybilSeller := newReceiptParty(t), newReceiptParty(t)
	sybilBuyer.evm, sybilSeller.evm = anvilKey(t, n.a, 1), anvilKey(t, n.a, 2)
	atTx := func(r escrow.Receipt) escrow.Receipt {
		return withPayment(t, r, func(m map[string]any) { m["tx"], m["block"] = red.Tx.Hash.Hex(), red.Tx.Block })
	}
	inflated := atTx(signedReceipt(t, n.buyer.Domain(), sybilBuyer, sybilSeller, "sybil-1", 50_000))
	paid := atTx(signedReceipt(t, n.buyer.Domain(), sybilBuyer, sybilSeller, "sybil-1", 1))
	unpaidJob := atTx(signedReceipt(t, n.buyer.Domain(), sybilBuyer, sybilSeller, "sybil-2", 1))

	k, err := GenerateKey()
	require.NoError(t, err)
	checker := newRailNode(t, n, k, n.a.URL, SettlerConfig{})
	err = checker.esc.CheckPayment(ctx, &inflated)
	require.ErrorIs(t, err, escrow.ErrForged)
	require.ErrorContains(t, err, "paid 1 for the job, the proof says 50000")
	require.NoError(t, checker.esc.CheckPayment(ctx, &paid))
	err = checker.esc.CheckPayment(ctx, &unpaidJob)
	require.ErrorIs(t, err, escrow.ErrForged, "another job's payment transaction")
	require.ErrorContains(t, err, "has no Paid event of job")

	known := func(peer.ID) bool { return false }
	s := reputation.SummarizeWire(ctx, sybilSeller.id, wireOf(t, inflated), known, checker.esc.CheckPayment)
	require.Equal(t, reputation.Summary{Forged: 1}, withoutScore(s))
	s = reputation.SummarizeWire(ctx, sybilSeller.id, wireOf(t, paid), known, checker.esc.CheckPayment)
	require.Equal(t, reputation.Summary{Released: 1, Volume: 1, Buyers: 1, PayingBuyers: 1, Checked: 1}, withoutScore(s))
}

// BenchmarkSummarizeEVMReceipts checks and scores 200 evm receipts,
// each payment checked against anvil once and then from the cache.
func BenchmarkSummarizeEVMReceipts(b *testing.B) {
	n := newAnvilNet(b, time.Hour, 1)
	buyer, seller := newBuyerAndSeller(b, n, n.a.URL, 100_000_000, 50_000_000)
	_, _, err := buyer.s.Deposit(context.Background(), 50_000_000)
	require.NoError(b, err)
	ids := make([]string, 200)
	for i := range ids {
		ids[i] = fmt.Sprintf("job-%03d", i)
		releaseJob(b, buyer, seller, ids[i], 10_000)
	}
	waitPaid(b, seller, ids...)
	var rs []escrow.Receipt
	for _, r := range sellerReceipts(b, seller) {
		rs = append(rs, r)
	}
	raws := wireOf(b, rs...)
	ctx := context.Background()
	first := time.Now()
	s := reputation.SummarizeWire(ctx, seller.id, raws, nil, buyer.esc.CheckPayment)
	require.Equal(b, 200, s.Released, "%+v", s)
	uncached := time.Since(first)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if s := reputation.SummarizeWire(ctx, seller.id, raws, nil, buyer.esc.CheckPayment); s.Released != 200 {
			b.Fatal(s)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/200, "µs/receipt")
	b.ReportMetric(float64(uncached.Microseconds())/200, "µs/receipt-first")
}
