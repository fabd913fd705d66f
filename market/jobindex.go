package market

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/internal/kv"
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
// once (buildJobIndex), and readers scan the records until then.
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

// setJob writes r and its index entries in txn; prev, if not nil, is the
// record r replaces, whose entries are there already.
func setJob(txn kv.Txn, prev *JobRecord, r JobRecord, val []byte) error {
	if err := txn.Set(jobKey(r.Role, r.JobID), val); err != nil {
		return err
	}
	return indexJob(txn, prev, r)
}

// indexJob makes r's index entries say what r says. Only the entries that
// differ from prev's are written: a record changes several times a hire,
// its index entries once or twice.
func indexJob(txn kv.Txn, prev *JobRecord, r JobRecord) error {
	running := r.Status == StatusRunning
	if prev == nil || (prev.Status == StatusRunning) != running {
		key := jobRunningKey(r.Role, r.JobID)
		var err error
		if running {
			err = txn.Set(key, nil)
		} else {
			err = txn.Delete(key)
		}
		if err != nil {
			return err
		}
	}
	if r.Role != RoleBuyer || (prev != nil && prev.SettleSent == r.SettleSent && prev.Seller == r.Seller) {
		return nil
	}
	if r.SettleSent {
		return txn.Delete(jobUnsentKey(r.JobID))
	}
	return txn.Set(jobUnsentKey(r.JobID), []byte(r.Seller))
}

// buildJobIndex builds the job index of db from its records, unless it is
// built. It is safe to run again after a crash part way: entries are set,
// and only a finished build marks the index built.
func buildJobIndex(db *kv.DB) error {
	if jobIndexBuilt(db) {
		return nil
	}
	err := db.Batch(func(wb kv.Writer) error {
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
		if err != nil {
			return err
		}
		return wb.Set(jobIndexBuiltKey, nil)
	})
	if err != nil {
		return fmt.Errorf("build the job index: %w", err)
	}
	return nil
}

// mayRun reports whether role's record of jobID may say running: its
// index entry is there, or the index is not built yet. Reading one small
// key is what lets followEscrow skip the record of a job a hire settled.
func (j *jobs) mayRun(role, jobID string) bool {
	if !j.indexBuilt.Load() {
		if !jobIndexBuilt(j.db) {
			return true
		}
		j.indexBuilt.Store(true) // an index, once built, stays built
	}
	err := j.db.View(func(txn kv.Reader) error {
		_, err := txn.Get(jobRunningKey(role, jobID))
		return err
	})
	return !errors.Is(err, kv.ErrNotFound)
}

func jobIndexBuilt(db *kv.DB) bool {
	err := db.View(func(txn kv.Reader) error {
		_, err := txn.Get(jobIndexBuiltKey)
		return err
	})
	return err == nil
}

// scanJobs calls fn with each job record of role (both roles when empty),
// in key order, without their inputs and outputs. Corrupt records are
// skipped: one must not hide the others.
func scanJobs(db *kv.DB, role string, fn func(JobRecord) error) error {
	prefix := []byte(jobPrefix)
	if role != "" {
		prefix = jobRolePrefix(role)
	}
	return db.View(func(txn kv.Reader) error {
		return txn.Scan(prefix, func(_, v []byte) error {
			var s jobSummary
			if err := json.Unmarshal(v, &s); err != nil || s.Version != jobVersion {
				return nil
			}
			return fn(s.JobRecord)
		})
	})
}

// indexKeys calls fn with the suffix of each key under prefix (what comes
// after it) and its value.
func indexKeys(db *kv.DB, prefix string, fn func(suffix string, val []byte) error) error {
	return db.View(func(txn kv.Reader) error {
		return txn.Scan([]byte(prefix), func(k, v []byte) error {
			return fn(string(k[len(prefix):]), v)
		})
	})
}

// jobRef names one job record.
type jobRef struct{ Role, JobID string }

// runningJobs lists the records that say running, from the index when it
// is built.
func runningJobs(db *kv.DB) ([]jobRef, error) {
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
func unsentSettles(db *kv.DB) (map[string]peer.ID, error) {
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
