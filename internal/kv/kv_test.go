package kv_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/kv"
	"github.com/swarmwage/swarmwage/internal/kv/kvtest"
)

func openDB(t *testing.T) *badger.DB {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestDBConformance(t *testing.T) {
	d := kv.Open(openDB(t))
	kvtest.Run(t, "test/", d.Update)
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	db := openDB(t)
	require.NoError(t, kv.Open(db).Update(func(txn kv.Txn) error { return txn.Set([]byte("k"), []byte("v")) }))
	ro := kv.OpenReadOnly(db)
	require.True(t, ro.ReadOnly())
	require.ErrorIs(t, ro.Update(func(kv.Txn) error { return nil }), kv.ErrReadOnly)
	require.ErrorIs(t, ro.Batch(func(kv.Writer) error { return nil }), kv.ErrReadOnly)
	require.NoError(t, ro.View(func(txn kv.Reader) error {
		v, err := txn.Get([]byte("k"))
		require.Equal(t, "v", string(v))
		return err
	}))
}

// Writers of one key never lose each other's writes: the one that lost a
// conflict runs again on what the other committed, so the key holds one
// mark per Update that returned nil, and retries make most of them land.
func TestUpdateRetriesALostConflict(t *testing.T) {
	d := kv.Open(openDB(t))
	key := []byte("counter")
	const writers, each = 4, 25
	var (
		wg sync.WaitGroup
		mu sync.Mutex
		ok int
	)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := d.Update(func(txn kv.Txn) error {
					v, err := txn.Get(key)
					if err != nil && !errors.Is(err, kv.ErrNotFound) {
						return err
					}
					return txn.Set(key, append(v, 'x'))
				})
				switch {
				case err == nil:
					mu.Lock()
					ok++
					mu.Unlock()
				case !errors.Is(err, badger.ErrConflict):
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, d.View(func(txn kv.Reader) error {
		v, err := txn.Get(key)
		require.Len(t, v, ok, "one mark per committed update")
		return err
	}))
	require.Greater(t, ok, each, "lost conflicts are retried")
}

func TestBatchWritesEverything(t *testing.T) {
	d := kv.Open(openDB(t))
	require.NoError(t, d.Batch(func(w kv.Writer) error {
		for i := range 1000 {
			if err := w.Set([]byte{'b', byte(i >> 8), byte(i)}, []byte("v")); err != nil {
				return err
			}
		}
		return nil
	}))
	n := 0
	require.NoError(t, d.View(func(txn kv.Reader) error {
		return txn.Keys([]byte("b"), func([]byte) error { n++; return nil })
	}))
	require.Equal(t, 1000, n)
}
