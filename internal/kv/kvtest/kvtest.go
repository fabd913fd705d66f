// Package kvtest is the conformance suite of kv.Txn: every implementation
// (kv.DB's Badger transactions, escrow's group-commit changes) must read
// and write keys the same way. Tests only.
package kvtest

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/kv"
)

// Update runs fn as one read-write transaction of the implementation under
// test and commits it unless fn fails.
type Update func(fn func(kv.Txn) error) error

// Run checks the behaviour every kv.Txn promises, under the key prefix
// prefix (which the implementation must let the suite write).
func Run(t *testing.T, prefix string, update Update) {
	t.Helper()
	k := func(s string) []byte { return []byte(prefix + s) }
	keysOf := func(txn kv.Reader, p string) []string {
		var out []string
		require.NoError(t, txn.Keys(k(p), func(key []byte) error {
			out = append(out, string(key[len(prefix):]))
			return nil
		}))
		return out
	}

	t.Run("reads see the transaction's own writes", func(t *testing.T) {
		require.NoError(t, update(func(txn kv.Txn) error {
			for _, s := range []string{"a", "b/2", "b/1", "c"} {
				require.NoError(t, txn.Set(k(s), []byte("v"+s)))
			}
			v, err := txn.Get(k("a"))
			require.NoError(t, err)
			require.Equal(t, "va", string(v))
			require.NoError(t, txn.Delete(k("b/1")))
			_, err = txn.Get(k("b/1"))
			require.ErrorIs(t, err, kv.ErrNotFound)
			require.Equal(t, []string{"b/2"}, keysOf(txn, "b/"))
			return nil
		}))
	})
	t.Run("committed writes are read in key order", func(t *testing.T) {
		require.NoError(t, update(func(txn kv.Txn) error {
			require.Equal(t, []string{"a", "b/2", "c"}, keysOf(txn, ""))
			var vals []string
			require.NoError(t, txn.Scan(k(""), func(_, v []byte) error {
				vals = append(vals, string(v))
				return nil
			}))
			require.Equal(t, []string{"va", "vb/2", "vc"}, vals)
			_, err := txn.Get(k("missing"))
			require.ErrorIs(t, err, kv.ErrNotFound)
			return nil
		}))
	})
	t.Run("ErrStop ends a scan without error", func(t *testing.T) {
		require.NoError(t, update(func(txn kv.Txn) error {
			n := 0
			require.NoError(t, txn.Scan(k(""), func(_, _ []byte) error { n++; return kv.ErrStop }))
			require.Equal(t, 1, n)
			n = 0
			require.NoError(t, txn.Keys(k(""), func([]byte) error { n++; return kv.ErrStop }))
			require.Equal(t, 1, n)
			boom := errors.New("boom")
			require.ErrorIs(t, txn.Keys(k(""), func([]byte) error { return boom }), boom)
			return nil
		}))
	})
	t.Run("a failed transaction leaves nothing", func(t *testing.T) {
		boom := errors.New("boom")
		err := update(func(txn kv.Txn) error {
			require.NoError(t, txn.Set(k("d"), []byte("vd")))
			require.NoError(t, txn.Delete(k("a")))
			return boom
		})
		require.ErrorIs(t, err, boom)
		require.NoError(t, update(func(txn kv.Txn) error {
			require.Equal(t, []string{"a", "b/2", "c"}, keysOf(txn, ""))
			return nil
		}))
	})
}
