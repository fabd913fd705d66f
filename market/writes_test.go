package market

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/kv"
)

// A hire's follow-up writes that change nothing commit nothing: each
// commit is a sync of the write-ahead log on the node's Badger
// (SyncWrites), which was most of a hire's CPU (issue 25). Badger's commit
// timestamp (MaxVersion) moves with every commit that writes.
func TestUnchangedFollowUpsCommitNothing(t *testing.T) {
	db := memBadger(t)
	j := &jobs{db: kv.Open(db)}
	seller := somePeer(t)
	require.NoError(t, j.put(JobRecord{JobID: "b1", Role: RoleBuyer, Seller: seller, Buyer: seller, Status: StatusVerified}))

	testCases := []struct {
		name   string
		change func(*JobRecord)
		writes bool
	}{
		{"a follow-up that finds the record decided", func(r *JobRecord) {
			if r.Status == StatusRunning {
				r.Status = StatusFailed
			}
		}, false},
		{"a real change", func(r *JobRecord) { r.SettleSent = true }, true},
		{"the same change again", func(r *JobRecord) { r.SettleSent = true }, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			before := db.MaxVersion()
			require.NoError(t, j.update(RoleBuyer, "b1", tc.change))
			require.Equal(t, tc.writes, db.MaxVersion() > before)
		})
	}
	r, err := j.get(RoleBuyer, "b1")
	require.NoError(t, err)
	require.True(t, r.SettleSent)
	require.Equal(t, StatusVerified, r.Status)
}

// A hire keeps its event history with its job record, written with the
// record's verification update: the buyer's record of a released hire is
// written three times (the lock, the verification with the events, the
// seller's acknowledgement of the settle), not once more for the events.
func TestAHireKeepsItsEventsWithoutAWriteOfItsOwn(t *testing.T) {
	_, buyer := setupHire(t)
	first := hireMean(t, buyer, "compute.statistics.mean") // the first hire also finds the seller
	settleSent := func(jobID string) func() bool { return settleSentOn(buyer, jobID) }
	require.Eventually(t, settleSent(first.JobID), 20*time.Second, 10*time.Millisecond, "the first hire's writes are done")
	writes, flush := countPrefixWrites(t, buyer.db, jobRolePrefix(RoleBuyer))
	var seen []string
	res, err := buyer.market.Hire(context.Background(), HireRequest{
		Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Timeout: 20 * time.Second,
		Progress: func(ev Event) { seen = append(seen, ev.Type) },
	})
	require.NoError(t, err)
	require.Equal(t, escrow.StateReleased, res.State)
	require.Eventually(t, settleSent(res.JobID), 20*time.Second, 10*time.Millisecond, "the seller acknowledged the settle")
	r, err := buyer.market.jobs.get(RoleBuyer, res.JobID)
	require.NoError(t, err)
	var kept []string
	for _, ev := range r.Events {
		kept = append(kept, ev.Type)
	}
	require.Equal(t, seen, kept, "the record keeps every event the caller saw")
	require.Contains(t, kept, EventLocked)
	require.Contains(t, kept, EventResult)
	flush() // the subscription has seen every write committed by now
	require.Never(t, func() bool { return writes.Load() > 3 }, 300*time.Millisecond, 10*time.Millisecond, "no write beyond the three")
	require.EqualValues(t, 3, writes.Load(), "lock, verification with the events, settle acknowledged")
}

// countPrefixWrites counts the writes of keys under prefix from now on;
// after flush the count has every write committed before it.
func countPrefixWrites(t *testing.T, db *badger.DB, prefix []byte) (n *atomic.Int64, flush func()) {
	t.Helper()
	n = new(atomic.Int64)
	flush = watchWrites(t, db, []pb.Match{{Prefix: prefix}}, func(*pb.KV) { n.Add(1) })
	return n, flush
}

// watchWrites calls fn, on the subscription's goroutine, with each write
// that matches from now on: it returns once the subscription is
// registered (a sentinel write reached it) and ends it when t ends. The
// subscription is told of commits after they return, in commit order:
// flush returns once fn has seen every write committed before it.
func watchWrites(t *testing.T, db *badger.DB, matches []pb.Match, fn func(*pb.KV)) (flush func()) {
	t.Helper()
	sentinel := []byte("test/watch-sentinel")
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	seen := 0 // the last sentinel value seen; they count from 1
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = db.Subscribe(ctx, func(kvs *badger.KVList) error {
			for _, e := range kvs.Kv {
				if bytes.Equal(e.Key, sentinel) {
					n, _ := strconv.Atoi(string(e.Value))
					mu.Lock()
					seen = n
					mu.Unlock()
					continue
				}
				fn(e)
			}
			return nil
		}, append(matches, pb.Match{Prefix: sentinel}))
	}()
	t.Cleanup(func() { cancel(); <-done })
	sent := 0
	mark := func() func() bool {
		sent++
		want := sent
		require.NoError(t, db.Update(func(txn *badger.Txn) error { return txn.Set(sentinel, []byte(strconv.Itoa(want))) }))
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			return seen >= want
		}
	}
	// Until the subscription is registered a sentinel may go unseen:
	// write another each try, until one is seen.
	require.Eventually(t, func() bool {
		mark()
		mu.Lock()
		defer mu.Unlock()
		return seen > 0
	}, 10*time.Second, 10*time.Millisecond, "the subscription is registered")
	return func() {
		t.Helper()
		require.Eventually(t, mark(), 10*time.Second, time.Millisecond, "the subscription saw the writes before a sentinel")
	}
}

// The latency history of a seller hired many times a second is written at
// most once per latencyPersistInterval, holds every job in memory at once,
// and what is left is written when the market closes.
func TestLatencyHistoryIsWrittenOncePerIntervalAndAtClose(t *testing.T) {
	db := memBadger(t)
	j := &jobs{db: kv.Open(db)}
	seller := somePeer(t)
	ctx, cancel := context.WithCancel(context.Background())
	m := &Buyer{shared: &shared{ctx: ctx, cancel: cancel, log: slog.New(slog.DiscardHandler)}, latency: newLatencies(j.db)}
	m.latency.every = time.Hour // no interval ends during the test: only the first write and Close's
	key := latencyKey(seller, "compute.statistics.mean")
	writes := countWrites(t, db, key)
	for range 50 {
		m.recordLatency(seller, "compute.statistics.mean", 2*time.Millisecond)
	}
	h, ok := m.latency.get(seller, "compute.statistics.mean")
	require.True(t, ok)
	require.Equal(t, 50, h.Jobs, "every job is in the history at once")
	require.Eventually(t, func() bool { return writes.Load() == 1 }, 10*time.Second, 5*time.Millisecond, "the first job is written at once")
	for range 50 {
		m.recordLatency(seller, "compute.statistics.mean", 2*time.Millisecond)
	}
	m.cancel() // Close: the scheduled write runs now
	m.wg.Wait()
	require.Eventually(t, func() bool { return writes.Load() >= 2 }, 10*time.Second, 5*time.Millisecond, "the last jobs are written at close")
	require.Never(t, func() bool { return writes.Load() > 2 }, 200*time.Millisecond, 10*time.Millisecond, "one write within the interval, one at close")
	var stored storedLatency
	require.NoError(t, db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(latencyKey(seller, "compute.statistics.mean"))
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error { return json.Unmarshal(v, &stored) })
	}))
	require.Equal(t, 100, stored.Jobs)
}

// BenchmarkJobEventStreamRead reads a job's event stream (progress, then
// the result line) as the buyer does, through the market's pooled reader:
// a hire no longer allocates and zeroes a 64 KiB buffer.
func BenchmarkJobEventStreamRead(b *testing.B) {
	stream := []byte(`{"type":"started","job_id":"j1"}` + "\n" +
		`{"type":"result","job_id":"j1","output":{"mean":5.5},"delivery":{"job_id":"j1"},"elapsed_ms":1}` + "\n")
	m := &Buyer{}
	b.ReportAllocs()
	for b.Loop() {
		r := m.eventReader(bytes.NewReader(stream))
		for {
			if _, err := readLine(r, maxEventLine); err != nil {
				break
			}
		}
		m.putEventReader(r)
	}
}

// countWrites counts the committed writes of key, as Badger publishes them
// to its subscribers (Badger's MaxVersion is read without the writer's
// synchronisation, so a test polling it races with a background commit).
func countWrites(t *testing.T, db *badger.DB, key []byte) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	watchWrites(t, db, []pb.Match{{Prefix: key}}, func(e *pb.KV) {
		if bytes.Equal(e.Key, key) {
			n.Add(1)
		}
	})
	return &n
}

// A hire's job record is written in the escrow's own commits: the lock
// that creates the job and the release that ends it each write the
// buyer's balance and its job record at one commit timestamp (one fsync
// for both), and only the settle's acknowledgement writes the record
// alone.
func TestTheJobRecordCommitsWithTheEscrow(t *testing.T) {
	_, buyer := setupHire(t)
	first := hireMean(t, buyer, "compute.statistics.mean") // the first hire also finds the seller
	settleSent := func(jobID string) func() bool { return settleSentOn(buyer, jobID) }
	require.Eventually(t, settleSent(first.JobID), 20*time.Second, 10*time.Millisecond)

	balanceKey := []byte("acct/balance") // escrow's key of the account (escrow/keys.go)
	var mu sync.Mutex
	var recordAt, balanceAt []uint64
	watchWrites(t, buyer.db, []pb.Match{{Prefix: balanceKey}, {Prefix: jobRolePrefix(RoleBuyer)}}, func(e *pb.KV) {
		mu.Lock()
		defer mu.Unlock()
		if bytes.Equal(e.Key, balanceKey) {
			balanceAt = append(balanceAt, e.Version)
		} else {
			recordAt = append(recordAt, e.Version)
		}
	})

	res := hireMean(t, buyer, "compute.statistics.mean")
	require.Equal(t, escrow.StateReleased, res.State)
	require.Eventually(t, settleSent(res.JobID), 20*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(recordAt) >= 3 && len(balanceAt) >= 2
	}, 10*time.Second, 10*time.Millisecond, "the subscription saw the hire's writes")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, recordAt, 3, "lock, verification, settle acknowledged")
	require.Equal(t, balanceAt[:2], recordAt[:2], "the record's first two writes are the lock's and the release's commits")
	require.Greater(t, recordAt[2], balanceAt[1], "the acknowledgement comes after")
}

// settleSentOn reports whether buyer's record of jobID says the seller
// acknowledged its settle.
func settleSentOn(buyer *testPeer, jobID string) func() bool {
	return func() bool {
		r, err := buyer.market.jobs.get(RoleBuyer, jobID)
		return err == nil && r.SettleSent
	}
}
