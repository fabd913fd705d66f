package faults

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// tmpfsSize is the full-disk test's tmpfs: room for a fresh repo
	// (Badger's files are sparse) and a few jobs.
	tmpfsSize = 32 << 20
	// diskLeft is what the filler file leaves free: less than one of the
	// dishonest seller's answers.
	diskLeft = 1 << 20
	// bigPad is the dishonest seller's padding in the full-disk test.
	bigPad = 4 << 20
)

// TestDiskFull puts one daemon's repo on a small tmpfs, fills it while
// jobs with large outputs arrive, then frees the space. The daemon must
// not crash, reads must keep working, no decision may be lost, and once
// there is space again hires work and the ledgers converge.
func TestDiskFull(t *testing.T) {
	var sum tally
	var wg sync.WaitGroup
	for _, victim := range []string{"buyer", "liar"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(victim, func(t *testing.T) { runDiskFull(t, victim, &sum) })
		}()
	}
	wg.Wait()
	t.Logf("summary: %s", &sum)
}

func runDiskFull(t *testing.T, victim string, sum *tally) {
	mnt := mountTmpfs(t, tmpfsSize)
	c := newCluster(t, clusterConfig{honest: true, liar: true, liarPad: bigPad, sum: sum,
		dirs: map[string]string{victim: filepath.Join(mnt, "repo")}})
	d := c.byName(victim)
	if h := c.hire(c.honest, hireTimeout); h.info.Outcome != "released" {
		t.Fatalf("before the disk filled up: %s", h)
	}

	filler := fill(t, mnt, diskLeft)
	c.injected(1)
	for range 3 {
		t.Logf("disk full: %s", c.hire(c.liar, hireTimeout))
		t.Logf("disk full: %s", c.hire(c.honest, hireTimeout))
	}
	crashed := !d.running()
	if crashed {
		t.Errorf("daemon %s crashed on a full disk: %s: %s", d.name, describeExit(d.err()), d.crashReason())
	}
	if r := d.run(cliTimeout, "wallet", "balance", "--json"); !r.ok() {
		t.Errorf("reads must keep working on a full disk: %s", r)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if !d.running() {
		d.start(t, "")
		c.waitConnected(t)
	}
	if h := c.hire(c.honest, hireTimeout); h.info.Outcome != "released" {
		t.Errorf("after space was freed, hires must work again: %s", h)
	}
	c.check(t, c.converge(time.Now()))
}

// mountTmpfs mounts a tmpfs of size bytes on a temp dir and unmounts it
// when the test ends, failed or not. It needs root (CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Fatalf("mount a %d MiB tmpfs on %s (this test needs root): %v", size>>20, dir, err)
	}
	// Registered before the cluster's, so it runs after the daemons are
	// killed.
	t.Cleanup(func() {
		err := syscall.Unmount(dir, 0)
		if errors.Is(err, syscall.EBUSY) {
			err = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
		if err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file into dir until only left bytes are free and returns
// its path.
func fill(t *testing.T, dir string, left int64) string {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for n := free - left; n > 0; n -= int64(len(buf)) {
		if _, err := f.Write(buf[:min(int64(len(buf)), n)]); err != nil {
			t.Fatalf("fill %s: %v", dir, err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	t.Logf("filled %s: %d KiB left", dir, int64(st.Bavail)*st.Bsize>>10)
	return path
}
