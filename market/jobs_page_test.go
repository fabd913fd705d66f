package market

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/kv"
)

// pagedJobs stores n job records, alternately bought and sold, some with
// the same creation time, each with a large input and output (as records
// of older releases have them).
func pagedJobs(t *testing.T, n int) *jobs {
	t.Helper()
	bdb, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
	require.NoError(t, err)
	t.Cleanup(func() { bdb.Close() })
	db := kv.Open(bdb)
	j := &jobs{db: db}
	_, pub, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	someone, err := peer.IDFromPublicKey(pub)
	require.NoError(t, err)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	// 8 KiB each is large enough that a list carrying them would show, and
	// small enough that walking 50 of them a page at a time stays quick
	// under the race detector (64 KiB took 90 s there).
	big := json.RawMessage(`"` + strings.Repeat("o", 8<<10) + `"`)
	for i := range n {
		role := RoleBuyer
		if i%2 == 1 {
			role = RoleSeller
		}
		// Written as a release before outputs moved to the escrow did: with
		// the input and output in the record.
		val, err := json.Marshal(JobRecord{
			Version: jobVersion, JobID: fmt.Sprintf("job-%03d", i), Role: role, Capability: "compute.statistics.mean",
			Seller: someone, Buyer: someone,
			Status: StatusFailed, Error: strings.Repeat("e", 4<<10),
			Input: big, Output: big,
			CreatedAt: base.Add(time.Duration(i/3) * time.Second), // three at a time share a second
		})
		require.NoError(t, err)
		require.NoError(t, db.Update(func(txn kv.Txn) error { return txn.Set(jobKey(role, fmt.Sprintf("job-%03d", i)), val) }))
	}
	return j
}

func TestListPageWalksEveryRecordOnceInOrderWithoutBodies(t *testing.T) {
	j := pagedJobs(t, 50)
	all, err := j.listPage(JobQuery{})
	require.NoError(t, err)
	require.Len(t, all, 50)
	for i := 1; i < len(all); i++ {
		require.True(t, all[i-1].Position().Before(all[i].Position()), "order at %d", i)
	}
	for _, r := range all {
		require.Nil(t, r.Input, "a list carries no input")
		require.Nil(t, r.Output, "a list carries no output")
		require.LessOrEqual(t, len(r.Error), maxSummaryError+3)
		require.Equal(t, "compute.statistics.mean", r.Capability)
	}

	for _, limit := range []int{1, 7, 25, 50, 60} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			var got []JobRecord
			var after *JobPosition
			for pages := 0; ; pages++ {
				require.Less(t, pages, 60, "paging must end")
				page, err := j.listPage(JobQuery{Limit: limit, After: after})
				require.NoError(t, err)
				require.LessOrEqual(t, len(page), limit)
				if len(page) == 0 {
					break
				}
				got = append(got, page...)
				p := page[len(page)-1].Position()
				after = &p
			}
			require.Equal(t, ids(all), ids(got))
		})
	}

	sold, err := j.listPage(JobQuery{Role: RoleSeller, Limit: 100})
	require.NoError(t, err)
	require.Len(t, sold, 25)
	for _, r := range sold {
		require.Equal(t, RoleSeller, r.Role)
	}
}

func TestListPageSkipsCorruptRecords(t *testing.T) {
	j := pagedJobs(t, 3)
	require.NoError(t, j.db.Update(func(txn kv.Txn) error {
		return txn.Set(jobKey(RoleBuyer, "broken"), []byte("{not json"))
	}))
	page, err := j.listPage(JobQuery{Limit: 10})
	require.NoError(t, err)
	require.Len(t, page, 3)
}

func ids(recs []JobRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Role + "/" + r.JobID
	}
	return out
}
