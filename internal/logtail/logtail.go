// Package logtail reads a log file as 'tail' does: its last lines, and
// what is appended to it afterwards ('tail -F'), across truncation and
// replacement (a log rotated by renaming or copytruncate). It is what
// 'swarmwage logs [-f]' reads the daemon's --log-file with.
package logtail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

const (
	// block is how much Start reads at a time, backwards, to find the
	// start of the last lines.
	block = 64 << 10
	// DefaultPoll is how often Follow looks for new bytes: a log is read
	// by a person, a quarter second is soon enough, and a poll needs no
	// inotify (which does not see files on every filesystem).
	DefaultPoll = 250 * time.Millisecond
)

// Start is the offset in f where its last n lines begin (0 for n <= 0:
// the whole file). A last line without a newline counts as a line.
func Start(f *os.File, n int) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat log: %w", err)
	}
	size := st.Size()
	if n <= 0 || size == 0 {
		return 0, nil
	}
	buf := make([]byte, block)
	end := size
	// A final newline ends the last line; it does not start one.
	if b := make([]byte, 1); readAt(f, b, size-1) == nil && b[0] == '\n' {
		end = size - 1
	}
	seen := 0
	for pos := end; pos > 0; {
		m := int64(len(buf))
		if pos < m {
			m = pos
		}
		pos -= m
		chunk := buf[:m]
		if err := readAt(f, chunk, pos); err != nil {
			return 0, fmt.Errorf("read log: %w", err)
		}
		for i := len(chunk) - 1; i >= 0; i-- {
			if chunk[i] == '\n' {
				seen++
				if seen == n {
					return pos + int64(i) + 1, nil
				}
			}
		}
	}
	return 0, nil
}

func readAt(f *os.File, b []byte, off int64) error {
	_, err := f.ReadAt(b, off)
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// Copy writes f's bytes from offset off to its end to w, and returns the
// offset it stopped at.
func Copy(w io.Writer, f *os.File, off int64) (int64, error) {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return off, fmt.Errorf("seek log: %w", err)
	}
	n, err := io.Copy(w, f)
	return off + n, err
}

// Follow writes what is appended to the file at path to w from offset off
// of the file f (open on path), until ctx ends; then it returns nil. When
// the file shrinks (truncated) it starts again at its start; when path
// names another file (the log was rotated, or removed and made again) it
// finishes the old one and reads the new one from its start; while path is
// missing it waits for it. f is closed when Follow returns.
func Follow(ctx context.Context, w io.Writer, path string, f *os.File, off int64, poll time.Duration) error {
	if poll <= 0 {
		poll = DefaultPoll
	}
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		if f != nil {
			cur, err := f.Stat()
			if err != nil {
				return fmt.Errorf("stat log: %w", err)
			}
			if cur.Size() < off {
				off = 0 // truncated
			}
			if off, err = Copy(w, f, off); err != nil {
				return err
			}
			if named, err := os.Stat(path); err == nil && !os.SameFile(cur, named) {
				// Replaced: what was written to the old file before the
				// rename is copied above; the new one from its start.
				f.Close()
				f, off = nil, 0
			}
		}
		if f == nil {
			if nf, err := os.Open(path); err == nil {
				f = nf
				continue
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// Lines splits b into lines without their newlines.
func Lines(b []byte) []string {
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) == 0 {
		return []string{}
	}
	parts := bytes.Split(b, []byte("\n"))
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}
