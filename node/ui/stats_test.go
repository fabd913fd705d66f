package ui

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

func TestSummarizeTotalsByDayAndCapability(t *testing.T) {
	loc := time.FixedZone("UTC+2", 2*3600)
	now := time.Date(2026, 5, 10, 15, 0, 0, 0, loc)
	day := func(d int, h int) time.Time { return time.Date(2026, 5, d, h, 0, 0, 0, loc) }
	recs := []escrow.Record{
		// Sold and released today and yesterday.
		{Role: escrow.RoleSeller, State: escrow.StateReleased, Capability: "compute.statistics.mean", Amount: 50_000, SettledAt: day(10, 9)},
		{Role: escrow.RoleSeller, State: escrow.StateReleased, Capability: "compute.statistics.mean", Amount: 50_000, SettledAt: day(9, 23)},
		// Released by this node's timer, not confirmed: pending, not earned.
		{Role: escrow.RoleSeller, State: escrow.StateReleased, Provisional: true, Capability: "compute.statistics.mean", Amount: 70_000, SettledAt: day(10, 10)},
		// Served but failed or refunded: counted, not earned.
		{Role: escrow.RoleSeller, State: escrow.StateFailed, Capability: "compute.statistics.mean", Amount: 50_000, SettledAt: day(10, 11)},
		{Role: escrow.RoleSeller, State: escrow.StateLocked, Capability: "text.summarize.short", Amount: 20_000},
		// Bought: released (spent) and refunded (not spent).
		{Role: escrow.RoleBuyer, State: escrow.StateReleased, Capability: "chart.generate.from-data", Amount: 20_000, SettledAt: day(8, 1)},
		{Role: escrow.RoleBuyer, State: escrow.StateRefunded, Capability: "chart.generate.from-data", Amount: 20_000, SettledAt: day(8, 2)},
		// Settled before the window: in the capability totals only.
		{Role: escrow.RoleBuyer, State: escrow.StateReleased, Capability: "chart.generate.from-data", Amount: 1_000_000, SettledAt: day(1, 12)},
		// 23:30 UTC on the 7th is the 8th in UTC+2.
		{Role: escrow.RoleBuyer, State: escrow.StateReleased, Capability: "compute.statistics.mean", Amount: 10_000, SettledAt: time.Date(2026, 5, 7, 23, 30, 0, 0, time.UTC)},
	}
	s := Summarize(recs, now, 3)
	require.Equal(t, []DayTotals{
		{Day: "2026-05-08", Earned: "0", Spent: "0.03"},
		{Day: "2026-05-09", Earned: "0.05", Spent: "0"},
		{Day: "2026-05-10", Earned: "0.05", Spent: "0"},
	}, s.Days)
	require.Equal(t, []CapTotals{
		{Capability: "chart.generate.from-data", Bought: 3, Spent: "1.02", Earned: "0", Pending: "0"},
		{Capability: "compute.statistics.mean", Served: 4, Sold: 2, Earned: "0.1", Pending: "0.07", Bought: 1, Spent: "0.01"},
		{Capability: "text.summarize.short", Served: 1, Earned: "0", Pending: "0", Spent: "0"},
	}, s.Capabilities)
}

func TestSummarizeEmptyHasEveryDay(t *testing.T) {
	s := Summarize(nil, time.Date(2026, 3, 1, 0, 30, 0, 0, time.UTC), 14)
	require.Len(t, s.Days, 14)
	require.Equal(t, "2026-02-16", s.Days[0].Day)
	require.Equal(t, "2026-03-01", s.Days[13].Day)
	require.NotNil(t, s.Capabilities)
	require.Empty(t, s.Capabilities)
}

func TestSummarizeAcrossDaylightSavingChange(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatalf("time zone data: %v (the Go toolchain ships it in lib/time)", err)
	}
	// 2026-03-29 has 23 hours in Berlin.
	now := time.Date(2026, 3, 31, 12, 0, 0, 0, loc)
	recs := []escrow.Record{
		{Role: escrow.RoleSeller, State: escrow.StateReleased, Capability: "c.d.e", Amount: 1, SettledAt: time.Date(2026, 3, 30, 0, 30, 0, 0, loc)},
	}
	s := Summarize(recs, now, 5)
	require.Equal(t, "2026-03-30", s.Days[3].Day)
	require.Equal(t, "0.000001", s.Days[3].Earned)
}
