package evm

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkGasOnAnvil measures the gas of each rail operation on a real
// anvil (reported as gas/op, and gas/voucher for batches) and the time from
// a seller's redeem call to the money in its address (anvil mines at once,
// so this is the node's own overhead; on Base add about one 2 s block).
//
//	go test ./escrow/evm -run '^$' -bench GasOnAnvil -benchtime 5x
func BenchmarkGasOnAnvil(b *testing.B) {
	n := newAnvilNet(b, time.Minute, 1)
	ctx := b.Context()
	seller := n.seller.Address()
	n.mint(b, n.buyer.Address(), 1<<50)
	_, err := n.buyer.Deposit(ctx, 1<<49)
	require.NoError(b, err)

	b.Run("deposit", func(b *testing.B) {
		var gas uint64
		for b.Loop() {
			txs, err := n.buyer.Deposit(ctx, 1_000_000)
			require.NoError(b, err)
			for _, tx := range txs {
				gas += tx.GasUsed
			}
		}
		b.ReportMetric(float64(gas)/float64(b.N), "gas/op")
	})
	b.Run("allocate", func(b *testing.B) {
		var gas uint64
		for b.Loop() {
			tx, err := n.buyer.Allocate(ctx, seller, 1<<40)
			require.NoError(b, err)
			gas += tx.GasUsed
		}
		b.ReportMetric(float64(gas)/float64(b.N), "gas/op")
	})
	job := 0
	for _, size := range []int{1, 10, 50, 100, 200} {
		b.Run(fmt.Sprintf("redeem-%d", size), func(b *testing.B) {
			var gas uint64
			var wait time.Duration
			for b.Loop() {
				vs := make([]Voucher, size)
				for i := range vs {
					job++
					l, err := n.buyer.SignLock(fmt.Sprintf("bench-%d", job), seller, 20_000, time.Now().Add(time.Minute))
					require.NoError(b, err)
					r, err := n.buyer.SignRelease(l)
					require.NoError(b, err)
					vs[i] = Voucher{Release: r}
				}
				start := time.Now()
				red, err := n.seller.Redeem(ctx, vs)
				wait += time.Since(start)
				require.NoError(b, err)
				require.Len(b, red.Paid, size)
				gas += red.Tx.GasUsed
			}
			b.ReportMetric(float64(gas)/float64(b.N), "gas/op")
			b.ReportMetric(float64(gas)/float64(b.N*size), "gas/voucher")
			b.ReportMetric(float64(wait.Milliseconds())/float64(b.N), "ms/redeem")
		})
	}
	for _, size := range []int{1, 10} {
		b.Run(fmt.Sprintf("cancel-%d", size), func(b *testing.B) {
			var gas uint64
			for b.Loop() {
				ids := make([][32]byte, size)
				for i := range ids {
					job++
					ids[i] = JobID(fmt.Sprintf("bench-%d", job))
				}
				tx, err := n.buyer.Cancel(ctx, seller, ids...)
				require.NoError(b, err)
				gas += tx.GasUsed
			}
			b.ReportMetric(float64(gas)/float64(b.N), "gas/op")
		})
	}
	b.Run("request-withdraw+withdraw", func(b *testing.B) {
		var gasReq, gasW uint64
		for b.Loop() {
			tx, err := n.buyer.RequestWithdraw(ctx, seller, 1_000)
			require.NoError(b, err)
			gasReq += tx.GasUsed
			n.warp(b, 61*time.Second)
			_, tx, err = n.buyer.Withdraw(ctx, seller)
			require.NoError(b, err)
			gasW += tx.GasUsed
		}
		b.ReportMetric(float64(gasReq)/float64(b.N), "gas/request")
		b.ReportMetric(float64(gasW)/float64(b.N), "gas/withdraw")
	})
	b.Run("withdraw-free", func(b *testing.B) {
		var gas uint64
		for b.Loop() {
			tx, err := n.buyer.WithdrawFree(ctx, 1_000)
			require.NoError(b, err)
			gas += tx.GasUsed
		}
		b.ReportMetric(float64(gas)/float64(b.N), "gas/op")
	})
}
