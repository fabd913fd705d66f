package evm

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm/contract"
)

var testEscrow = common.HexToAddress("0x00000000000000000000000000000000000e5c40")

func paidLog(job [32]byte, buyer, seller common.Address, amount int64, released bool) *types.Log {
	data := make([]byte, 64)
	big.NewInt(amount).FillBytes(data[:32])
	if released {
		data[63] = 1
	}
	return &types.Log{Address: testEscrow, Topics: []common.Hash{paidTopic, job, common.BytesToHash(buyer[:]), common.BytesToHash(seller[:])}, Data: data}
}

func cancelledLog(job [32]byte, buyer, seller common.Address) *types.Log {
	return &types.Log{Address: testEscrow, Topics: []common.Hash{cancelledTopic, job, common.BytesToHash(buyer[:]), common.BytesToHash(seller[:])}}
}

// TestMatchLockRefusesAStrangersPaymentForTheJobID: the attack of issue 22.
// Job IDs are public, so anyone can pay 1 base unit for a job ID with
// itself as buyer; only the lock's buyer, seller and amount make the
// event the job's.
func TestMatchLockRefusesAStrangersPaymentForTheJobID(t *testing.T) {
	buyer := common.HexToAddress("0x1000000000000000000000000000000000000001")
	seller := common.HexToAddress("0x2000000000000000000000000000000000000002")
	stranger := common.HexToAddress("0x3000000000000000000000000000000000000003")
	job := JobID("job-1")
	l := &Lock{JobID: job, Buyer: buyer, Seller: seller, Amount: 50_000, NotBefore: 100}
	testCases := []struct {
		name string
		log  *types.Log
		ok   bool
	}{
		{"the lock's release", paidLog(job, buyer, seller, 50_000, true), true},
		{"the lock's claim", paidLog(job, buyer, seller, 50_000, false), true},
		{"the lock's cancel", cancelledLog(job, buyer, seller), true},
		{"a stranger's payment for the job ID", paidLog(job, stranger, seller, 1, true), false},
		{"a stranger's payment of the full amount", paidLog(job, stranger, seller, 50_000, true), false},
		{"a stranger's cancel", cancelledLog(job, stranger, seller), false},
		{"another amount", paidLog(job, buyer, seller, 49_999, true), false},
		{"another seller", paidLog(job, buyer, stranger, 50_000, true), false},
		{"another job", paidLog(JobID("job-2"), buyer, seller, 50_000, true), false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := parseJobLog(testEscrow, tc.log)
			require.NoError(t, err)
			require.Equal(t, tc.ok, matchLock(l, ev) == nil, "%v", matchLock(l, ev))
		})
	}
}

func TestParseJobLogIsStrict(t *testing.T) {
	buyer := common.HexToAddress("0x1000000000000000000000000000000000000001")
	seller := common.HexToAddress("0x2000000000000000000000000000000000000002")
	job := JobID("job-1")
	good := paidLog(job, buyer, seller, 7, true)
	testCases := []struct {
		name   string
		mutate func(l *types.Log)
	}{
		{"another contract", func(l *types.Log) { l.Address = buyer }},
		{"a dirty address topic", func(l *types.Log) { l.Topics[2][0] = 1 }},
		{"a missing topic", func(l *types.Log) { l.Topics = l.Topics[:3] }},
		{"short data", func(l *types.Log) { l.Data = l.Data[:63] }},
		{"a bool that is not", func(l *types.Log) { l.Data[63] = 2 }},
		{"a zero amount", func(l *types.Log) { clear(l.Data[:32]) }},
		{"an amount past int64", func(l *types.Log) { l.Data[0] = 0x80 }},
		{"another event", func(l *types.Log) { l.Topics[0] = skippedTopic }},
		{"a cancel with data", func(l *types.Log) { l.Topics[0] = cancelledTopic }},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			l := *good
			l.Topics = append([]common.Hash(nil), good.Topics...)
			l.Data = append([]byte(nil), good.Data...)
			tc.mutate(&l)
			_, err := parseJobLog(testEscrow, &l)
			require.ErrorIs(t, err, errBadLog)
		})
	}
	ev, err := parseJobLog(testEscrow, good)
	require.NoError(t, err)
	require.Equal(t, jobEvent{Outcome: OutcomeReleased, JobID: job, Buyer: buyer, Seller: seller, Amount: 7, Released: true}, ev)
}

// FuzzJobEventMatching: any log the RPC returns is parsed without a panic,
// and one that matches a lock names exactly the lock's job, buyer, seller
// and (for a payment) amount; a well-formed event of the lock always
// matches.
func FuzzJobEventMatching(f *testing.F) {
	buyer := common.HexToAddress("0x1000000000000000000000000000000000000001")
	seller := common.HexToAddress("0x2000000000000000000000000000000000000002")
	job := JobID("job-1")
	f.Add(paidTopic[:], job[:], common.BytesToHash(buyer[:]).Bytes(), common.BytesToHash(seller[:]).Bytes(), paidLog(job, buyer, seller, 5, true).Data, int64(5))
	f.Add(cancelledTopic[:], job[:], common.BytesToHash(buyer[:]).Bytes(), common.BytesToHash(seller[:]).Bytes(), []byte{}, int64(5))
	f.Add(paidTopic[:], job[:], common.BytesToHash(seller[:]).Bytes(), common.BytesToHash(seller[:]).Bytes(), paidLog(job, buyer, seller, 1, false).Data, int64(9))
	f.Fuzz(func(t *testing.T, t0, t1, t2, t3, data []byte, amount int64) {
		l := &Lock{JobID: job, Buyer: buyer, Seller: seller, Amount: amount}
		lg := &types.Log{Address: testEscrow, Data: data}
		for _, b := range [][]byte{t0, t1, t2, t3} {
			if len(b) > 32 {
				b = b[:32]
			}
			lg.Topics = append(lg.Topics, common.BytesToHash(b))
		}
		ev, err := parseJobLog(testEscrow, lg)
		if err != nil {
			return
		}
		if matchLock(l, ev) != nil {
			return
		}
		if ev.JobID != job || ev.Buyer != buyer || ev.Seller != seller {
			t.Fatalf("matched another job's event: %+v", ev)
		}
		if ev.Outcome != OutcomeCancelled && ev.Amount != amount {
			t.Fatalf("matched a payment of %d for a lock of %d", ev.Amount, amount)
		}
		if (ev.Outcome == OutcomeCancelled) != (lg.Topics[0] == cancelledTopic) {
			t.Fatalf("outcome %s from topic %s", ev.Outcome, lg.Topics[0])
		}
	})
}

// FuzzReconcileLogsNoPanic: whatever logs an eth_getLogs answer holds
// (any topics, any data: a lying endpoint's), the reconcile's parsing of
// them and the deposit and withdrawal matching of receipts never panic,
// and a deposit matched from a receipt names exactly the event's buyer
// and amount.
func FuzzReconcileLogsNoPanic(f *testing.F) {
	buyer := common.HexToAddress("0x1000000000000000000000000000000000000001")
	seller := common.HexToAddress("0x2000000000000000000000000000000000000002")
	amt := make([]byte, 32)
	big.NewInt(7).FillBytes(amt)
	for _, topic := range []common.Hash{paidTopic, cancelledTopic, skippedTopic, depositedTopic, allocatedTopic, withdrawReqTopic, withdrawnTopic} {
		f.Add(topic[:], common.BytesToHash(buyer[:]).Bytes(), common.BytesToHash(seller[:]).Bytes(), amt, uint8(3))
	}
	f.Add([]byte{}, []byte{}, []byte{}, []byte{1, 2, 3}, uint8(0))
	esc, err := contract.NewSwarmwageEscrow(testEscrow, nil)
	require.NoError(f, err)
	r := &Rail{cfg: Config{Escrow: testEscrow}, esc: esc}
	f.Fuzz(func(t *testing.T, t0, t1, t2, data []byte, ntopics uint8) {
		lg := types.Log{Address: testEscrow, Data: data, BlockNumber: 5}
		for i, b := range [][]byte{t0, t1, t2, t1} {
			if i >= int(ntopics%5) {
				break
			}
			if len(b) > 32 {
				b = b[:32]
			}
			lg.Topics = append(lg.Topics, common.BytesToHash(b))
		}
		rep := &Report{Skipped: map[[32]byte]uint8{}}
		r.applyLog(rep, map[[32]byte]int{}, lg, common.Address{})
		for _, ev := range rep.Lines {
			if r.lineEventMatcher(ev)(&lg) && (ev.Kind == "deposited" || ev.Kind == "withdrawn") {
				if ev.Amount < 0 {
					t.Fatalf("matched a %s of %d", ev.Kind, ev.Amount)
				}
			}
		}
		for _, k := range []string{"deposited", "withdrawn"} {
			ev := LineEvent{Kind: k, Buyer: buyer, Seller: seller, Amount: 7}
			if r.lineEventMatcher(ev)(&lg) {
				if len(lg.Topics) < 2 || lg.Topics[1] != common.BytesToHash(buyer[:]) || len(lg.Data) != 32 || new(big.Int).SetBytes(lg.Data).Int64() != 7 {
					t.Fatalf("a %s of another buyer matched: %v", k, lg.Topics)
				}
			}
		}
	})
}
