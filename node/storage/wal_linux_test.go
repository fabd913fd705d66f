//go:build linux

package storage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// memFiles returns the memtable write-ahead logs in dir.
func memFiles(t *testing.T, dir string) []string {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, "*.mem"))
	if err != nil {
		t.Fatal(err)
	}
	return logs
}

// TestWriteAheadLogsAreWrittenAhead: with WithZeroedWAL (Open sets it),
// the memtable's log the first commit goes to and the one after a
// rotation are files whose blocks were written before use; a spare left
// by a crash, with bytes that look like log entries, is neither replayed
// nor taken as it is; and what was committed reads back after a reopen.
func TestWriteAheadLogsAreWrittenAhead(t *testing.T) {
	dir := t.TempDir()
	// A leftover spare from a "crashed" run: garbage of the wrong size.
	leftover := bytes.Repeat([]byte("not a log entry;"), 4096)
	if err := os.WriteFile(filepath.Join(dir, "wal.spare"), leftover, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Open(dir, false)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	logs := memFiles(t, dir)
	if len(logs) != 1 || !writtenAhead(t, logs[0]) {
		t.Fatalf("after open: logs %v, want one with its blocks written", logs)
	}
	first := logs[0]

	// Write past one memtable, so Badger rotates to the next log.
	value := bytes.Repeat([]byte("v"), 16<<10)
	n := 2 * badgerMemTable / len(value)
	for i := range n {
		err := d.DB.Update(func(txn *badger.Txn) error {
			return txn.Set([]byte(fmt.Sprintf("k/%06d", i)), value)
		})
		if err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	logs = memFiles(t, dir)
	var rotated bool
	for _, l := range logs {
		if l == first {
			continue
		}
		rotated = true
		if !writtenAhead(t, l) {
			t.Errorf("log %s after the rotation has unwritten blocks", l)
		}
	}
	if !rotated {
		t.Fatalf("no rotation after %d commits of %d bytes: logs %v", n, len(value), logs)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "wal.spare")); !os.IsNotExist(err) {
		t.Errorf("the spare outlives Close: %v", err)
	}

	d, err = Open(dir, false)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer d.Close()
	err = d.DB.View(func(txn *badger.Txn) error {
		for i := range n {
			it, err := txn.Get([]byte(fmt.Sprintf("k/%06d", i)))
			if err != nil {
				return fmt.Errorf("key %d: %w", i, err)
			}
			v, err := it.ValueCopy(nil)
			if err != nil {
				return err
			}
			if !bytes.Equal(v, value) {
				return fmt.Errorf("key %d: %d bytes back, want %d", i, len(v), len(value))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range memFiles(t, dir) {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("not a log entry")) {
			t.Errorf("the leftover spare's bytes are in log %s", strings.TrimPrefix(l, dir))
		}
	}
}
