package storage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// vlogBytes is the size of dir's value-log files.
func vlogBytes(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var n int64
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".vlog") {
			fi, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // the GC removed it after ReadDir: no bytes
			}
			require.NoError(t, err)
			n += fi.Size()
		}
	}
	return n
}

// TestValueLogGCReclaimsOverwrittenValues: job records rewritten with
// large outputs leave old copies in the value log; the GC loop gives that
// space back, and stops without leaking its goroutine.
func TestValueLogGCReclaimsOverwrittenValues(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	// A cleanup, not a defer: it must run after the cleanups below (the
	// loop's Stop, the DB's Close), which a failing test reaches only then.
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	dir := t.TempDir()
	// Small value-log files so that a test's worth of data spans several.
	opts := badger.DefaultOptions(dir).WithValueLogFileSize(1 << 20).WithValueThreshold(1 << 10).
		WithMemTableSize(1 << 20).WithNumCompactors(2).WithNumLevelZeroTables(1).WithLogger(nil)
	db, err := badger.Open(opts)
	require.NoError(t, err)
	val := bytes.Repeat([]byte("x"), 32<<10)
	round := 0
	writeRound := func() {
		for i := range 100 {
			require.NoError(t, db.Update(func(txn *badger.Txn) error {
				return txn.Set(fmt.Appendf(nil, "job/%03d", i), append(val, byte(round)))
			}))
		}
		round++
		require.NoError(t, db.Close()) // flushes the memtable into a table
		db, err = badger.Open(opts)
		require.NoError(t, err)
	}
	for range 3 {
		writeRound()
	}
	t.Cleanup(func() { db.Close() })
	// Compaction drops the old versions and counts the garbage, but only
	// versions under Badger's read watermark, which a goroutine of its own
	// moves past the open's timestamp. A compaction that runs first keeps
	// every version (seen on a loaded machine: "Skipped 0 keys", and no
	// discard stats, so nothing for the GC to collect). So compact until the
	// tables hold only the newest versions, writing one more round before
	// each retry so that there is a new table to compact.
	for tries := 0; ; tries++ {
		require.NoError(t, db.Flatten(2))
		if keysInTables(db) <= 100 {
			break
		}
		require.Less(t, tries, 20, "compaction kept the old versions every time")
		t.Logf("compaction kept old versions (%d keys in tables); writing another round", keysInTables(db))
		writeRound()
	}
	before := vlogBytes(t, dir)

	var skip atomic.Bool
	g := NewValueLogGC(db, skip.Load, slog.New(slog.DiscardHandler))
	g.interval, g.pause = 10*time.Millisecond, time.Millisecond
	g.Start()
	t.Cleanup(g.Stop)
	require.Eventually(t, func() bool { return g.rewritten.Load() > 0 && vlogBytes(t, dir) < before }, 60*time.Second, 20*time.Millisecond,
		"GC rewrote value-log files and gave space back")
	g.Stop()
	g.Stop() // idempotent

	// The values that are left are the newest ones.
	require.NoError(t, db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte("job/042"))
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err == nil && v[len(v)-1] != byte(round-1) {
			err = errors.New("an old version came back")
		}
		return err
	}))
	t.Logf("value log: %d -> %d bytes, %d files rewritten", before, vlogBytes(t, dir), g.rewritten.Load())
}

// keysInTables counts the key versions in db's tables.
func keysInTables(db *badger.DB) int {
	n := 0
	for _, ti := range db.Tables() {
		n += int(ti.KeyCount)
	}
	return n
}

func TestValueLogGCSkipsWhileTheDiskIsLow(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	// A cleanup, not a defer: it must run after the cleanups below (the
	// loop's Stop, the DB's Close), which a failing test reaches only then.
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	db, err := badger.Open(badger.DefaultOptions(filepath.Join(t.TempDir(), "db")).WithLogger(nil))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	var asked atomic.Int64
	g := NewValueLogGC(db, func() bool { asked.Add(1); return true }, slog.New(slog.DiscardHandler))
	g.interval = 5 * time.Millisecond
	g.Start()
	t.Cleanup(g.Stop)
	require.Eventually(t, func() bool { return asked.Load() >= 3 }, 5*time.Second, 5*time.Millisecond)
	g.Stop()
	require.Zero(t, g.rewritten.Load())
}

func TestValueLogGCBacksOffOnErrors(t *testing.T) {
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	require.NoError(t, db.Close())
	db, err = badger.Open(badger.DefaultOptions(dir).WithLogger(nil).WithReadOnly(true))
	require.NoError(t, err) // RunValueLogGC fails read-only
	defer db.Close()
	g := NewValueLogGC(db, func() bool { return false }, slog.New(slog.DiscardHandler))
	g.interval = time.Minute
	next := g.round(t.Context(), time.Minute)
	require.Equal(t, 2*time.Minute, next)
	require.Equal(t, 4*time.Minute, g.round(t.Context(), next))
	require.Equal(t, gcMaxBackoff, g.round(t.Context(), gcMaxBackoff))
}
