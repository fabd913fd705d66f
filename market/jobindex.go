package market

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/peer"
)

// The job index lists the job records that are not done, so that the
// start-up passes (mendJobRecords, loadOutbox) and status read those, not
// every job this node ever ran. Each entry is written in the transaction of
// the record it indexes, so the two never disagree:
//
//	jobidx/running/<role>/<job id> -> empty: the record says running
//	jobidx/unsent/<job id>         -> seller peer ID: a bought job whose
//	                                  settle the seller has not acknowledged
//	jobidx/built                   -> the index covers every record
//
// A repo from before the index has no jobidx/built: Market.Start builds it
// once (BuildJobIndex), and readers scan the records until then.
const (
	jobIndexPrefix   = "jobidx/"
	jobRunningPrefix = jobIndexPrefix + "running/"
	jobUnsentPrefix  = jobIndexPrefix + "unsent/"
)

var jobIndexBuiltKey = []byte(jobIndexPrefix + "built")

func jobRunningKey(role, jobID string) []byte {
	return []byte(jobRunningPrefix + role + "/" + keyEncoding.EncodeToString([]byte(jobID)))
}

func jobUnsentKey(jobID string) []byte {
	return []byte(jobUnsentPrefix + keyEncoding.EncodeToString([]byte(jobID)))
}

// setJob writes r and its index entries in txn.
func setJob(txn *badger.Txn, r JobRecord, val []byte) error {
	if err := txn.Set(jobKey(r.Role, r.JobID), val); err != nil {
		return err
	}
	return indexJob(txn, r)
}

// indexJob makes r's index entries say what r says.
func indexJob(txn *badger.Txn, r JobRecord) error {
	running := jobRunningKey(r.Role, r.JobID)
	var err error
	if r.Status == StatusRunning {
		err = txn.Set(running, nil)
	} else {
		err = txn.Delete(running)
	}
	if err != nil || r.Role != RoleBuyer {
		return err
	}
	if r.SettleSent {
		return txn.Delete(jobUnsentKey(r.JobID))
	}
	return txn.Set(jobUnsentKey(r.JobID), []byte(r.Seller))
}

// BuildJobIndex builds the job index of db from its records, unless it is
// built. It is safe to run again after a crash part way: entries are set,
// and only a finished build marks the index built.
func BuildJobIndex(db *badger.DB) error {
	if jobIndexBuilt(db) {
		return nil
	}
	wb := db.NewWriteBatch()
	defer wb.Cancel()
	err := scanJobs(db, "", func(r JobRecord) error {
		if r.Status == StatusRunning {
			if err := wb.Set(jobRunningKey(r.Role, r.JobID), nil); err != nil {
				return err
			}
		}
		if r.Role == RoleBuyer && !r.SettleSent {
			return wb.Set(jobUnsentKey(r.JobID), []byte(r.Seller))
		}
		return nil
	})
	if err == nil {
		err = wb.Set(jobIndexBuiltKey, nil)
	}
	if err == nil {
		err = wb.Flush()
	}
	if err != nil {
		return fmt.Errorf("build the job index: %w", err)
	}
	return nil
}

func jobIndexBuilt(db *badger.DB) bool {
	err := db.View(func(txn *badger.Txn) error {
		_, err := txn.Get(jobIndexBuiltKey)
		return err
	})
	return err == nil
}

// scanJobs calls fn with each job record of role (both roles when empty),
// in key order, without their inputs and outputs. Corrupt records are
// skipped: one must not hide the others.
func scanJobs(db *badger.DB, role string, fn func(JobRecord) error) error {
	prefix := []byte(jobPrefix)
	if role != "" {
		prefix = jobRolePrefix(role)
	}
	return db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = prefix
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			var s jobSummary
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &s) }); err != nil || s.Version != jobVersion {
				continue
			}
			if err := fn(s.JobRecord); err != nil {
				return err
			}
		}
		return nil
	})
}

// indexKeys calls fn with the suffix of each key under prefix (what comes
// after it), reading keys only.
func indexKeys(db *badger.DB, prefix string, fn func(suffix string, val []byte) error) error {
	return db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = []byte(prefix)
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(opts.Prefix); it.ValidForPrefix(opts.Prefix); it.Next() {
			item := it.Item()
			val, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			if err := fn(string(item.Key()[len(prefix):]), val); err != nil {
				return err
			}
		}
		return nil
	})
}

// jobRef names one job record.
type jobRef struct{ Role, JobID string }

// runningJobs lists the records that say running, from the index when it
// is built.
func runningJobs(db *badger.DB) ([]jobRef, error) {
	var out []jobRef
	if !jobIndexBuilt(db) {
		err := scanJobs(db, "", func(r JobRecord) error {
			if r.Status == StatusRunning {
				out = append(out, jobRef{r.Role, r.JobID})
			}
			return nil
		})
		return out, err
	}
	err := indexKeys(db, jobRunningPrefix, func(suffix string, _ []byte) error {
		ref, err := parseJobRef(suffix)
		if err != nil {
			return nil // not ours: skip
		}
		out = append(out, ref)
		return nil
	})
	return out, err
}

func parseJobRef(suffix string) (jobRef, error) {
	for i := range len(suffix) {
		if suffix[i] == '/' {
			id, err := keyEncoding.DecodeString(suffix[i+1:])
			return jobRef{suffix[:i], string(id)}, err
		}
	}
	return jobRef{}, errors.New("no role in job index key")
}

// unsentSettles lists the bought jobs whose settle the seller has not
// acknowledged, with their sellers.
func unsentSettles(db *badger.DB) (map[string]peer.ID, error) {
	out := make(map[string]peer.ID)
	if !jobIndexBuilt(db) {
		err := scanJobs(db, RoleBuyer, func(r JobRecord) error {
			if !r.SettleSent {
				out[r.JobID] = r.Seller
			}
			return nil
		})
		return out, err
	}
	err := indexKeys(db, jobUnsentPrefix, func(suffix string, val []byte) error {
		id, err := keyEncoding.DecodeString(suffix)
		if err == nil {
			out[string(id)] = peer.ID(val)
		}
		return nil
	})
	return out, err
}

// JobsInFlight counts the jobs db's node is buying and selling that are
// still running.
func JobsInFlight(db *badger.DB) (bought, sold int, err error) {
	refs, err := runningJobs(db)
	if err != nil {
		return 0, 0, fmt.Errorf("count running jobs: %w", err)
	}
	for _, r := range refs {
		if r.Role == RoleBuyer {
			bought++
		} else {
			sold++
		}
	}
	return bought, sold, nil
}
