package escrow

// Spend caps: limits on what the buyer side locks in a scope over a period,
// checked inside the Lock transaction. Because every escrow change runs one
// after the other (commit.go), concurrent hires from any number of clients
// (two 'swarmwage mcp' processes on one daemon) cannot together pass a cap:
// each Lock sees the locks committed or batched before it.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
)

const (
	// maxSpendCaps caps the caps of one lock: each costs a scan.
	maxSpendCaps = 8
	// maxScopeLen caps a scope name; scopes appear in keys.
	maxScopeLen = 128
	// maxCapNameLen caps a cap's name; it only appears in errors.
	maxCapNameLen = 64
)

// ErrSpendCap is returned (as a *SpendCapError) by Lock when the lock would
// take what was locked under a SpendCap past its limit.
var ErrSpendCap = errors.New("spend cap reached")

// SpendCap limits what this node locks as a buyer: the locks of Scope
// created at or after Since that were not refunded, plus the new lock, must
// come to at most Limit. A lock with caps counts against them atomically
// with the hold, so concurrent locks never together pass a cap.
type SpendCap struct {
	// Name says which cap this is in errors ("per-day", "per-session").
	Name string
	// Scope is "" for every buyer lock of the node (a node-wide cap, such
	// as a per-day one), else a name (an MCP session ID) that tags this
	// lock: only locks made with a cap of the same Scope count.
	Scope string
	// Since is the start of the period: older locks do not count. Zero
	// counts every lock of the scope.
	Since time.Time
	// Limit is the most the scope may hold locked since Since, in
	// micro-credits. 0 means no limit: the lock is only tagged with
	// Scope, so Spent can sum the scope later.
	Limit int64
}

// SpendCapError is a lock refused by a SpendCap. It wraps ErrSpendCap.
type SpendCapError struct {
	Cap    string    // the cap's Name
	Scope  string    // the cap's Scope ("" for node-wide)
	Since  time.Time // the cap's Since
	Limit  int64     // the cap's Limit
	Used   int64     // locked under the cap since Since and not refunded
	Left   int64     // Limit - Used, at least 0
	Amount int64     // what the refused lock asked for
}

var _ error = (*SpendCapError)(nil)

func (e *SpendCapError) Error() string {
	return fmt.Sprintf("%s: the %s cap of %s has %s left (%s locked since %s), the lock needs %s",
		ErrSpendCap, e.Cap, FormatAmount(e.Limit), FormatAmount(e.Left), FormatAmount(e.Used), wireTime(e.Since), FormatAmount(e.Amount))
}

// Unwrap makes errors.Is(err, ErrSpendCap) hold.
func (e *SpendCapError) Unwrap() error { return ErrSpendCap }

// checkSpendCaps validates caps.
func checkSpendCaps(caps []SpendCap) error {
	if len(caps) > maxSpendCaps {
		return fmt.Errorf("%w: %d spend caps, at most %d", ErrInvalidMessage, len(caps), maxSpendCaps)
	}
	for _, c := range caps {
		if c.Name == "" || len(c.Name) > maxCapNameLen {
			return fmt.Errorf("%w: spend cap name %q: want 1 to %d bytes", ErrInvalidMessage, truncate(c.Name), maxCapNameLen)
		}
		if len(c.Scope) > maxScopeLen {
			return fmt.Errorf("%w: spend cap %s: scope over %d bytes", ErrInvalidMessage, c.Name, maxScopeLen)
		}
		if c.Limit < 0 {
			return fmt.Errorf("%w: spend cap %s: limit %s is negative", ErrInvalidMessage, c.Name, FormatAmount(c.Limit))
		}
	}
	return nil
}

// lockSpend is Lock's part of spend caps, inside its transaction, for a
// new buyer lock of amount for jobID created at now: it refuses the lock if
// a cap would pass its limit (a *SpendCapError), else writes the lock's
// created-at entry and one entry per scope it is made under.
func lockSpend(txn *tx, caps []SpendCap, jobID string, amount int64, now time.Time) error {
	if err := checkSpendCaps(caps); err != nil {
		return err
	}
	for _, c := range caps {
		if c.Limit == 0 {
			continue
		}
		used, err := spentSince(txn, c.Scope, c.Since)
		if err != nil {
			return err
		}
		if used > c.Limit || amount > c.Limit-used {
			return &SpendCapError{Cap: c.Name, Scope: c.Scope, Since: c.Since, Limit: c.Limit, Used: used, Left: max(0, c.Limit-used), Amount: amount}
		}
	}
	if err := txn.set(createdKey(now, jobID), nil); err != nil {
		return err
	}
	for _, c := range caps {
		if c.Scope != "" {
			if err := txn.set(scopeKey(c.Scope, now, jobID), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// Spent returns what this node locked as a buyer since since and did not
// get refunded: every buyer lock when scope is "", else the locks made with
// a SpendCap of that scope. It reads the records created since then (found
// by the created-at or scope index), never every record.
func (e *Escrow) Spent(ctx context.Context, scope string, since time.Time) (int64, error) {
	if len(scope) > maxScopeLen {
		return 0, fmt.Errorf("spent: %w: scope over %d bytes", ErrInvalidMessage, maxScopeLen)
	}
	var out int64
	err := e.view(ctx, func(txn *tx) error {
		var err error
		out, err = spentSince(txn, scope, since)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("spent since %s: %w", wireTime(since), err)
	}
	return out, nil
}

// spentSince sums the buyer locks of scope created at or after since that
// were not refunded.
func spentSince(txn *tx, scope string, since time.Time) (int64, error) {
	prefix := []byte(createdPrefix)
	parse := parseCreatedKey
	if scope != "" {
		prefix = scopeKeyPrefix(scope)
		parse = func(k []byte) (time.Time, string, error) {
			_, at, id, err := parseScopeKey(k)
			return at, id, err
		}
	}
	start := appendMillis(append([]byte(nil), prefix...), since)
	var sum int64
	err := scanKeys(txn, prefix, start, func(k []byte) error {
		_, id, err := parse(k)
		if err != nil {
			return err
		}
		r, err := loadRecord(txn, RoleBuyer, id)
		if errors.Is(err, ErrNotFound) {
			return nil // an entry whose record is gone counts nothing
		}
		if err != nil {
			return err
		}
		if r.State == StateRefunded || r.CreatedAt.Before(since) {
			return nil
		}
		if r.Amount > 0 {
			sum = addSat(sum, r.Amount)
		}
		return nil
	})
	return sum, err
}

// addSat adds two non-negative amounts, saturating at the int64 maximum.
func addSat(a, b int64) int64 {
	if a > (1<<63-1)-b {
		return 1<<63 - 1
	}
	return a + b
}

// scanKeys calls fn, in key order, for every key under prefix at or after
// start that txn sees: those committed, overlaid with the writes of the
// changes before this one in its batch and this change's own. (A Badger
// iterator alone would miss the batch's writes, and two concurrent locks
// in one batch would not see each other.) It collects the keys first: a
// read-write Badger transaction allows one iterator at a time, and fn reads.
func scanKeys(txn *tx, prefix, start []byte, fn func(k []byte) error) error {
	txn.scanned = true
	seen := map[string]bool{}
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = prefix
	it := txn.txn.NewIterator(opts)
	for it.Seek(start); it.ValidForPrefix(prefix); it.Next() {
		seen[string(it.Item().KeyCopy(nil))] = true
	}
	it.Close()
	for _, m := range []map[string]write{txn.batch, txn.local} { // later ones win
		for k, w := range m {
			if strings.HasPrefix(k, string(prefix)) && k >= string(start) {
				seen[k] = !w.del
			}
		}
	}
	keys := make([]string, 0, len(seen))
	for k, live := range seen {
		if live {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := fn([]byte(k)); err != nil {
			return err
		}
	}
	return nil
}

// indexCreated makes the created-at index match the buyer records, at
// open: a store written before the index existed (or by a release that did
// not write it) gets the missing entries, and entries of records that are
// gone are dropped. It compares counts with a keys-only scan first, so an
// up-to-date store costs one pass over keys and no values.
func (e *Escrow) indexCreated() error {
	recordPrefix := []byte(jobPrefix + string(RoleBuyer) + "/")
	var nRecords, nEntries int
	err := e.db.View(func(txn *badger.Txn) error {
		nRecords = countKeys(txn, recordPrefix)
		nEntries = countKeys(txn, []byte(createdPrefix))
		return nil
	})
	if err != nil {
		return fmt.Errorf("index escrow records: %w", err)
	}
	if nRecords == nEntries {
		return nil
	}
	want := map[string]bool{}
	var stale [][]byte
	err = e.view(context.Background(), func(txn *tx) error {
		if err := scanRecords(txn, RoleBuyer, func(r *storedRecord) error {
			want[string(createdKey(r.CreatedAt, r.JobID))] = true
			return nil
		}); err != nil {
			return err
		}
		return scanKeys(txn, []byte(createdPrefix), []byte(createdPrefix), func(k []byte) error {
			if want[string(k)] {
				delete(want, string(k))
			} else {
				stale = append(stale, k)
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("index escrow records: %w", err)
	}
	wb := e.db.NewWriteBatch()
	defer wb.Cancel()
	for k := range want {
		if err := wb.Set([]byte(k), nil); err != nil {
			return fmt.Errorf("index escrow records: %w", err)
		}
	}
	for _, k := range stale {
		if err := wb.Delete(k); err != nil {
			return fmt.Errorf("index escrow records: %w", err)
		}
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("index escrow records: %w", err)
	}
	e.log.Info("built the created-at index of escrow records", "added", len(want), "dropped", len(stale))
	return nil
}

func countKeys(txn *badger.Txn, prefix []byte) int {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = prefix
	it := txn.NewIterator(opts)
	defer it.Close()
	n := 0
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		n++
	}
	return n
}
