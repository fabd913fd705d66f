package escrow

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/kv"
	"github.com/swarmwage/swarmwage/internal/kv/kvtest"
)

// The escrow's changes are kv.Txns that behave as the market's plain
// Badger transactions do (the same conformance suite).
func TestTxConformance(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil).WithSyncWrites(true))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	key, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	e, err := New(db, key)
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	kvtest.Run(t, "kvtest/", func(fn func(kv.Txn) error) error {
		return e.update(context.Background(), func(txn *tx) error { return fn(txn) })
	})
}
