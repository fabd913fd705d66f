package gateway_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/gateway"
)

func TestBadgerStorePagesNewestFirst(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
	require.NoError(t, err)
	defer db.Close()
	s := gateway.NewBadgerStore(db)
	ctx := context.Background()
	states := []string{gateway.StateCompleted, gateway.StateWorking, gateway.StateFailed}
	var ids []string
	for i := range 7 {
		id := fmt.Sprintf("%016x%016x", int64(1_000+i), i)
		ids = append(ids, id)
		require.NoError(t, s.Put(ctx, gateway.TaskRecord{
			Task:      gateway.Task{ID: id, ContextID: fmt.Sprintf("ctx%d", i%2), Status: gateway.TaskStatus{State: states[i%3]}},
			CreatedAt: time.Unix(int64(i), 0),
		}))
	}
	_, err = s.Get(ctx, "nope")
	require.ErrorIs(t, err, gateway.ErrTaskNotFound)
	_, err = s.Get(ctx, fmt.Sprintf("%032x", 5))
	require.ErrorIs(t, err, gateway.ErrTaskNotFound)
	require.Error(t, s.Put(ctx, gateway.TaskRecord{Task: gateway.Task{ID: "../escape"}}))

	var got []string
	after := ""
	for {
		page, more, total, err := s.List(ctx, gateway.TaskFilter{After: after, Limit: 3})
		require.NoError(t, err)
		require.Equal(t, 7, total)
		for _, r := range page {
			got = append(got, r.Task.ID)
		}
		if !more {
			break
		}
		after = page[len(page)-1].Task.ID
	}
	require.Equal(t, []string{ids[6], ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]}, got)

	page, _, total, err := s.List(ctx, gateway.TaskFilter{ContextID: "ctx0", State: gateway.StateCompleted})
	require.NoError(t, err)
	require.Len(t, page, 2) // tasks 0 and 6
	require.Equal(t, 2, total)
	open, err := s.Open(ctx)
	require.NoError(t, err)
	require.Len(t, open, 2) // the WORKING ones: 1 and 4
	require.Equal(t, ids[1], open[0].Task.ID, "oldest first")
}
