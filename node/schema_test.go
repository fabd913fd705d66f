package node

import (
	"strconv"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

func TestRepoWrittenByANewerBinaryIsRefused(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, checkSchema(db), "a new database is stamped")
	require.NoError(t, checkSchema(db), "and opens again")
	require.NoError(t, db.Update(func(txn *badger.Txn) error { return txn.Set(schemaKey, []byte("99")) }))
	err = checkSchema(db)
	require.ErrorIs(t, err, ErrRepoTooNew)
	require.Contains(t, err.Error(), "upgrade swarmwage")
}

// TestOfflineCommandsWaitForEachOther: two offline commands at once do not
// fail on the lock; the second waits for the first.
func TestOfflineCommandsWaitForEachOther(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig("locktest")
	cfg.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	repo, err := Init(dir, cfg)
	require.NoError(t, err)
	first, err := OpenLocal(repo)
	require.NoError(t, err)
	repo2, err := Open(dir)
	require.NoError(t, err)
	waiting := make(chan struct{})
	var once sync.Once
	repo2.lockWaited = func() { once.Do(func() { close(waiting) }) }
	done := make(chan error, 1)
	go func() {
		second, err := OpenLocal(repo2)
		if err == nil {
			err = second.Close()
		}
		done <- err
	}()
	// Hold the lock until the second command has found it held and waits:
	// without waiting it would fail at once with ErrRepoLocked.
	<-waiting
	require.NoError(t, first.Close())
	require.NoError(t, <-done)
}

// TestRepoOfTheLastSchemaIsStamped: a repo from before the job index opens
// and is stamped with this schema, so that older binaries refuse it.
func TestRepoOfTheLastSchemaIsStamped(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Update(func(txn *badger.Txn) error { return txn.Set(schemaKey, []byte("1")) }))
	require.NoError(t, checkSchema(db))
	require.NoError(t, db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(schemaKey)
		require.NoError(t, err)
		v, err := item.ValueCopy(nil)
		require.Equal(t, strconv.Itoa(repoSchema), string(v))
		return err
	}))
}

// TestDaemonStartWaitsForAShortCommand: a read-only command that held the
// repo while a daemon started made the daemon fail with "repo is in use";
// the daemon now waits for it.
func TestDaemonStartWaitsForAShortCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig("locktest")
	cfg.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.API = "127.0.0.1:0"
	repo, err := Init(dir, cfg)
	require.NoError(t, err)
	status, err := OpenLocalReadOnly(repo)
	require.NoError(t, err)
	repo2, err := Open(dir)
	require.NoError(t, err)
	waiting := make(chan struct{})
	var once sync.Once
	repo2.lockWaited = func() { once.Do(func() { close(waiting) }) }
	done := make(chan error, 1)
	go func() {
		n, err := New(t.Context(), repo2, Options{})
		if err == nil {
			err = n.Close()
		}
		done <- err
	}()
	<-waiting
	require.NoError(t, status.Close())
	require.NoError(t, <-done)
}
