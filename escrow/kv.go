package escrow

import (
	"errors"

	"github.com/swarmwage/swarmwage/internal/kv"
)

// tx is the escrow's kv.Txn: the transaction interface the node's other
// store owners (market) use over plain Badger transactions (kv.DB), here
// over a change in a group commit. Reads see the writes of the changes
// before it in its batch and its own.
var _ kv.Txn = (*tx)(nil)

// Get is get, with kv.ErrNotFound for a missing key.
func (t *tx) Get(key []byte) ([]byte, error) {
	v, err := t.get(key)
	if errors.Is(err, ErrNotFound) {
		return nil, kv.ErrNotFound
	}
	return v, err
}

// Set is set.
func (t *tx) Set(key, val []byte) error { return t.set(key, val) }

// Delete is delete.
func (t *tx) Delete(key []byte) error { return t.delete(key) }

// Keys calls fn with each key under prefix that t sees, in key order.
func (t *tx) Keys(prefix []byte, fn func(key []byte) error) error {
	err := scanKeys(t, prefix, prefix, fn)
	if errors.Is(err, kv.ErrStop) {
		return nil
	}
	return err
}

// Scan calls fn with each key under prefix that t sees and its value.
func (t *tx) Scan(prefix []byte, fn func(key, val []byte) error) error {
	return t.Keys(prefix, func(k []byte) error {
		v, err := t.get(k)
		if err != nil {
			return err
		}
		return fn(k, v)
	})
}
