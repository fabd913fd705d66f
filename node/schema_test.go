package node

import (
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
