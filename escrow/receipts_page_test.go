package escrow_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// TestReceiptPagesReadABoundedNumberOfRecords: a filter few sold jobs match
// does not make one request read them all. With the bound at 3 records a
// page, pages may come back short or empty, with a cursor, and following
// the cursors still yields every matching receipt exactly once.
func TestReceiptPagesReadABoundedNumberOfRecords(t *testing.T) {
	ctx := context.Background()
	p := setupPair(t)
	escrow.SetReceiptScan(p.seller.e, 3)
	var want []string
	for i := range 12 {
		id := fmt.Sprintf("job-%02d", i)
		lp := p.lockParams(id)
		if i%4 == 0 {
			lp.Capability = "compute.statistics.median"
			want = append(want, id)
		}
		l, err := p.buyer.e.Lock(ctx, lp)
		require.NoError(t, err)
		_, err = p.seller.e.AcceptLock(ctx, l, nil)
		require.NoError(t, err)
		p.deliver(t, id)
		s, err := p.buyer.e.Release(ctx, id)
		require.NoError(t, err)
		require.NoError(t, p.seller.e.ApplySettle(ctx, s))
	}

	var got []string
	after, pages := "", 0
	for {
		page, next, err := p.seller.e.Receipts(ctx, escrow.ReceiptFilter{Capability: "compute.statistics.median", After: after, Limit: 10})
		require.NoError(t, err)
		pages++
		for _, r := range page {
			got = append(got, r.Lock.JobID)
		}
		if next == "" {
			break
		}
		require.NotEqual(t, after, next, "the cursor moves on")
		after = next
	}
	sort.Strings(got)
	require.Equal(t, want, got)
	require.GreaterOrEqual(t, pages, 4, "12 records, 3 read a page")
}
