package evm

// Issue 30 point 3: each node reads the chain through a lying JSON-RPC
// proxy (internal/lyingrpc) in front of a real anvil. Whatever the lie
// (forged, missing and reordered logs, wrong eth_call results, receipts
// that disagree with the logs, heads going backwards, huge answers), the
// node books no outcome the chain does not show, counts the disagreement,
// and once the proxy tells the truth both ledgers agree with the chain
// job by job.

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/lyingrpc"
)

// lyingNet is reorgNet with the buyer and the seller each reading the
// chain through a lying proxy of its own (honest until told otherwise).
func lyingNet(t *testing.T, sellerCfg SettlerConfig) (n *anvilNet, buyer, seller *railNode, bp, sp *lyingrpc.Proxy) {
	t.Helper()
	n = newAnvilNet(t, time.Hour, 1)
	bp, sp = startLiar(t, n.a.URL), startLiar(t, n.a.URL)
	bk, err := GenerateKey()
	require.NoError(t, err)
	sk, err := GenerateKey()
	require.NoError(t, err)
	n.fundGas(t, bk.Address())
	n.fundGas(t, sk.Address())
	n.mint(t, bk.Address(), 10_000_000)
	buyer = newRailNode(t, n, bk, bp.URL, SettlerConfig{LineChunk: 1_000_000})
	seller = newRailNode(t, n, sk, sp.URL, sellerCfg)
	_, _, err = buyer.s.Deposit(t.Context(), 5_000_000)
	require.NoError(t, err)
	return n, buyer, seller, bp, sp
}

func startLiar(t *testing.T, target string) *lyingrpc.Proxy {
	t.Helper()
	p, err := lyingrpc.Start(target)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

func randomHash(t *testing.T) common.Hash {
	t.Helper()
	var h common.Hash
	_, err := rand.Read(h[:])
	require.NoError(t, err)
	return h
}

func addrTopic(a common.Address) string { return common.BytesToHash(a[:]).Hex() }

// forgedJobLog is a Paid (or, with amount 0, Cancelled) log of the lock's
// job in block, in a transaction that does not exist.
func forgedJobLog(t *testing.T, n *anvilNet, l *Lock, amount int64, block uint64) lyingrpc.Log {
	t.Helper()
	topic, data := paidTopic, "0x"
	if amount > 0 {
		data = hexutil.Encode(append(common.BigToHash(big.NewInt(amount)).Bytes(), common.BigToHash(big.NewInt(0)).Bytes()...))
	} else {
		topic = cancelledTopic
	}
	lg := lyingrpc.Log{}
	lg.Set("address", strings.ToLower(n.dep.Escrow.Hex()))
	lg.Set("topics", []string{topic.Hex(), common.Hash(l.JobID).Hex(), addrTopic(l.Buyer), addrTopic(l.Seller)})
	lg.Set("data", data)
	lg.Set("blockNumber", hexutil.EncodeUint64(block))
	lg.Set("blockHash", randomHash(t).Hex())
	lg.Set("transactionHash", randomHash(t).Hex())
	lg.Set("transactionIndex", "0x0")
	lg.Set("logIndex", "0x0")
	lg.Set("removed", false)
	return lg
}

// lockOf is the evm lock voucher of rn's record of jobID.
func lockOf(t *testing.T, rn *railNode, role escrow.Role, jobID string) *Lock {
	t.Helper()
	rec := rn.record(t, role, jobID)
	l, err := rn.s.voucherOf(lockTermsOf(rec.Lock), rec.Lock.RailProof)
	require.NoError(t, err)
	return l
}

// jobStateLie answers job(buyer, seller, jobId) of the lock's job with
// state (and cancelledAt 1).
func jobStateLie(t *testing.T, l *Lock, state uint8) lyingrpc.Lie {
	t.Helper()
	m := escrowABI.Methods["job"]
	out, err := m.Outputs.Pack(state, uint64(1))
	require.NoError(t, err)
	return lyingrpc.CallResult(hexutil.Encode(m.ID), hexutil.Encode(out), common.Hash(l.JobID).Hex())
}

func (n *anvilNet) head(t *testing.T) uint64 {
	t.Helper()
	b, err := n.seller.eth.BlockNumber(t.Context())
	require.NoError(t, err)
	return b
}

func (rn *railNode) cursor(t *testing.T) Cursor {
	t.Helper()
	var c Cursor
	_, err := rn.esc.RailState(t.Context(), rn.s.stateName("cursor"), &c)
	require.NoError(t, err)
	return c
}

// pendingRefund hires jobID and refunds it while the buyer has no gas,
// so its cancel cannot be sent: refunded, refund_pending, held.
func pendingRefund(t *testing.T, n *anvilNet, buyer, seller *railNode, jobID string, amount int64) {
	t.Helper()
	hire(t, buyer, seller, jobID, amount, time.Minute, 10*time.Second)
	require.NoError(t, n.rpc.CallContext(t.Context(), nil, "anvil_setBalance", buyer.key.Address(), "0x0"))
	_, err := buyer.esc.Refund(t.Context(), jobID, "verification failed", []string{"value_matches"})
	require.NoError(t, err)
	require.True(t, buyer.record(t, escrow.RoleBuyer, jobID).RefundPending)
}

// TestLyingRPCForgedPaidLogLeavesAPendingRefundPending: issue 30's first
// attack through a proxy. For one eth_getLogs answer the buyer's RPC adds
// a Paid log of the job, whose cancel could not be sent yet, in a
// transaction that does not exist. The refund stays pending and held, the
// disagreement is counted and noted, and once the buyer has gas the
// cancel is sent and the chain shows the job cancelled.
func TestLyingRPCForgedPaidLogLeavesAPendingRefundPending(t *testing.T) {
	n, buyer, seller, bp, _ := lyingNet(t, SettlerConfig{})
	pendingRefund(t, n, buyer, seller, "job-f", 70_000)
	l := lockOf(t, buyer, escrow.RoleBuyer, "job-f")
	forged := forgedJobLog(t, n, l, l.Amount, n.head(t))
	bp.Lie("eth_getLogs", lyingrpc.Once(lyingrpc.AddLogs(func(lyingrpc.Request) []lyingrpc.Log { return []lyingrpc.Log{forged} })))
	require.NoError(t, n.rpc.CallContext(t.Context(), nil, "anvil_mine", 1)) // a new block for the reconcile to read
	require.Eventually(t, func() bool { return bp.Told("eth_getLogs") == 1 && buyer.s.Stats().Disagreements > 0 }, 20*time.Second, 20*time.Millisecond)

	rec := buyer.record(t, escrow.RoleBuyer, "job-f")
	require.Equal(t, escrow.StateRefunded, rec.State)
	require.True(t, rec.RefundPending, "the refund stays pending")
	require.Empty(t, rec.ChainOutcome)
	require.Contains(t, rec.ChainNote, "not confirmed by the chain")
	require.Equal(t, int64(70_000), buyer.balance(t).Held)
	require.Zero(t, n.jobState(t, buyer.key.Address(), seller.key.Address(), "job-f"))

	n.fundGas(t, buyer.key.Address())
	require.Eventually(t, func() bool {
		return buyer.record(t, escrow.RoleBuyer, "job-f").ChainOutcome == escrow.RailCancelled
	}, 30*time.Second, 50*time.Millisecond)
	require.Equal(t, uint8(2), n.jobState(t, buyer.key.Address(), seller.key.Address(), "job-f"))
	require.Equal(t, escrow.Balance{Available: 5_000_000, Deposited: 5_000_000}, buyer.balance(t))
	require.NoError(t, buyer.esc.CheckInvariant(t.Context()))
}

// TestLyingRPCWrongJobStateMovesNoMoney: the endpoint's eth_call of
// job() says PAID for the buyer's pending refund, and CANCELLED for the
// seller's released job that its redeem paid. Neither node books the
// state alone: the buyer's refund stays pending (its cancel still goes
// out before the not-before: the lie must not keep it off the chain), the
// seller's job stays released and unpaid in its ledger, both noted. With
// the truth the buyer books the cancel and the seller its payment.
func TestLyingRPCWrongJobStateMovesNoMoney(t *testing.T) {
	n, buyer, seller, bp, sp := lyingNet(t, SettlerConfig{})
	ctx := t.Context()
	pendingRefund(t, n, buyer, seller, "job-w", 70_000)
	bp.Lie("eth_call", jobStateLie(t, lockOf(t, buyer, escrow.RoleBuyer, "job-w"), 1))
	n.fundGas(t, buyer.key.Address()) // the cancel could go now: the lie says it is paid already

	hire(t, buyer, seller, "job-w2", 30_000, time.Minute, 10*time.Second)
	sp.Lie("eth_call", jobStateLie(t, lockOf(t, seller, escrow.RoleSeller, "job-w2"), 2))
	releaseTo(t, buyer, seller, "job-w2")
	require.Eventually(t, func() bool { return n.tokenOf(t, seller.key.Address()) == 30_000 }, 20*time.Second, 50*time.Millisecond, "the seller's redeem paid on chain")

	require.Eventually(t, func() bool {
		return bp.Told("eth_call") > 0 && sp.Told("eth_call") > 0 &&
			strings.Contains(buyer.record(t, escrow.RoleBuyer, "job-w").ChainNote, "kept the local decision") &&
			seller.record(t, escrow.RoleSeller, "job-w2").ChainNote != ""
	}, 30*time.Second, 50*time.Millisecond)
	b := buyer.record(t, escrow.RoleBuyer, "job-w")
	require.True(t, b.RefundPending)
	require.Empty(t, b.ChainOutcome)
	require.Equal(t, int64(70_000), buyer.balance(t).Held)
	// The lie does not keep the cancel from going out before the
	// not-before (after which it would not count): the chain cancels it,
	// and the buyer still books nothing the lying job() contradicts.
	require.Eventually(t, func() bool { return n.jobState(t, buyer.key.Address(), seller.key.Address(), "job-w") == 2 }, 30*time.Second, 50*time.Millisecond,
		"the cancel was sent although the endpoint says the job is paid")
	require.True(t, buyer.record(t, escrow.RoleBuyer, "job-w").RefundPending)
	s := seller.record(t, escrow.RoleSeller, "job-w2")
	require.Equal(t, escrow.StateReleased, s.State)
	require.Empty(t, s.ChainOutcome, "the seller books no cancel from an eth_call")
	require.Positive(t, buyer.s.Stats().Disagreements)
	require.Positive(t, seller.s.Stats().Disagreements)

	bp.Truth()
	sp.Truth()
	require.Eventually(t, func() bool {
		return buyer.record(t, escrow.RoleBuyer, "job-w").ChainOutcome == escrow.RailCancelled &&
			seller.record(t, escrow.RoleSeller, "job-w2").ChainOutcome == escrow.RailPaid &&
			buyer.record(t, escrow.RoleBuyer, "job-w2").ChainOutcome == escrow.RailPaid
	}, 60*time.Second, 100*time.Millisecond)
	require.Equal(t, uint8(2), n.jobState(t, buyer.key.Address(), seller.key.Address(), "job-w"))
	ledgersAgree(t, n, buyer, seller, "job-w2", escrow.RailPaid)
	require.Equal(t, escrow.Balance{Earned: 30_000, Withdrawn: 30_000}, seller.balance(t))
	require.Equal(t, escrow.Balance{Available: 4_970_000, Paid: 30_000, Deposited: 5_000_000}, buyer.balance(t))
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	tokensConserved(t, n, buyer, seller, 10_000_000)
}

// TestLyingRPCMissingLogsConvergeOnTheTruth: the buyer's endpoint leaves
// every Paid log out of eth_getLogs while the seller redeems. The buyer
// books nothing it cannot see; once the endpoint tells the truth the
// buyer finds the payment by reading the job on chain (its reconcile had
// passed the block) and counts the omission.
func TestLyingRPCMissingLogsConvergeOnTheTruth(t *testing.T) {
	n, buyer, seller, bp, _ := lyingNet(t, SettlerConfig{})
	bp.Lie("eth_getLogs", lyingrpc.DropLogs(lyingrpc.HasTopic0(paidTopic.Hex())))
	hire(t, buyer, seller, "job-m", 40_000, time.Minute, 10*time.Second)
	releaseTo(t, buyer, seller, "job-m")
	require.Eventually(t, func() bool {
		return seller.record(t, escrow.RoleSeller, "job-m").ChainOutcome == escrow.RailPaid
	}, 20*time.Second, 50*time.Millisecond)
	paidIn := seller.record(t, escrow.RoleSeller, "job-m").ChainBlock
	require.Eventually(t, func() bool { return buyer.cursor(t).Block >= paidIn && bp.Told("eth_getLogs") > 0 }, 20*time.Second, 50*time.Millisecond,
		"the buyer's reconcile read the payment's block without its log")
	require.Empty(t, buyer.record(t, escrow.RoleBuyer, "job-m").ChainOutcome)
	before := buyer.s.Stats().Disagreements

	bp.Truth()
	require.Eventually(t, func() bool {
		return buyer.record(t, escrow.RoleBuyer, "job-m").ChainOutcome == escrow.RailPaid
	}, 30*time.Second, 50*time.Millisecond)
	ledgersAgree(t, n, buyer, seller, "job-m", escrow.RailPaid)
	require.Greater(t, buyer.s.Stats().Disagreements, before, "the omission is counted")
	require.Contains(t, buyer.record(t, escrow.RoleBuyer, "job-m").ChainNote, "missing from the endpoint's eth_getLogs")
	require.Equal(t, escrow.Balance{Available: 4_960_000, Paid: 40_000, Deposited: 5_000_000}, buyer.balance(t))
	tokensConserved(t, n, buyer, seller, 10_000_000)
}

// TestLyingRPCMissingCancelOfARefundedJobIsFound: the seller's endpoint
// leaves every Cancelled log out while the buyer refunds and cancels. The
// seller's refunded job is off the rail's open index (it never claims
// it), so only the sweep's reading of refunded jobs on chain finds the
// cancel once the endpoint tells the truth: both ledgers then agree with
// the chain.
func TestLyingRPCMissingCancelOfARefundedJobIsFound(t *testing.T) {
	n, buyer, seller, _, sp := lyingNet(t, SettlerConfig{})
	ctx := t.Context()
	sp.Lie("eth_getLogs", lyingrpc.DropLogs(lyingrpc.HasTopic0(cancelledTopic.Hex())))
	hire(t, buyer, seller, "job-mc", 40_000, time.Minute, 10*time.Second)
	st, err := buyer.esc.Refund(ctx, "job-mc", "verification failed", []string{"value_matches"})
	require.NoError(t, err)
	require.NoError(t, seller.esc.ApplySettle(ctx, st))
	require.Eventually(t, func() bool {
		return buyer.record(t, escrow.RoleBuyer, "job-mc").ChainOutcome == escrow.RailCancelled
	}, 20*time.Second, 50*time.Millisecond)
	cancelledIn := buyer.record(t, escrow.RoleBuyer, "job-mc").ChainBlock
	require.Eventually(t, func() bool { return seller.cursor(t).Block >= cancelledIn && sp.Told("eth_getLogs") > 0 }, 20*time.Second, 50*time.Millisecond,
		"the seller's reconcile read the cancel's block without its log")
	require.Empty(t, seller.record(t, escrow.RoleSeller, "job-mc").ChainOutcome)

	sp.Truth()
	require.Eventually(t, func() bool {
		return seller.record(t, escrow.RoleSeller, "job-mc").ChainOutcome == escrow.RailCancelled
	}, 60*time.Second, 100*time.Millisecond)
	ledgersAgree(t, n, buyer, seller, "job-mc", escrow.RailCancelled)
	require.Contains(t, seller.record(t, escrow.RoleSeller, "job-mc").ChainNote, "missing from the endpoint's eth_getLogs")
	require.Equal(t, escrow.Balance{}, seller.balance(t))
	require.Equal(t, escrow.Balance{Available: 5_000_000, Deposited: 5_000_000}, buyer.balance(t))
	tokensConserved(t, n, buyer, seller, 10_000_000)
}

// TestLyingRPCReceiptsThatDisagreeWithTheLogs: the buyer's endpoint
// answers every receipt without its logs. The Paid and Cancelled events
// eth_getLogs shows are not acted on (their receipts do not hold them):
// counted and noted. With the truth both jobs settle as the chain did.
func TestLyingRPCReceiptsThatDisagreeWithTheLogs(t *testing.T) {
	n, buyer, seller, bp, _ := lyingNet(t, SettlerConfig{})
	ctx := t.Context()
	hire(t, buyer, seller, "job-r1", 20_000, time.Minute, 10*time.Second)
	hire(t, buyer, seller, "job-r2", 20_000, time.Minute, 10*time.Second)
	bp.Lie("eth_getTransactionReceipt", lyingrpc.ReceiptLogs(lyingrpc.AnyTx, func([]lyingrpc.Log) []lyingrpc.Log { return nil }))
	releaseTo(t, buyer, seller, "job-r1")
	st, err := buyer.esc.Refund(ctx, "job-r2", "verification failed", []string{"value_matches"})
	require.NoError(t, err)
	require.NoError(t, seller.esc.ApplySettle(ctx, st))
	require.Eventually(t, func() bool {
		return seller.record(t, escrow.RoleSeller, "job-r1").ChainOutcome == escrow.RailPaid &&
			n.jobState(t, buyer.key.Address(), seller.key.Address(), "job-r2") == 2
	}, 20*time.Second, 50*time.Millisecond, "paid and cancelled on chain")
	require.Eventually(t, func() bool {
		return bp.Told("eth_getTransactionReceipt") > 0 && buyer.s.Stats().Disagreements > 0 &&
			buyer.record(t, escrow.RoleBuyer, "job-r1").ChainNote != ""
	}, 20*time.Second, 50*time.Millisecond)
	require.Empty(t, buyer.record(t, escrow.RoleBuyer, "job-r1").ChainOutcome)
	r2 := buyer.record(t, escrow.RoleBuyer, "job-r2")
	require.Empty(t, r2.ChainOutcome)
	require.True(t, r2.RefundPending, "held until a receipt confirms the cancel")

	bp.Truth()
	require.Eventually(t, func() bool {
		return buyer.record(t, escrow.RoleBuyer, "job-r1").ChainOutcome == escrow.RailPaid &&
			buyer.record(t, escrow.RoleBuyer, "job-r2").ChainOutcome == escrow.RailCancelled &&
			seller.record(t, escrow.RoleSeller, "job-r2").ChainOutcome == escrow.RailCancelled
	}, 30*time.Second, 50*time.Millisecond)
	ledgersAgree(t, n, buyer, seller, "job-r1", escrow.RailPaid)
	ledgersAgree(t, n, buyer, seller, "job-r2", escrow.RailCancelled)
	require.Equal(t, escrow.Balance{Available: 4_980_000, Paid: 20_000, Deposited: 5_000_000}, buyer.balance(t))
	tokensConserved(t, n, buyer, seller, 10_000_000)
}

// alternately tells l's lie on every other answer.
func alternately(l lyingrpc.Lie) lyingrpc.Lie {
	var n atomic.Int64
	return func(req lyingrpc.Request, res json.RawMessage) (json.RawMessage, bool) {
		if n.Add(1)%2 == 0 {
			return res, false
		}
		return l(req, res)
	}
}

// TestLyingRPCHeadGoingBackwardsAndReorderedLogs: both endpoints report
// every other head 5 blocks back and answer eth_getLogs in reverse order
// during hires, releases and refunds. The heads going back are counted;
// every job settles as the chain did.
func TestLyingRPCHeadGoingBackwardsAndReorderedLogs(t *testing.T) {
	n, buyer, seller, bp, sp := lyingNet(t, SettlerConfig{})
	ctx := t.Context()
	for i := range 4 {
		hire(t, buyer, seller, fmt.Sprintf("job-h%d", i), 10_000, time.Minute, 10*time.Second)
	}
	for _, p := range []*lyingrpc.Proxy{bp, sp} {
		p.Lie("eth_blockNumber", alternately(lyingrpc.BlockBehind(5)))
		p.Lie("eth_getLogs", lyingrpc.ReorderLogs())
	}
	for i := range 4 {
		id := fmt.Sprintf("job-h%d", i)
		if i%2 == 0 {
			releaseTo(t, buyer, seller, id)
			continue
		}
		st, err := buyer.esc.Refund(ctx, id, "verification failed", []string{"value_matches"})
		require.NoError(t, err)
		require.NoError(t, seller.esc.ApplySettle(ctx, st))
	}
	settled := func() bool {
		for i := range 4 {
			id := fmt.Sprintf("job-h%d", i)
			if buyer.record(t, escrow.RoleBuyer, id).ChainOutcome == "" || seller.record(t, escrow.RoleSeller, id).ChainOutcome == "" {
				return false
			}
		}
		return true
	}
	require.Eventually(t, settled, 60*time.Second, 100*time.Millisecond)
	require.Positive(t, bp.Told("eth_blockNumber"))
	require.Positive(t, bp.Told("eth_getLogs"), "a reconcile read several logs in reverse")
	require.Positive(t, buyer.s.Stats().Disagreements, "the heads going back are counted")
	for i := range 4 {
		want := escrow.RailPaid
		if i%2 == 1 {
			want = escrow.RailCancelled
		}
		ledgersAgree(t, n, buyer, seller, fmt.Sprintf("job-h%d", i), want)
	}
	require.Equal(t, escrow.Balance{Available: 4_980_000, Paid: 20_000, Deposited: 5_000_000}, buyer.balance(t))
	require.Equal(t, escrow.Balance{Earned: 20_000, Withdrawn: 20_000}, seller.balance(t))
	tokensConserved(t, n, buyer, seller, 10_000_000)
}

// TestLyingRPCHiresConverge is a fault run at the package level: rounds
// of live hires between a buyer and a seller that each read the chain
// through a lying endpoint; in each round one lie is told by both
// endpoints while the round's jobs settle (one released, one refunded),
// then the truth. Afterwards both ledgers and the chain agree job by job,
// no refunded job is paid, no released job is booked cancelled, and no
// token is created or lost.
func TestLyingRPCHiresConverge(t *testing.T) {
	skipLongInShort(t, "a round of hires per lie")
	n, buyer, seller, bp, sp := lyingNet(t, SettlerConfig{})
	ctx := t.Context()
	const amount = 10_000
	type round struct {
		released, refunded string
	}
	lies := []struct {
		name   string
		method string // whose Told (or Calls) shows the lie was told
		tell   func(r round, p *lyingrpc.Proxy, isBuyer bool)
	}{
		{"forged logs", "eth_getLogs", func(r round, p *lyingrpc.Proxy, isBuyer bool) {
			// The buyer is told its refunded job was paid, the seller that
			// its released job was cancelled.
			l, amt := lockOf(t, buyer, escrow.RoleBuyer, r.refunded), int64(amount)
			if !isBuyer {
				l, amt = lockOf(t, seller, escrow.RoleSeller, r.released), 0
			}
			forged := forgedJobLog(t, n, l, amt, n.head(t))
			p.Lie("eth_getLogs", lyingrpc.AddLogs(func(lyingrpc.Request) []lyingrpc.Log { return []lyingrpc.Log{forged.Clone()} }))
		}},
		{"missing logs", "eth_getLogs", func(_ round, p *lyingrpc.Proxy, _ bool) {
			p.Lie("eth_getLogs", lyingrpc.DropLogs(lyingrpc.AnyLog))
		}},
		{"reordered logs", "eth_getLogs", func(_ round, p *lyingrpc.Proxy, isBuyer bool) {
			p.Lie("eth_getLogs", lyingrpc.ReorderLogs())
			// Each pass reads a block or two; read the whole history again
			// (as a node without a cursor does), so answers hold many logs.
			rn := buyer
			if !isBuyer {
				rn = seller
			}
			require.NoError(t, rn.esc.SetRailState(ctx, rn.s.stateName("cursor"), Cursor{Block: 1}))
		}},
		{"wrong eth_call", "eth_call", func(r round, p *lyingrpc.Proxy, isBuyer bool) {
			rn, role := buyer, escrow.RoleBuyer
			if !isBuyer {
				rn, role = seller, escrow.RoleSeller
			}
			p.Lie("eth_call", jobStateLie(t, lockOf(t, rn, role, r.released), 2))
			p.Lie("eth_call", jobStateLie(t, lockOf(t, rn, role, r.refunded), 1))
		}},
		{"receipts without their logs", "eth_getTransactionReceipt", func(_ round, p *lyingrpc.Proxy, _ bool) {
			p.Lie("eth_getTransactionReceipt", lyingrpc.ReceiptLogs(lyingrpc.AnyTx, func([]lyingrpc.Log) []lyingrpc.Log { return nil }))
		}},
		{"heads going backwards", "eth_blockNumber", func(_ round, p *lyingrpc.Proxy, _ bool) {
			p.Lie("eth_blockNumber", alternately(lyingrpc.BlockBehind(6)))
		}},
		{"huge answers", "eth_getLogs", func(_ round, p *lyingrpc.Proxy, _ bool) {
			p.Lie("eth_getLogs", alternately(lyingrpc.Huge(MaxRPCAnswer+1)))
		}},
	}
	var rounds []round
	for i, lie := range lies {
		r := round{released: fmt.Sprintf("job-%d-rel", i), refunded: fmt.Sprintf("job-%d-ref", i)}
		hire(t, buyer, seller, r.released, amount, time.Minute, 10*time.Second)
		hire(t, buyer, seller, r.refunded, amount, time.Minute, 10*time.Second)
		b0, s0 := bp.Told(lie.method), sp.Told(lie.method)
		lie.tell(r, bp, true)
		lie.tell(r, sp, false)
		releaseTo(t, buyer, seller, r.released)
		st, err := buyer.esc.Refund(ctx, r.refunded, "verification failed", []string{"value_matches"})
		require.NoError(t, err)
		require.NoError(t, seller.esc.ApplySettle(ctx, st))
		require.Eventually(t, func() bool { return bp.Told(lie.method) > b0 && sp.Told(lie.method) > s0 }, 30*time.Second, 50*time.Millisecond,
			"round %d: both endpoints told the lie %q", i, lie.name)
		time.Sleep(500 * time.Millisecond) // a few passes of the worker under the lie
		bp.Truth()
		sp.Truth()
		rounds = append(rounds, r)
	}
	divergences := func() (div, wrong int, why string) {
		for _, r := range rounds {
			for _, id := range []string{r.released, r.refunded} {
				b, s := buyer.record(t, escrow.RoleBuyer, id), seller.record(t, escrow.RoleSeller, id)
				chain := n.jobState(t, buyer.key.Address(), seller.key.Address(), id)
				ok := !b.ChainProvisional && !s.ChainProvisional
				if id == r.released {
					ok = ok && chain == 1 && b.ChainOutcome == escrow.RailPaid && s.ChainOutcome == escrow.RailPaid &&
						b.State == escrow.StateReleased && s.State == escrow.StateReleased && !s.Provisional
					if b.ChainOutcome == escrow.RailCancelled || s.ChainOutcome == escrow.RailCancelled {
						wrong++
					}
				} else {
					ok = ok && chain == 2 && b.ChainOutcome == escrow.RailCancelled && s.ChainOutcome == escrow.RailCancelled &&
						b.State == escrow.StateRefunded && !b.RefundPending && s.State == escrow.StateDisputed
					if chain == 1 || b.ChainOutcome == escrow.RailPaid || s.ChainOutcome == escrow.RailPaid || s.State == escrow.StateReleased {
						wrong++
					}
				}
				if !ok {
					div++
					why = fmt.Sprintf("%s: buyer %s/%s pending=%v seller %s/%s chain %d (notes %q / %q)", id, b.State, b.ChainOutcome, b.RefundPending, s.State, s.ChainOutcome, chain, b.ChainNote, s.ChainNote)
				}
			}
		}
		return div, wrong, why
	}
	var div, wrong int
	var why string
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if div, wrong, why = divergences(); div == 0 || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("lying RPC during hires: runs %d, faults injected %d (lies, each told by both endpoints), disagreements counted %d (buyer) + %d (seller), divergences %d, wrong payments %d",
		2*len(rounds), len(lies), buyer.s.Stats().Disagreements, seller.s.Stats().Disagreements, div, wrong)
	require.Zero(t, wrong, "no outcome the chain does not show")
	require.Zero(t, div, "the ledgers and the chain agree job by job (one that does not: %s)", why)
	paid := int64(amount * len(rounds))
	require.Eventually(t, func() bool { return n.tokenOf(t, seller.key.Address()) == paid }, 20*time.Second, 50*time.Millisecond)
	require.Equal(t, escrow.Balance{Earned: paid, Withdrawn: paid}, seller.balance(t))
	require.Equal(t, escrow.Balance{Available: 5_000_000 - paid, Paid: paid, Deposited: 5_000_000}, buyer.balance(t))
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	require.NoError(t, seller.esc.CheckInvariant(ctx))
	tokensConserved(t, n, buyer, seller, 10_000_000)
	require.Positive(t, buyer.s.Stats().Disagreements)
	require.Positive(t, seller.s.Stats().Disagreements)
}

// TestLyingRPCForgedDepositIsNotBooked: a Deposited log of the node's
// that no receipt holds (a lying eth_getLogs) credits nothing.
func TestLyingRPCForgedDepositIsNotBooked(t *testing.T) {
	n, buyer, _, bp, _ := lyingNet(t, SettlerConfig{})
	before := buyer.s.Stats().Disagreements
	lg := lyingrpc.Log{}
	lg.Set("address", strings.ToLower(n.dep.Escrow.Hex()))
	lg.Set("topics", []string{depositedTopic.Hex(), addrTopic(buyer.key.Address())})
	lg.Set("data", hexutil.Encode(common.BigToHash(big.NewInt(1_000_000)).Bytes()))
	lg.Set("blockNumber", hexutil.EncodeUint64(n.head(t)))
	lg.Set("blockHash", randomHash(t).Hex())
	lg.Set("transactionHash", randomHash(t).Hex())
	lg.Set("transactionIndex", "0x0")
	lg.Set("logIndex", "0x0")
	lg.Set("removed", false)
	bp.Lie("eth_getLogs", lyingrpc.Once(lyingrpc.AddLogs(func(lyingrpc.Request) []lyingrpc.Log { return []lyingrpc.Log{lg} })))
	require.NoError(t, n.rpc.CallContext(t.Context(), nil, "anvil_mine", 1)) // a new block for the reconcile to read
	require.Eventually(t, func() bool { return bp.Told("eth_getLogs") == 1 && buyer.s.Stats().Disagreements > before }, 20*time.Second, 20*time.Millisecond)
	require.Equal(t, escrow.Balance{Available: 5_000_000, Deposited: 5_000_000}, buyer.balance(t))
	require.NoError(t, buyer.esc.CheckInvariant(t.Context()))
}
