package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	ds "github.com/ipfs/go-datastore"
	"github.com/stretchr/testify/require"
)

// allocatedBytes is how much disk path really takes.
func allocatedBytes(t *testing.T, path string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &st))
	return uint64(st.Blocks) * 512
}

// TestBadgerFilesHaveTheirBlocks: the patched ristretto (third_party)
// allocates every file Badger maps for writing, so none is sparse.
func TestBadgerFilesHaveTheirBlocks(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir, false)
	require.NoError(t, err)
	defer d.Close()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if ext != ".mem" && ext != ".vlog" && e.Name() != "DISCARD" {
			continue
		}
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		require.NoError(t, err)
		require.GreaterOrEqual(t, allocatedBytes(t, p), uint64(fi.Size()), "%s is sparse", e.Name())
		seen[ext] = true
	}
	require.True(t, seen[".mem"] && seen[".vlog"], "expected a write-ahead log and a value log in %v", entries)
}

// TestFullDiskIsAnErrorNotACrash fills a small tmpfs under a real Badger
// with synced writes, small ones to the write-ahead log and large ones to
// the value log, until the disk is full, and goes on writing. Upstream
// Badger dies of SIGBUS here (dgraph-io/badger#1801), or of a nil memtable
// after a failed rotation, either of which fails this test by killing it;
// with the patched ristretto and Badger (third_party) every write that
// needs room fails with ENOSPC, no acknowledged write is lost, reads keep
// working, and once another program frees space writes work again. It
// needs root, to mount.
func TestFullDiskIsAnErrorNotACrash(t *testing.T) {
	for _, tc := range []struct {
		name string
		// leave is the free space left once the filler is in.
		leave int64
		// large: one write in four is a value-log write.
		large bool
	}{
		{"write-ahead log rotation", 1 << 20, false},
		{"value log rotation", 1 << 20, true},
		{"memtable flush", 10 << 20, false},
		{"the last byte", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) { fillUnderBadger(t, tc.leave, tc.large) })
	}
}

func fillUnderBadger(t *testing.T, leave int64, large bool) {
	dir := t.TempDir()
	const size = 2*openFloor + 16<<20
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Fatalf("mount a tmpfs on %s (this test needs root): %v", dir, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })

	data := filepath.Join(dir, "data")
	d, err := Open(data, false)
	require.NoError(t, err)
	closed := false
	defer func() {
		if !closed {
			d.Close()
		}
	}()
	filler := filepath.Join(dir, "filler")
	free, err := statfsFree(dir)
	require.NoError(t, err)
	require.NoError(t, allocateFile(filler, int64(free)-leave), "fill the disk")

	ctx := context.Background()
	small, big := make([]byte, 4<<10), make([]byte, badgerValueThreshold+1)
	put := func(i int) error {
		v := small
		if large && i%4 == 0 {
			v = big
		}
		return d.Put(ctx, ds.NewKey(fmt.Sprintf("/k/%d", i)), v)
	}
	i, failed := 0, 0
	var werr error
	var written []int
	for ; i < 20_000 && failed < 50; i++ {
		if err := put(i); err != nil {
			werr, failed = err, failed+1
		} else {
			written = append(written, i)
		}
	}
	require.Error(t, werr, "the disk never filled")
	require.Truef(t, errors.Is(werr, syscall.ENOSPC) || strings.Contains(werr.Error(), "no space left"),
		"a full disk must fail the write with ENOSPC: %v", werr)

	// Every write that returned nil is there: a flush or compaction that
	// failed for want of room lost none (upstream's compaction dropped
	// the keys of a table it could not create).
	checkWritten := func(when string) {
		t.Helper()
		var lost []int
		for _, k := range written {
			if _, err := d.Get(ctx, ds.NewKey(fmt.Sprintf("/k/%d", k))); err != nil {
				lost = append(lost, k)
			}
		}
		if len(lost) > 0 {
			t.Fatalf("%s: %d of %d acknowledged writes lost, the first %v", when, len(lost), len(written), lost[:min(5, len(lost))])
		}
	}
	checkWritten("on the full disk")

	require.NoError(t, os.Remove(filler))
	require.Eventually(t, func() bool { return put(i) == nil }, 30*time.Second, 100*time.Millisecond,
		"with room again, writes work")

	// What the full disk left on disk opens again, whole: no torn
	// manifest, no table it lists missing.
	closed = true
	require.NoError(t, d.Close())
	d, err = Open(data, false)
	require.NoError(t, err, "reopen after the disk was full")
	closed = false
	checkWritten("after a reopen")
}
