package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// ErrTaskNotFound is returned for a task ID the gateway has no task of.
var ErrTaskNotFound = errors.New("task not found")

// TaskRecord is a task as stored: the A2A task and what the gateway needs
// to follow its hire after a restart.
type TaskRecord struct {
	Task Task `json:"task"`
	// JobID is the hire's job once its price is held; empty before.
	JobID string `json:"job_id,omitempty"`
	// Capability is the capability hired.
	Capability string    `json:"capability,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// TaskFilter selects tasks for List.
type TaskFilter struct {
	ContextID string // "" for every context
	State     string // "" for every state
	// After is the ID of the last task of the previous page: the page
	// starts at the next older task.
	After string
	Limit int
}

// Store keeps tasks across restarts. Implementations are safe for
// concurrent use.
type Store interface {
	// Put writes rec, replacing the task of the same ID; it is durable
	// when Put returns.
	Put(ctx context.Context, rec TaskRecord) error
	// Get returns the task of id, or ErrTaskNotFound.
	Get(ctx context.Context, id string) (TaskRecord, error)
	// List returns the tasks f selects, newest first, whether more follow
	// the page, and how many tasks f selects in all (counted up to
	// maxListScan records).
	List(ctx context.Context, f TaskFilter) (recs []TaskRecord, more bool, total int, err error)
	// Open returns the tasks not in a terminal state, oldest first.
	Open(ctx context.Context) ([]TaskRecord, error)
}

// storeVersion is the schema version every stored task begins with.
const storeVersion = 1

// maxListScan caps the records one List reads, so that a filter few tasks
// match does not read the whole history in one request.
const maxListScan = 10000

// storedTask is a TaskRecord as the database holds it.
type storedTask struct {
	V int `json:"v"`
	TaskRecord
}

// BadgerStore is a Store in the node's Badger database, under "gateway/".
type BadgerStore struct {
	db *badger.DB
}

var _ Store = (*BadgerStore)(nil)

// NewBadgerStore stores tasks in db.
func NewBadgerStore(db *badger.DB) *BadgerStore { return &BadgerStore{db: db} }

// Put implements Store.
func (s *BadgerStore) Put(ctx context.Context, rec TaskRecord) error {
	if !validTaskID(rec.Task.ID) {
		return fmt.Errorf("store task: %q is not a task ID", rec.Task.ID)
	}
	b, err := json.Marshal(storedTask{V: storeVersion, TaskRecord: rec})
	if err != nil {
		return fmt.Errorf("store task %s: %w", rec.Task.ID, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(taskKey(rec.Task.ID), b) }); err != nil {
		return fmt.Errorf("store task %s: %w", rec.Task.ID, err)
	}
	return nil
}

// Get implements Store.
func (s *BadgerStore) Get(ctx context.Context, id string) (TaskRecord, error) {
	if !validTaskID(id) {
		return TaskRecord{}, fmt.Errorf("%w: %q is not a task ID of this gateway", ErrTaskNotFound, truncate(id))
	}
	var rec TaskRecord
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(taskKey(id))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return fmt.Errorf("%w: %s", ErrTaskNotFound, id)
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			rec, err = decodeStored(v)
			return err
		})
	})
	if err != nil {
		return TaskRecord{}, fmt.Errorf("get task: %w", err)
	}
	return rec, nil
}

// List implements Store.
func (s *BadgerStore) List(ctx context.Context, f TaskFilter) ([]TaskRecord, bool, int, error) {
	if f.Limit <= 0 {
		f.Limit = defaultPageSize
	}
	var out []TaskRecord
	more, total, skipped := false, 0, f.After != ""
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Reverse = true
		opts.Prefix = []byte(taskPrefix)
		it := txn.NewIterator(opts)
		defer it.Close()
		scanned := 0
		// Every task is counted for the total; the page starts after f.After.
		for it.Seek(append([]byte(taskPrefix), 0xff)); it.ValidForPrefix([]byte(taskPrefix)); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			if scanned++; scanned > maxListScan {
				more = more || len(out) == f.Limit
				return nil
			}
			id, err := parseTaskKey(it.Item().Key())
			if err != nil {
				continue
			}
			var rec TaskRecord
			if err := it.Item().Value(func(v []byte) error {
				rec, err = decodeStored(v)
				return err
			}); err != nil {
				continue // a corrupt record is skipped, not fatal to the list
			}
			if (f.ContextID != "" && rec.Task.ContextID != f.ContextID) || (f.State != "" && rec.Task.Status.State != f.State) {
				if id == f.After {
					skipped = false
				}
				continue
			}
			total++
			switch {
			case skipped:
				if id == f.After {
					skipped = false
				} else if id < f.After {
					// The cursor's own task is gone: start at the next older one.
					skipped = false
					out = append(out, rec)
				}
			case len(out) < f.Limit:
				out = append(out, rec)
			default:
				more = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, 0, fmt.Errorf("list tasks: %w", err)
	}
	return out, more, total, nil
}

// Open implements Store.
func (s *BadgerStore) Open(ctx context.Context) ([]TaskRecord, error) {
	var out []TaskRecord
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = []byte(taskPrefix)
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			var rec TaskRecord
			err := it.Item().Value(func(v []byte) error {
				var err error
				rec, err = decodeStored(v)
				return err
			})
			if err == nil && !terminal(rec.Task.Status.State) {
				out = append(out, rec)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("open tasks: %w", err)
	}
	return out, nil
}

// decodeStored decodes a stored task, refusing a newer schema.
func decodeStored(v []byte) (TaskRecord, error) {
	var st storedTask
	if err := json.Unmarshal(v, &st); err != nil {
		return TaskRecord{}, fmt.Errorf("decode task: %w", err)
	}
	if st.V != storeVersion {
		return TaskRecord{}, fmt.Errorf("decode task: schema version %d, this binary reads %d: upgrade swarmwage", st.V, storeVersion)
	}
	return st.TaskRecord, nil
}

// truncate shortens s for an error message.
func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
