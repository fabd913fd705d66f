package escrow

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/swarmwage/swarmwage/internal/kv"
)

// maxBatchOps caps how many changes share one Badger commit.
const maxBatchOps = 64

// tx is what one escrow change reads and writes: a Badger transaction seen
// through the writes of the changes committed before it in the same batch,
// plus its own. A change that fails leaves no write behind.
type tx struct {
	txn   *badger.Txn
	batch map[string]write // writes of earlier changes in the batch; nil in a view
	local map[string]write // this change's writes; nil in a view
}

type write struct {
	val []byte
	del bool
}

// get returns a copy of the value under key, or ErrNotFound.
func (t *tx) get(key []byte) ([]byte, error) {
	for _, m := range []map[string]write{t.local, t.batch} {
		if w, ok := m[string(key)]; ok {
			if w.del {
				return nil, ErrNotFound
			}
			return w.val, nil
		}
	}
	item, err := t.txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return item.ValueCopy(nil)
}

// has reports whether key has a value.
func (t *tx) has(key []byte) (bool, error) {
	_, err := t.get(key)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (t *tx) set(key, val []byte) error {
	if t.local == nil {
		return fmt.Errorf("write %s in a read-only transaction", key)
	}
	if val == nil {
		val = []byte{}
	}
	t.local[string(key)] = write{val: val}
	return nil
}

func (t *tx) delete(key []byte) error {
	if t.local == nil {
		return fmt.Errorf("delete %s in a read-only transaction", key)
	}
	t.local[string(key)] = write{del: true}
	return nil
}

// Also is more of the caller's state, written in the transaction of an
// escrow change (the market's job record with the lock that creates the
// job): it commits only with the change, and the change only with it, in
// the change's one fsync. It runs after the change's own writes, only when
// the change did what was asked (see each method), and may run more than
// once (after a lost conflict), so it must only set its results.
type Also func(kv.Txn) error

// withAlso is fn followed by also, when run(t) says fn made its change.
func withAlso(fn func(*tx) error, run func() bool, also []Also) func(*tx) error {
	if len(also) == 0 {
		return fn
	}
	return func(t *tx) error {
		if err := fn(t); err != nil || !run() {
			return err
		}
		for _, a := range also {
			if err := a(t); err != nil {
				return err
			}
		}
		return nil
	}
}

func always() bool { return true }

// alsoOf is a as a list: none when a is nil.
func alsoOf(a Also) []Also {
	if a == nil {
		return nil
	}
	return []Also{a}
}

// pendingOp is one change waiting for its batch to commit.
type pendingOp struct {
	fn   func(*tx) error
	done chan error    // the change's result, once committed
	lead chan struct{} // closed when this change must lead the next batch
}

// committer groups concurrent changes into one Badger commit (one fsync
// with SyncWrites). The first change to arrive leads: it commits everything
// queued, then hands the lead to the first change queued meanwhile. Changes
// in a batch run one after the other and see each other's writes, so they
// never conflict on the account key that almost all of them touch.
type committer struct {
	mu      sync.Mutex
	queue   []*pendingOp
	leading bool
}

// update runs fn as one change: it commits atomically with its batch, and
// its writes are discarded if it returns an error. fn may run more than
// once (the batch is retried on a lost conflict with a writer outside this
// Escrow) and must only set its results.
func (e *Escrow) update(ctx context.Context, fn func(*tx) error) error {
	return e.updateWithin(ctx, 0, fn)
}

// updateWithin is update for a change that may wait up to wait for
// another change to lead a batch it joins, so that it costs no fsync of
// its own; it leads one itself when the wait ends. It returns, as update
// does, once the change is durable. For a change nobody waits on: the
// seller's copy of a settle that the buyer has decided already.
func (e *Escrow) updateWithin(ctx context.Context, wait time.Duration, fn func(*tx) error) error {
	e.closeMu.RLock()
	defer e.closeMu.RUnlock()
	if e.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	op := &pendingOp{fn: fn, done: make(chan error, 1), lead: make(chan struct{})}
	c := &e.commit
	c.mu.Lock()
	c.queue = append(c.queue, op)
	if !c.leading && wait <= 0 {
		c.leading = true
		c.mu.Unlock()
		return e.lead(op)
	}
	c.mu.Unlock()
	var waited <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		waited = t.C
	}
	for {
		select {
		case err := <-op.done:
			return err
		case <-op.lead:
			return e.lead(op)
		case <-waited:
			waited = nil
			c.mu.Lock()
			if !c.leading {
				c.leading = true
				c.mu.Unlock()
				return e.lead(op)
			}
			c.mu.Unlock() // a leader is committing: it takes op, or hands op the lead
		}
	}
}

// lead commits queued batches until me is done, then passes the lead on.
func (e *Escrow) lead(me *pendingOp) error {
	c := &e.commit
	for {
		c.mu.Lock()
		n := min(len(c.queue), maxBatchOps)
		batch := c.queue[:n:n]
		c.queue = append([]*pendingOp(nil), c.queue[n:]...)
		c.mu.Unlock()
		e.commitBatch(batch)
		select {
		case err := <-me.done:
			c.mu.Lock()
			if len(c.queue) > 0 {
				close(c.queue[0].lead)
			} else {
				c.leading = false
			}
			c.mu.Unlock()
			return err
		default:
		}
	}
}

// commitBatch runs the changes of batch in one transaction and reports each
// one's result.
func (e *Escrow) commitBatch(batch []*pendingOp) {
	results := make([]error, len(batch))
	var err error
	for attempt := 0; ; attempt++ {
		err = e.db.Update(func(txn *badger.Txn) error {
			shared := map[string]write{}
			for i, op := range batch {
				t := &tx{txn: txn, batch: shared, local: map[string]write{}}
				results[i] = op.fn(t)
				if results[i] == nil {
					for k, w := range t.local {
						shared[k] = w
					}
				}
			}
			for k, w := range shared {
				var err error
				if w.del {
					err = txn.Delete([]byte(k))
				} else {
					err = txn.Set([]byte(k), w.val)
				}
				if err != nil {
					return fmt.Errorf("write %s: %w", k, err)
				}
			}
			return nil
		})
		if errors.Is(err, badger.ErrConflict) && attempt < maxConflictRetries {
			continue
		}
		break
	}
	if errors.Is(err, badger.ErrTxnTooBig) && len(batch) > 1 {
		h := len(batch) / 2
		e.commitBatch(batch[:h])
		e.commitBatch(batch[h:])
		return
	}
	for i, op := range batch {
		if err != nil {
			op.done <- err
		} else {
			op.done <- results[i]
		}
	}
}

// view runs fn in one read-only transaction.
func (e *Escrow) view(ctx context.Context, fn func(*tx) error) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return e.db.View(func(txn *badger.Txn) error { return fn(&tx{txn: txn}) })
}
