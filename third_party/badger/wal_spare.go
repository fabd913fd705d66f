package badger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// swarmwage patch (see third_party/PATCHES.md): a memtable's write-ahead
// log is created sparse (ftruncate), so each commit's pwrite lands on
// blocks the file system has not allocated, and the commit's fdatasync
// must commit the file system's journal for that allocation: two
// dependent writes to the disk instead of one, and on a disk shared by
// several databases the journal is one queue for all of them. With
// Options.ZeroedWAL a log is taken from a spare file whose blocks are
// written (zeros) and synced ahead of use, so the fdatasync writes only the
// log's data. The spare for the next memtable is prepared in the
// background once this one is half full (so a node that writes little
// holds no second file), or at the rotation if it is not ready by then.

// walSpareName is the spare's file name. It does not end in memFileExt, so
// a spare left by a crash is never replayed as a memtable; Open removes it.
const walSpareName = "wal.spare"

// walSpareChunk is how much of the spare one write zeroes.
const walSpareChunk = 1 << 20

// walSpare holds at most one prepared log file.
type walSpare struct {
	path string
	size int64
	errf func(string, ...interface{})

	mu     sync.Mutex
	ready  bool       // path exists, size bytes written and synced
	done   chan error // non-nil while a preparation runs; closed when it ends
	closed bool
}

func newWALSpare(dir string, size int64, errf func(string, ...interface{})) (*walSpare, error) {
	s := &walSpare{path: filepath.Join(dir, walSpareName), size: size, errf: errf}
	if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove the write-ahead log spare left by the last run: %w", err)
	}
	return s, nil
}

// prepareSoon starts preparing the spare unless it is ready or on its way.
func (s *walSpare) prepareSoon() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ready && s.done == nil && !s.closed {
		s.startLocked()
	}
}

// take renames the prepared spare to path, preparing it first if none is
// ready (waiting for one being prepared).
// It reports false when there is no spare to take (preparing it failed,
// say on a full disk); the caller then creates the log the sparse way.
func (s *walSpare) take(path string) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	done := s.done
	if !s.ready && done == nil {
		done = s.startLocked()
	}
	s.mu.Unlock()
	if done != nil {
		<-done
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ready || s.closed {
		return false
	}
	if err := os.Rename(s.path, path); err != nil {
		s.errf("write-ahead log spare: rename to %s: %v", path, err)
		return false
	}
	// The rename is metadata the log's fdatasync does not carry: make the
	// log's name durable before any commit in it is acknowledged.
	if err := syncDir(filepath.Dir(path)); err != nil {
		s.errf("write-ahead log spare: sync the directory of %s: %v", path, err)
		if rerr := os.Remove(path); rerr != nil {
			s.errf("write-ahead log spare: remove %s: %v", path, rerr)
		}
		s.ready = false
		return false
	}
	s.ready = false
	return true
}

// startLocked starts preparing the spare; s.mu is held.
func (s *walSpare) startLocked() chan error {
	done := make(chan error)
	s.done = done
	go func() {
		err := s.prepare()
		s.mu.Lock()
		s.done = nil
		s.ready = err == nil && !s.closed
		if err != nil {
			s.errf("write-ahead log spare: %v", err)
		}
		s.mu.Unlock()
		close(done)
	}()
	return done
}

// prepare writes the spare's zeros and syncs them; on an error it leaves
// no file behind.
func (s *walSpare) prepare() (err error) {
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o666)
	if err != nil {
		return fmt.Errorf("create %s: %w", s.path, err)
	}
	defer func() {
		err = errors.Join(err, f.Close())
		if err != nil {
			_ = os.Remove(s.path)
		}
	}()
	zero := make([]byte, walSpareChunk)
	for off := int64(0); off < s.size; off += int64(len(zero)) {
		n := min(s.size-off, int64(len(zero)))
		if _, err := f.WriteAt(zero[:n], off); err != nil {
			return fmt.Errorf("zero %s: %w", s.path, err)
		}
	}
	if err := syncData(f); err != nil {
		return fmt.Errorf("sync %s: %w", s.path, err)
	}
	return nil
}

// close waits for a preparation and removes the spare.
func (s *walSpare) close() error {
	s.mu.Lock()
	s.closed = true
	done := s.done
	s.mu.Unlock()
	if done != nil {
		<-done
	}
	if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the write-ahead log spare: %w", err)
	}
	return nil
}
