package escrow_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// capped returns lock parameters for jobID with the given caps.
func (p *pair) capped(jobID string, amount int64, caps ...escrow.SpendCap) escrow.LockParams {
	lp := p.lockParams(jobID)
	lp.Amount = amount
	lp.SpendCaps = caps
	return lp
}

// lockAll runs n Locks of amount at once, each from its own goroutine, and
// returns the IDs of those that succeeded. Every failure must be a
// *SpendCapError.
func lockAll(t *testing.T, p *pair, n int, amount int64, prefix string, caps func(i int) []escrow.SpendCap) []string {
	t.Helper()
	var (
		mu  sync.Mutex
		ok  []string
		wg  sync.WaitGroup
		bad []error
	)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			id := fmt.Sprintf("%s-%d", prefix, i)
			_, err := p.buyer.e.Lock(context.Background(), p.capped(id, amount, caps(i)...))
			mu.Lock()
			defer mu.Unlock()
			var ce *escrow.SpendCapError
			switch {
			case err == nil:
				ok = append(ok, id)
			case errors.As(err, &ce):
			default:
				bad = append(bad, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	require.Empty(t, bad, "refusals are spend cap errors")
	return ok
}

// Regression: two MCP servers on one daemon each checked the per-day cap
// against a total read before their hire, then both hired: 9 hires where
// 5 fit. The cap is now checked inside the lock's own transaction.
func TestSpendCapConcurrentLocksNeverExceedIt(t *testing.T) {
	p := setupPair(t)
	day := escrow.SpendCap{Name: "per-day", Since: p.clock.Now().Add(-time.Hour), Limit: 1 * credit}
	ok := lockAll(t, p, 100, testPrice, "day", func(int) []escrow.SpendCap { return []escrow.SpendCap{day} })
	require.Len(t, ok, 20, "exactly 1.00 / 0.05 locks fit")

	spent, err := p.buyer.e.Spent(t.Context(), "", day.Since)
	require.NoError(t, err)
	require.Equal(t, int64(1*credit), spent)
	require.Equal(t, int64(1*credit), p.buyer.balance(t).Held)
	p.buyer.requireInvariant(t)

	_, err = p.buyer.e.Lock(t.Context(), p.capped("one-more", 1, day))
	var ce *escrow.SpendCapError
	require.ErrorAs(t, err, &ce)
	require.ErrorIs(t, err, escrow.ErrSpendCap)
	require.Equal(t, escrow.SpendCapError{Cap: "per-day", Since: day.Since, Limit: 1 * credit, Used: 1 * credit, Left: 0, Amount: 1}, *ce)
	require.ErrorContains(t, err, "per-day cap of 1 has 0 left")
}

// Two sessions, each with its own cap, under one node-wide cap: every cap
// holds however the concurrent locks interleave.
func TestSpendCapScopesHoldTogether(t *testing.T) {
	p := setupPair(t)
	since := p.clock.Now().Add(-time.Minute)
	day := escrow.SpendCap{Name: "per-day", Since: since, Limit: 8 * testPrice} // 0.4
	sessions := []escrow.SpendCap{
		{Name: "per-session", Scope: "session-a", Since: since, Limit: 5 * testPrice}, // 0.25
		{Name: "per-session", Scope: "session-b", Since: since, Limit: 5 * testPrice},
	}
	ok := lockAll(t, p, 60, testPrice, "mix", func(i int) []escrow.SpendCap {
		return []escrow.SpendCap{sessions[i%2], day}
	})
	require.Len(t, ok, 8, "the day cap lets 8 locks through")
	ctx := t.Context()
	total := int64(0)
	for _, s := range sessions {
		spent, err := p.buyer.e.Spent(ctx, s.Scope, since)
		require.NoError(t, err)
		require.LessOrEqual(t, spent, s.Limit, s.Scope)
		total += spent
	}
	dayTotal, err := p.buyer.e.Spent(ctx, "", since)
	require.NoError(t, err)
	require.Equal(t, day.Limit, dayTotal)
	require.Equal(t, dayTotal, total, "every lock was made under one of the two sessions")

	// Without the day cap, session a fills up to its own cap, and no further.
	lockAll(t, p, 10, testPrice, "a-more", func(int) []escrow.SpendCap { return sessions[:1] })
	spentA, err := p.buyer.e.Spent(ctx, "session-a", since)
	require.NoError(t, err)
	require.Equal(t, sessions[0].Limit, spentA)
	_, err = p.buyer.e.Lock(ctx, p.capped("a-over", testPrice, sessions[0]))
	var ce *escrow.SpendCapError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "session-a", ce.Scope)
	p.buyer.requireInvariant(t)
}

func TestSpendCapRefundFreesItReleaseDoesNot(t *testing.T) {
	p := setupPair(t)
	ctx := t.Context()
	day := escrow.SpendCap{Name: "per-day", Since: p.clock.Now(), Limit: 2 * testPrice}
	p.lockWith(t, "a", day)
	p.lockWith(t, "b", day)
	_, err := p.buyer.e.Lock(ctx, p.capped("c", testPrice, day))
	require.ErrorIs(t, err, escrow.ErrSpendCap)

	// A released job was paid: it keeps counting.
	p.deliver(t, "a")
	_, err = p.buyer.e.Release(ctx, "a")
	require.NoError(t, err)
	_, err = p.buyer.e.Lock(ctx, p.capped("c", testPrice, day))
	require.ErrorIs(t, err, escrow.ErrSpendCap)

	// A refunded one frees its share of the cap.
	_, err = p.buyer.e.Refund(ctx, "b", "verification failed", []string{"x"})
	require.NoError(t, err)
	spent, err := p.buyer.e.Spent(ctx, "", day.Since)
	require.NoError(t, err)
	require.Equal(t, int64(testPrice), spent)
	p.lockWith(t, "c", day)
	_, err = p.buyer.e.Lock(ctx, p.capped("d", testPrice, day))
	require.ErrorIs(t, err, escrow.ErrSpendCap)
	p.buyer.requireInvariant(t)
}

func (p *pair) lockWith(t *testing.T, jobID string, caps ...escrow.SpendCap) {
	t.Helper()
	l, err := p.buyer.e.Lock(context.Background(), p.capped(jobID, testPrice, caps...))
	require.NoError(t, err)
	require.NoError(t, acceptLock(p.seller.e, context.Background(), l))
}

// Locks before the period's start do not count: the day cap starts afresh
// at midnight.
func TestSpendCapCountsFromSince(t *testing.T) {
	p := setupPair(t)
	ctx := t.Context()
	yesterday := escrow.SpendCap{Name: "per-day", Since: p.clock.Now().Add(-time.Hour), Limit: testPrice}
	p.lockWith(t, "y", yesterday)
	p.clock.Advance(2 * time.Hour)
	today := yesterday
	today.Since = p.clock.Now().Add(-time.Minute)
	p.lockWith(t, "t", today)
	_, err := p.buyer.e.Lock(ctx, p.capped("t2", testPrice, today))
	require.ErrorIs(t, err, escrow.ErrSpendCap)

	for _, tc := range []struct {
		since time.Time
		want  int64
	}{
		{time.Time{}, 2 * testPrice},
		{yesterday.Since, 2 * testPrice},
		{today.Since, testPrice},
		{p.clock.Now().Add(time.Millisecond), 0},
	} {
		spent, err := p.buyer.e.Spent(ctx, "", tc.since)
		require.NoError(t, err)
		require.Equal(t, tc.want, spent, "since %s", tc.since)
	}
}

// A cap of 0 is no limit: the lock is only tagged, so its scope can be
// summed.
func TestSpendCapZeroLimitOnlyTags(t *testing.T) {
	p := setupPair(t)
	tag := escrow.SpendCap{Name: "per-session", Scope: "s1"}
	for i := range 3 {
		p.lockWith(t, fmt.Sprintf("j%d", i), tag)
	}
	p.lockWith(t, "untagged")
	spent, err := p.buyer.e.Spent(t.Context(), "s1", time.Time{})
	require.NoError(t, err)
	require.Equal(t, int64(3*testPrice), spent)
	spent, err = p.buyer.e.Spent(t.Context(), "s2", time.Time{})
	require.NoError(t, err)
	require.Zero(t, spent)
}

func TestSpendCapRejectsBadCaps(t *testing.T) {
	p := setupPair(t)
	long := string(make([]byte, 129))
	tooMany := make([]escrow.SpendCap, 9)
	for i := range tooMany {
		tooMany[i] = escrow.SpendCap{Name: "c", Limit: credit}
	}
	testCases := []struct {
		name string
		caps []escrow.SpendCap
		want string
	}{
		{"no-name", []escrow.SpendCap{{Limit: credit}}, "name"},
		{"negative", []escrow.SpendCap{{Name: "x", Limit: -1}}, "negative"},
		{"long-scope", []escrow.SpendCap{{Name: "x", Scope: long, Limit: 1}}, "scope"},
		{"too-many", tooMany, "at most 8"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p.buyer.e.Lock(t.Context(), p.capped("bad-"+tc.name, testPrice, tc.caps...))
			require.ErrorIs(t, err, escrow.ErrInvalidMessage)
			require.ErrorContains(t, err, tc.want)
		})
	}
	require.Equal(t, escrow.Balance{Available: 10 * credit, Deposited: 10 * credit}, p.buyer.balance(t), "a refused lock holds nothing")
	_, err := p.buyer.e.Spent(t.Context(), long, time.Time{})
	require.ErrorIs(t, err, escrow.ErrInvalidMessage)
}

// The day's total reads only the records created that day: a record from
// before (here made unreadable on purpose) is never read, where List,
// which reads every record, fails on it.
func TestSpentReadsOnlyThePeriod(t *testing.T) {
	p := setupPair(t)
	ctx := t.Context()
	p.lockWith(t, "old")
	p.clock.Advance(25 * time.Hour)
	since := p.clock.Now()
	p.lockWith(t, "new-1")
	p.lockWith(t, "new-2")

	corruptBuyerRecord(t, p.buyer.db, "old")
	_, err := p.buyer.e.List(ctx, escrow.Filter{Role: escrow.RoleBuyer})
	require.Error(t, err, "the old record is unreadable")
	spent, err := p.buyer.e.Spent(ctx, "", since)
	require.NoError(t, err)
	require.Equal(t, int64(2*testPrice), spent)
}

// corruptBuyerRecord overwrites a buyer record with bytes that are not JSON.
func corruptBuyerRecord(t *testing.T, db *badger.DB, jobID string) {
	t.Helper()
	var key []byte
	require.NoError(t, db.View(func(txn *badgerTxn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte("escrow/job/buyer/")})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if bytes.Contains(v, []byte(`"job_id":"`+jobID+`"`)) {
				key = it.Item().KeyCopy(nil)
			}
		}
		return nil
	}))
	require.NotNil(t, key, "record of %s", jobID)
	require.NoError(t, db.Update(func(txn *badgerTxn) error { return txn.Set(key, []byte("not json")) }))
}

// A store written before the created-at index existed (simulated by
// deleting the index) gets it at open, and its totals are right at once.
func TestSpentAfterUpgradeBuildsTheIndex(t *testing.T) {
	p := setupPair(t)
	ctx := t.Context()
	since := p.clock.Now()
	for i := range 5 {
		p.lockWith(t, fmt.Sprintf("j%d", i))
	}
	_, err := p.buyer.e.Refund(ctx, "j0", "deadline", nil)
	require.NoError(t, err)
	want := int64(4 * testPrice)

	p.buyer.close(t)
	db := openDB(t, p.buyer.dir)
	require.Equal(t, 5, countPrefix(t, db, "escrow/created/"))
	require.NoError(t, db.DropPrefix([]byte("escrow/created/")))
	// A stale entry of a record that does not exist goes too.
	require.NoError(t, db.Update(func(txn *badgerTxn) error {
		return txn.Set(append([]byte("escrow/created/"), []byte("\x00\x00\x00\x00\x00\x00\x00\x01/mfrgg")...), nil)
	}))
	require.NoError(t, db.Close())

	p.buyer.open(t)
	spent, err := p.buyer.e.Spent(ctx, "", since)
	require.NoError(t, err)
	require.Equal(t, want, spent)
	require.Equal(t, 5, countPrefix(t, p.buyer.db, "escrow/created/"), "one entry per buyer record")

	// And a cap checks against the rebuilt index.
	day := escrow.SpendCap{Name: "per-day", Since: since, Limit: want + testPrice}
	p.lockWith(t, "fits", day)
	_, err = p.buyer.e.Lock(ctx, p.capped("over", 1, day))
	require.ErrorIs(t, err, escrow.ErrSpendCap)
}

func countPrefix(t *testing.T, db *badger.DB, prefix string) int {
	t.Helper()
	n := 0
	require.NoError(t, db.View(func(txn *badgerTxn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = []byte(prefix)
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	}))
	return n
}

// BenchmarkSpentToday measures the day's total on a store with 5000 older
// buyer records and 50 of today: "index" is Spent (the created-at index),
// "list" what MCP did before (every record, then filter).
func BenchmarkSpentToday(b *testing.B) {
	p := setupPair(b)
	ctx := context.Background()
	require.NoError(b, p.buyer.e.Deposit(ctx, 1000*credit, ""))
	const old, today = 5000, 50
	for i := range old {
		_, err := p.buyer.e.Lock(ctx, p.capped(fmt.Sprintf("old-%d", i), 1))
		require.NoError(b, err)
	}
	p.clock.Advance(25 * time.Hour)
	since := p.clock.Now()
	for i := range today {
		_, err := p.buyer.e.Lock(ctx, p.capped(fmt.Sprintf("new-%d", i), 1))
		require.NoError(b, err)
	}
	b.Run("index", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			spent, err := p.buyer.e.Spent(ctx, "", since)
			if err != nil || spent != today {
				b.Fatalf("spent %d, %v", spent, err)
			}
		}
	})
	b.Run("list", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			recs, err := p.buyer.e.List(ctx, escrow.Filter{Role: escrow.RoleBuyer})
			if err != nil {
				b.Fatal(err)
			}
			var spent int64
			for _, r := range recs {
				if !r.CreatedAt.Before(since) && r.State != escrow.StateRefunded {
					spent += r.Amount
				}
			}
			if spent != today {
				b.Fatalf("spent %d", spent)
			}
		}
	})
}
