package escrow_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// TestHistoryPerDayAndCapability: bought jobs (released, refunded, open)
// and sold ones are summed per local day and per capability, from since on.
func TestHistoryPerDayAndCapability(t *testing.T) {
	p := setupPair(t)
	ctx := t.Context()
	lockCap := func(jobID, capID string) {
		t.Helper()
		lp := p.lockParams(jobID)
		lp.Capability = capID
		l, err := p.buyer.e.Lock(ctx, lp)
		require.NoError(t, err)
		require.NoError(t, acceptLock(p.seller.e, ctx, l))
	}
	lockCap("old", "compute.statistics.mean") // before since: not counted
	p.clock.Advance(24 * time.Hour)
	since := p.clock.Now()

	lockCap("a", "compute.statistics.mean")
	p.deliver(t, "a")
	s, err := p.buyer.e.Release(ctx, "a")
	require.NoError(t, err)
	require.NoError(t, p.seller.e.ApplySettle(ctx, s))

	lockCap("b", "text.summarize.short")
	_, err = p.buyer.e.Refund(ctx, "b", "verification failed", []string{"x"})
	require.NoError(t, err)

	p.clock.Advance(24 * time.Hour)
	lockCap("c", "compute.statistics.mean") // still open: held

	h, err := p.buyer.e.History(ctx, since, time.UTC)
	require.NoError(t, err)
	day1, day2 := since.Format(time.DateOnly), p.clock.Now().Format(time.DateOnly)
	require.Equal(t, []escrow.HistoryRow{
		{Date: day1, Hires: 2, Spent: testPrice, Refunded: testPrice},
		{Date: day2, Hires: 1, Held: testPrice},
	}, h.Days)
	require.Equal(t, []escrow.HistoryRow{
		{Capability: "compute.statistics.mean", Hires: 2, Spent: testPrice, Held: testPrice},
		{Capability: "text.summarize.short", Hires: 1, Refunded: testPrice},
	}, h.Capabilities)
	require.Equal(t, escrow.HistoryRow{Hires: 3, Spent: testPrice, Held: testPrice, Refunded: testPrice}, h.Total)

	sold, err := p.seller.e.History(ctx, since, time.UTC)
	require.NoError(t, err)
	require.Equal(t, escrow.HistoryRow{Sales: 3, Earned: testPrice}, sold.Total)
	require.Len(t, sold.Days, 2)

	all, err := p.buyer.e.History(ctx, time.Time{}, time.UTC)
	require.NoError(t, err)
	require.Equal(t, 4, all.Total.Hires, "from the beginning: the old lock too")

	// JSON: amounts are decimal strings, and decode back.
	data, err := json.Marshal(h)
	require.NoError(t, err)
	require.Contains(t, string(data), `"spent":"0.05"`)
	var back escrow.History
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, h.Days, back.Days)
	require.Equal(t, h.Total, back.Total)
}
