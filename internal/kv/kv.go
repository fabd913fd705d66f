// Package kv is the small transaction interface through which the owners
// of the node's Badger database (escrow, market) read and write their
// keys: get, set and delete one key, scan the keys under a prefix, inside
// a read-only View or a read-write Update. escrow's group-commit
// transaction (escrow/commit.go) and DB, the plain Badger one here, both
// implement Txn, so the two packages' storage code reads the same way and
// neither hands out a *badger.DB or its keys to another package.
//
// Each owner keeps its own key prefixes (its keys.go); a package never
// reads another's keys, it calls the owner's methods.
package kv

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// maxConflictRetries bounds the retries of an Update that lost a
// badger.ErrConflict race with another writer of the same keys.
const maxConflictRetries = 10

var (
	// ErrNotFound is returned by Get for a key that is not set.
	ErrNotFound = errors.New("key not found")
	// ErrReadOnly is returned by Update on a DB opened read-only.
	ErrReadOnly = errors.New("database opened read-only")
	// ErrStop, returned by a scan's callback, ends the scan without error.
	ErrStop = errors.New("stop scan")
)

// Reader reads keys in one consistent snapshot.
type Reader interface {
	// Get returns a copy of the value of key, or an error wrapping
	// ErrNotFound.
	Get(key []byte) ([]byte, error)
	// Scan calls fn with each key under prefix and its value, in key
	// order; both are valid only during the call. fn returning ErrStop ends
	// the scan early.
	Scan(prefix []byte, fn func(key, val []byte) error) error
	// Keys is Scan without reading the values.
	Keys(prefix []byte, fn func(key []byte) error) error
}

// Txn reads and writes keys; its writes commit together, or not at all.
// Reads see the transaction's own writes.
type Txn interface {
	Reader
	Set(key, val []byte) error
	Delete(key []byte) error
}

// Writer is the write side of a bulk load (DB.Batch).
type Writer interface {
	Set(key, val []byte) error
	Delete(key []byte) error
}

// DB is a Badger database seen through Txn. Safe for concurrent use.
type DB struct {
	db       *badger.DB
	readOnly bool
}

// Open returns db for reading and writing.
func Open(db *badger.DB) *DB { return &DB{db: db} }

// OpenReadOnly returns db for reading only: Update and Batch return
// ErrReadOnly, whether or not Badger itself was opened read-only.
func OpenReadOnly(db *badger.DB) *DB { return &DB{db: db, readOnly: true} }

// ReadOnly reports whether d refuses writes.
func (d *DB) ReadOnly() bool { return d.readOnly }

// View runs fn in one read-only transaction.
func (d *DB) View(fn func(Reader) error) error {
	return d.db.View(func(txn *badger.Txn) error { return fn(badgerTxn{txn}) })
}

// Update runs fn in one read-write transaction and commits it. A commit
// that loses a conflict with another writer runs fn again (a bounded
// number of times), so fn must only set its results, not accumulate them.
func (d *DB) Update(fn func(Txn) error) error {
	if d.readOnly {
		return ErrReadOnly
	}
	for attempt := 0; ; attempt++ {
		err := d.db.Update(func(txn *badger.Txn) error { return fn(badgerTxn{txn}) })
		if errors.Is(err, badger.ErrConflict) && attempt < maxConflictRetries {
			continue
		}
		if errors.Is(err, badger.ErrConflict) {
			return fmt.Errorf("too many conflicts: %w", err)
		}
		return err
	}
}

// Batch writes what fn sets in batches too large for one transaction
// (Badger's WriteBatch): no reads, no atomicity across the whole, every
// write durable when Batch returns nil.
func (d *DB) Batch(fn func(Writer) error) error {
	if d.readOnly {
		return ErrReadOnly
	}
	wb := d.db.NewWriteBatch()
	defer wb.Cancel()
	if err := fn(wb); err != nil {
		return err
	}
	return wb.Flush()
}

// badgerTxn is a Badger transaction as a Txn.
type badgerTxn struct{ txn *badger.Txn }

var _ Txn = badgerTxn{}

func (t badgerTxn) Get(key []byte) ([]byte, error) {
	item, err := t.txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return item.ValueCopy(nil)
}

func (t badgerTxn) Set(key, val []byte) error {
	if err := t.txn.Set(key, val); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return nil
}

func (t badgerTxn) Delete(key []byte) error {
	if err := t.txn.Delete(key); err != nil {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
}

func (t badgerTxn) Scan(prefix []byte, fn func(key, val []byte) error) error {
	return t.iterate(prefix, true, func(item *badger.Item) error {
		return item.Value(func(v []byte) error { return fn(item.Key(), v) })
	})
}

func (t badgerTxn) Keys(prefix []byte, fn func(key []byte) error) error {
	return t.iterate(prefix, false, func(item *badger.Item) error { return fn(item.Key()) })
}

func (t badgerTxn) iterate(prefix []byte, values bool, fn func(*badger.Item) error) error {
	opts := badger.DefaultIteratorOptions
	opts.Prefix, opts.PrefetchValues = prefix, values
	it := t.txn.NewIterator(opts)
	defer it.Close()
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		if err := fn(it.Item()); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}
