package nodetest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tmpfs mounts a tmpfs of size bytes on a fresh directory and unmounts it
// when the test ends, also when it fails. It needs root, which CI has: a
// test that needs a real full disk fails rather than skips without it.
func Tmpfs(t testing.TB, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts a tmpfs to fill a real disk: run it as root (CI does)")
	}
	dir := filepath.Join(t.TempDir(), "tmpfs")
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size="+strconv.FormatInt(size, 10)+",mode=0700"))
	// Registered after t.TempDir's cleanup, so it runs before it.
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// FillDisk writes a file in dir until the disk is full to the last block
// and returns its path; removing it frees the space again.
func FillDisk(t testing.TB, dir string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "fill-*")
	require.NoError(t, err)
	defer f.Close()
	for _, chunk := range []int{1 << 20, 4 << 10, 512} {
		buf := make([]byte, chunk)
		for {
			if _, err := f.Write(buf); err != nil {
				require.True(t, errors.Is(err, syscall.ENOSPC), "fill %s: %v", dir, err)
				break
			}
		}
	}
	return f.Name()
}

// FreeBytes is the space available on dir's disk.
func FreeBytes(t testing.TB, dir string) uint64 {
	t.Helper()
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(dir, &st))
	return uint64(st.Bavail) * uint64(st.Bsize)
}
