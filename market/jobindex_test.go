package market

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/kv"
)

func memJobs(t *testing.T) *jobs {
	t.Helper()
	return &jobs{db: kv.Open(memBadger(t))}
}

// memBadger is a Badger database on disk in the test's temp directory.
func memBadger(t *testing.T) *badger.DB {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func somePeer(t *testing.T) peer.ID {
	t.Helper()
	_, pub, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	id, err := peer.IDFromPublicKey(pub)
	require.NoError(t, err)
	return id
}

func refsOf(t *testing.T, db *kv.DB) []string {
	t.Helper()
	refs, err := runningJobs(db)
	require.NoError(t, err)
	var out []string
	for _, r := range refs {
		out = append(out, r.Role+":"+r.JobID)
	}
	sort.Strings(out)
	return out
}

// TestJobIndexFollowsEveryWrite: put, update and rate keep the index in
// step with the records, for both roles, whatever bytes a job ID holds.
func TestJobIndexFollowsEveryWrite(t *testing.T) {
	j := memJobs(t)
	require.NoError(t, buildJobIndex(j.db))
	seller := somePeer(t)
	odd := "job/with\x00odd/bytes"
	for _, r := range []JobRecord{
		{JobID: "b1", Role: RoleBuyer, Seller: seller, Buyer: seller, Status: StatusRunning},
		{JobID: odd, Role: RoleBuyer, Seller: seller, Buyer: seller, Status: StatusRunning},
		{JobID: "s1", Role: RoleSeller, Seller: seller, Buyer: seller, Status: StatusRunning},
		{JobID: "done", Role: RoleBuyer, Seller: seller, Buyer: seller, Status: StatusVerified, SettleSent: true},
	} {
		require.NoError(t, j.put(r))
	}
	require.Equal(t, []string{"buyer:b1", "buyer:" + odd, "seller:s1"}, refsOf(t, j.db))
	unsent, err := unsentSettles(j.db)
	require.NoError(t, err)
	require.Equal(t, map[string]peer.ID{"b1": seller, odd: seller}, unsent, "sellers' jobs and acknowledged settles are not in the outbox")

	require.NoError(t, j.update(RoleBuyer, "b1", func(r *JobRecord) { r.Status = StatusVerified }))
	require.NoError(t, j.update(RoleSeller, "s1", func(r *JobRecord) { r.Status = StatusDelivered }))
	require.Equal(t, []string{"buyer:" + odd}, refsOf(t, j.db))
	unsent, err = unsentSettles(j.db)
	require.NoError(t, err)
	require.Contains(t, unsent, "b1", "decided but not acknowledged: still to send")

	require.NoError(t, j.update(RoleBuyer, "b1", func(r *JobRecord) { r.SettleSent = true }))
	_, err = j.rate("b1", 5)
	require.NoError(t, err)
	unsent, err = unsentSettles(j.db)
	require.NoError(t, err)
	require.NotContains(t, unsent, "b1")

	bought, sold, err := (&JobView{jobs: j}).InFlight(context.Background())
	require.NoError(t, err)
	require.Equal(t, []int{1, 0}, []int{bought, sold})
}

// TestBuildJobIndexOnARepoFromBeforeIt: records written without the index
// are found by scanning until the index is built, and by the index after,
// with the same answers; building twice changes nothing.
func TestBuildJobIndexOnARepoFromBeforeIt(t *testing.T) {
	j := memJobs(t)
	seller := somePeer(t)
	for i := range 30 {
		r := JobRecord{Version: jobVersion, JobID: fmt.Sprintf("j%02d", i), Role: []string{RoleBuyer, RoleSeller}[i%2],
			Seller: seller, Buyer: seller, Status: []string{StatusRunning, StatusFailed, StatusVerified}[i%3],
			SettleSent: i%5 == 0, CreatedAt: time.Unix(int64(i), 0)}
		val, err := json.Marshal(r)
		require.NoError(t, err)
		require.NoError(t, j.db.Update(func(txn kv.Txn) error { return txn.Set(jobKey(r.Role, r.JobID), val) }))
	}
	require.False(t, jobIndexBuilt(j.db))
	scanned := refsOf(t, j.db)
	scannedUnsent, err := unsentSettles(j.db)
	require.NoError(t, err)
	require.Len(t, scanned, 10)

	for range 2 {
		require.NoError(t, buildJobIndex(j.db))
		require.True(t, jobIndexBuilt(j.db))
		require.Equal(t, scanned, refsOf(t, j.db))
		unsent, err := unsentSettles(j.db)
		require.NoError(t, err)
		require.Equal(t, scannedUnsent, unsent)
	}
	bought, sold, err := (&JobView{jobs: j}).InFlight(context.Background())
	require.NoError(t, err)
	require.Equal(t, []int{5, 5}, []int{bought, sold})
}

// indexVersion is the commit that last wrote key, 0 if it is absent.
func indexVersion(t *testing.T, db *badger.DB, key []byte) uint64 {
	t.Helper()
	var v uint64
	err := db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v = item.Version()
		return nil
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0
	}
	require.NoError(t, err)
	return v
}

// An update writes only the index entries it changes, and mayRun answers
// from the running entry once the index is built (and yes before).
func TestJobIndexWritesOnlyWhatChanges(t *testing.T) {
	bdb := memBadger(t)
	j := &jobs{db: kv.Open(bdb)}
	seller := somePeer(t)
	require.NoError(t, j.put(JobRecord{JobID: "b1", Role: RoleBuyer, Seller: seller, Buyer: seller, Status: StatusRunning}))
	require.True(t, j.mayRun(RoleBuyer, "b1"), "no index built: maybe")
	require.True(t, j.mayRun(RoleBuyer, "nothing"), "no index built: maybe")
	require.NoError(t, buildJobIndex(j.db))

	running, unsent := jobRunningKey(RoleBuyer, "b1"), jobUnsentKey("b1")
	v0, u0 := indexVersion(t, bdb, running), indexVersion(t, bdb, unsent)
	require.NotZero(t, v0)
	require.NotZero(t, u0)
	require.NoError(t, j.update(RoleBuyer, "b1", func(r *JobRecord) { r.Error = "a note" }))
	require.Equal(t, v0, indexVersion(t, bdb, running), "still running: entry not rewritten")
	require.Equal(t, u0, indexVersion(t, bdb, unsent), "still unsent: entry not rewritten")
	require.True(t, j.mayRun(RoleBuyer, "b1"))

	require.NoError(t, j.update(RoleBuyer, "b1", func(r *JobRecord) { r.Status = StatusVerified }))
	require.Zero(t, indexVersion(t, bdb, running))
	require.Equal(t, u0, indexVersion(t, bdb, unsent), "decided, not acknowledged: entry not rewritten")
	require.False(t, j.mayRun(RoleBuyer, "b1"))
	require.False(t, j.mayRun(RoleSeller, "b1"))

	require.NoError(t, j.update(RoleBuyer, "b1", func(r *JobRecord) { r.SettleSent = true }))
	require.Zero(t, indexVersion(t, bdb, unsent))
}

// An update prepared before its commit (prepareUpdate) writes what it
// encoded if the record is as it read it, and updates the record afresh
// if it changed meanwhile, so the change made meanwhile is kept.
func TestPrepareUpdateKeepsAChangeMadeMeanwhile(t *testing.T) {
	for _, meanwhile := range []bool{false, true} {
		t.Run(fmt.Sprintf("changed meanwhile %v", meanwhile), func(t *testing.T) {
			j := memJobs(t)
			require.NoError(t, buildJobIndex(j.db))
			r := JobRecord{JobID: "job-1", Role: RoleBuyer, Capability: "compute.statistics.mean", Seller: somePeer(t), Buyer: somePeer(t), Status: StatusRunning, CreatedAt: time.Now().UTC()}
			require.NoError(t, j.put(r))
			also, done := j.prepareUpdate(RoleBuyer, "job-1", func(r *JobRecord) { r.Status = StatusVerified })
			if meanwhile {
				_, err := j.rate("job-1", 4)
				require.NoError(t, err)
			}
			require.NoError(t, j.db.Update(func(txn kv.Txn) error { return also(txn) }))
			done()
			got, err := j.get(RoleBuyer, "job-1")
			require.NoError(t, err)
			require.Equal(t, StatusVerified, got.Status)
			if meanwhile {
				require.Equal(t, 4, got.Rating, "the rating made meanwhile is kept")
			}
			require.Equal(t, []string(nil), refsOf(t, j.db), "no longer running")
		})
	}
}
