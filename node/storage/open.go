// Package storage owns the node's one Badger database on disk: Open with
// the node's tuning (SyncWrites, small tables), the disk guard that keeps a
// full disk from crashing the node or losing a decision (free-space
// watermark and reserve files, Guard), the value-log GC that waits for disk
// space (ValueLogGC), and the size syntax of [storage] min_free (ParseSize).
// It knows nothing of what the database holds.
package storage

import (
	"fmt"

	"github.com/dgraph-io/badger/v4"
	badgerds "github.com/ipfs/go-ds-badger4"
)

// Badger's sizes, chosen against the free-space watermark (storage.go).
// Every file Badger writes through mmap gets its blocks when it is created
// (third_party/ristretto), so these sizes are disk the node holds.
const (
	// badgerMemTable is the memtable size. Its write-ahead log file is
	// twice that.
	badgerMemTable = 4 << 20
	// badgerValueThreshold: values this large or larger go to the value
	// log. Badger wants it under 15% of the memtable (its largest batch).
	badgerValueThreshold = 256 << 10
	// badgerTable is the size of the tables flushes and compactions write.
	badgerTable = 2 << 20
	// badgerValueLogFile must hold the largest value: a job output of up
	// to 32 MiB (the market's handler output cap), on its own key. Badger
	// creates the active file at twice this, and truncates it to what it
	// holds when it is done with it.
	badgerValueLogFile = 40 << 20
)

// Open opens the node's one Badger database, tuned for a small
// node, with SyncWrites on: escrow and ledger writes must survive a crash.
// Read-only, it writes nothing at all (offline reads on a full disk).
func Open(dir string, readOnly bool) (*badgerds.Datastore, error) {
	opts := badgerds.DefaultOptions
	opts.Options = badger.DefaultOptions(dir).
		WithSyncWrites(true).
		// Each commit's sync then writes the log's data and no journal
		// entry for newly allocated blocks: 0.17 ms off a hire (issue 25).
		WithZeroedWAL(true).
		WithReadOnly(readOnly).
		WithMemTableSize(badgerMemTable).
		WithNumMemtables(2).
		WithValueThreshold(badgerValueThreshold).
		WithBaseTableSize(badgerTable).
		WithBlockCacheSize(8 << 20).
		WithIndexCacheSize(4 << 20).
		WithValueLogFileSize(badgerValueLogFile).
		WithNumCompactors(2).
		WithLoggingLevel(badger.WARNING)
	// Value-log GC runs in ValueLogGC (gc.go), where it can wait for disk
	// space; the datastore's own loop stays off.
	opts.GcInterval = 0
	d, err := badgerds.NewDatastore(dir, &opts)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", dir, err)
	}
	return d, nil
}
