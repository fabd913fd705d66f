package dht_test

import (
	"context"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/dht"
)

// waitFor polls cond (no sleep of its own: the loops run on their own
// goroutines and the mock clock only says when).
func waitFor(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	require.Eventually(t, cond, 20*time.Second, time.Millisecond, msg)
}

// TestReprovideFollowsTheInjectedClock: a provided capability is provided
// again once the reprovide interval has passed on the Routing's clock, and
// not before, however many retry rounds run meanwhile.
func TestReprovideFollowsTheInjectedClock(t *testing.T) {
	const interval = time.Hour
	boot := setupRouting(t, nil)
	mock := clock.NewMock()
	seller := setupRouting(t, boot, dht.WithClock(mock), dht.ReprovideInterval(interval))
	require.NoError(t, seller.Announce(context.Background(), "compute.statistics.mean"))
	waitFor(t, func() bool {
		if seller.Pending() == 0 {
			return true
		}
		mock.Add(time.Second) // the retry timer: the routing table may be empty yet
		return false
	}, "first provide")
	provided := seller.Provides()
	require.Equal(t, int64(1), provided)

	// Retry rounds inside the interval provide nothing again.
	for range 3 {
		rounds := seller.ProvideRoundsForTest()
		mock.Add(10 * time.Minute)
		waitFor(t, func() bool { return seller.ProvideRoundsForTest() > rounds }, "a retry round ran")
		require.Equal(t, provided, seller.Provides(), "no reprovide before the interval")
	}
	// Past the interval (40 minutes so far), the next round reprovides.
	mock.Add(interval - 30*time.Minute)
	waitFor(t, func() bool {
		if seller.Provides() > provided {
			return true
		}
		mock.Add(time.Second) // the retry timer of the round after
		return false
	}, "reprovided after the interval")
	require.Equal(t, provided+1, seller.Provides())
}

// TestCacheRefreshFollowsTheInjectedClock: the prefetch cache re-searches a
// capability every refresh interval of the Routing's clock, and drops it
// once it has gone unsearched for the idle time.
func TestCacheRefreshFollowsTheInjectedClock(t *testing.T) {
	const capID = "compute.statistics.mean"
	boot := setupRouting(t, nil)
	for range 2 {
		s := setupRouting(t, boot)
		require.NoError(t, s.Announce(context.Background(), capID))
		waitFor(t, func() bool { return s.Pending() == 0 }, "seller provided")
	}
	mock := clock.NewMock()
	buyer := setupRouting(t, boot, dht.WithClock(mock), dht.CacheRefresh(time.Minute))
	waitFor(t, func() bool {
		found, err := buyer.FindSellers(t.Context(), capID, 20)
		if len(found) < 2 {
			buyer.Forget(capID)
		}
		return err == nil && len(found) == 2
	}, "buyer finds both sellers")

	tick := func() {
		t.Helper()
		n := buyer.RefreshesForTest()
		mock.Add(time.Minute)
		waitFor(t, func() bool { return buyer.RefreshesForTest() > n }, "the refresh ran")
	}
	q := buyer.Queries()
	tick()
	require.Equal(t, q+1, buyer.Queries(), "one refresh, one DHT search")
	require.True(t, buyer.Cached(capID))
	found, err := buyer.FindSellers(t.Context(), capID, 20)
	require.NoError(t, err)
	require.Len(t, found, 2)
	require.Equal(t, q+1, buyer.Queries(), "answered from the refreshed cache")

	// Unsearched for longer than the idle time (10 minutes): dropped.
	for range int(dht.DefaultCacheIdle/time.Minute) + 1 {
		tick()
	}
	require.False(t, buyer.Cached(capID), "dropped after the idle time")
	q = buyer.Queries()
	tick()
	require.Equal(t, q, buyer.Queries(), "a dropped capability is not searched again")
}
