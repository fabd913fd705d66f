package node

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/dgraph-io/badger/v4"
)

// repoSchema is the version of the repo's data layout that this binary
// writes. A repo written by a newer binary is refused rather than misread;
// an older one is stamped with this version once it is migrated.
//
//   - 2: the market's job index (market/jobindex.go), which every job
//     record write keeps. A binary of schema 1 would write records without
//     it, so it must refuse such a repo; the market builds the index
//     itself at start when its marker is missing, so the step from 1 is
//     the stamp alone.
const repoSchema = 2

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
		if v < repoSchema {
			err := txn.Set(schemaKey, []byte(strconv.Itoa(repoSchema)))
			if errors.Is(err, badger.ErrReadOnlyTxn) {
				return nil // read-only: readers manage without the index; the next open for writing stamps it
			}
			return err
		}
		return nil
	})
}
