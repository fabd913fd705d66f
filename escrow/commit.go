package escrow

import (
	"bytes"
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
	// reads, when not nil, records what each key held when the change
	// first read it from the store (prepare); scanned that it read a
	// range, which reads cannot replay.
	reads   map[string]readValue
	scanned bool
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
		t.read(key, nil, false)
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	v, err := item.ValueCopy(nil)
	if err == nil {
		t.read(key, v, true)
	}
	return v, err
}

// read records, while t records its reads, what key held when it was
// first read.
func (t *tx) read(key, val []byte, found bool) {
	if t.reads == nil {
		return
	}
	if _, ok := t.reads[string(key)]; !ok {
		t.reads[string(key)] = readValue{val: val, found: found}
	}
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

// readValue is what a key held when a prepared change read it.
type readValue struct {
	val   []byte
	found bool
}

// prepared is a change worked out ahead of its batch, in a view: the
// keys it read with what they held, and its writes. A change is a
// function of what it reads (it may run more than once and only sets its
// results), so in its batch the writes stand as they are if every key it
// read still holds the same; otherwise it runs again there. Its results
// are those of the run whose writes are committed.
type prepared struct {
	reads  map[string]readValue
	writes map[string]write
}

// prepare runs fn in a view, recording its reads, for a commit to come
// (apply). It returns nil, and the commit then just runs fn, if fn failed
// or read a range (scanKeys): a range's reads are not recorded. fn must
// read the store only through its tx (get, has, scanKeys), never through
// a Badger iterator of its own.
func (e *Escrow) prepare(ctx context.Context, fn func(*tx) error) *prepared {
	var p *prepared
	_ = e.view(ctx, func(t *tx) error {
		t.local, t.reads = map[string]write{}, map[string]readValue{}
		if fn(t) == nil && !t.scanned {
			p = &prepared{reads: t.reads, writes: t.local}
		}
		return nil
	})
	return p
}

// apply is fn for a batch: p's writes if what p read still holds, else
// fn run anew.
func (p *prepared) apply(fn func(*tx) error) func(*tx) error {
	if p == nil {
		return fn
	}
	return func(t *tx) error {
		if !p.holds(t) {
			return fn(t)
		}
		for k, w := range p.writes {
			t.local[k] = w
		}
		return nil
	}
}

// holds reports whether every key p read holds what it held then, as t
// sees it (the batch's earlier writes included).
func (p *prepared) holds(t *tx) bool {
	for k, r := range p.reads {
		v, err := t.get([]byte(k))
		switch {
		case errors.Is(err, ErrNotFound):
			if r.found {
				return false
			}
		case err != nil, !r.found, !bytes.Equal(v, r.val):
			return false
		}
	}
	return true
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

// commitIdle reports whether no change is being committed or waits to be.
func (e *Escrow) commitIdle() bool {
	c := &e.commit
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.leading && len(c.queue) == 0
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
