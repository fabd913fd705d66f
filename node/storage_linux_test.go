package node

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
	d, err := openDatastore(dir, false)
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
// needs room fails with ENOSPC, reads keep working, and once another
// program frees space writes work again. It needs root, to mount.
func TestFullDiskIsAnErrorNotACrash(t *testing.T) {
	for _, tc := range []struct {
		name string
		// leave is the free space left once the filler is in.
		leave int64
		// every4th: one write in four is a value-log write.
		large bool
	}{
		{"write-ahead log rotation", 1 << 20, false},
		{"value log rotation", 1 << 20, true},
		{"memtable flush", 10 << 20, false},
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

	d, err := openDatastore(filepath.Join(dir, "data"), false)
	require.NoError(t, err)
	defer d.Close()
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
	for ; i < 20_000 && failed < 50; i++ {
		if err := put(i); err != nil {
			werr, failed = err, failed+1
		}
	}
	require.Error(t, werr, "the disk never filled")
	require.Truef(t, errors.Is(werr, syscall.ENOSPC) || strings.Contains(werr.Error(), "no space left"),
		"a full disk must fail the write with ENOSPC: %v", werr)

	v, err := d.Get(ctx, ds.NewKey("/k/1"))
	require.NoError(t, err, "reads keep working on a full disk")
	require.Len(t, v, len(small))

	require.NoError(t, os.Remove(filler))
	require.Eventually(t, func() bool { return put(i) == nil }, 30*time.Second, 100*time.Millisecond,
		"with room again, writes work")
}
