package node

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/dgraph-io/badger/v4"
)

// repoSchema is the version of the repo's data layout that this binary
// writes. A repo written by a newer binary is refused rather than misread;
// an older one is migrated by numbered steps (none yet).
const repoSchema = 1

// schemaKey holds the repo's data layout version.
var schemaKey = []byte("meta/schema")

// ErrRepoTooNew is returned when the repo was written by a newer swarmwage.
var ErrRepoTooNew = errors.New("repo written by a newer swarmwage")

// checkSchema stamps a new database with repoSchema and refuses one that a
// newer binary wrote.
func checkSchema(db *badger.DB) error {
	return db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(schemaKey)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return txn.Set(schemaKey, []byte(strconv.Itoa(repoSchema)))
		}
		if err != nil {
			return fmt.Errorf("read repo schema: %w", err)
		}
		var v int
		if err := item.Value(func(b []byte) error {
			var perr error
			v, perr = strconv.Atoi(string(b))
			return perr
		}); err != nil {
			return fmt.Errorf("read repo schema: %w", err)
		}
		if v > repoSchema {
			return fmt.Errorf("%w (data version %d, this binary knows up to %d): upgrade swarmwage, or use another --repo", ErrRepoTooNew, v, repoSchema)
		}
		return nil
	})
}
