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
	// (Badger allocates its logs when it makes them: a value log of 80 MiB
	// and a write-ahead log of 8 MiB), the node's reserves and its
	// free-space watermark ([storage] min_free, 128 MiB by default), so
	// that hires work before the filler comes.
	tmpfsSize = 256 << 20
	// diskLeft is what the filler file leaves free: less than one of the
	// dishonest seller's answers.
	diskLeft = 1 << 20
	// bigPad is the dishonest seller's padding in the full-disk test.
	bigPad = 4 << 20
	// holdPoint holds the dishonest seller's jobs open after it accepted
	// them, so that the disk can fill while one runs.
	holdPoint = "seller/after-accept-lock"
)

// TestDiskFull puts one daemon's repo on a small tmpfs and fills it: first
// before hires start, then while a job with a large output is running.
// The daemon must not crash, reads must keep working, no decision may be
// lost, and once there is space again hires work and the ledgers converge.
func TestDiskFull(t *testing.T) {
	t.Parallel()
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
	// The dishonest seller holds each job a moment after accepting it, so
	// that the disk can fill while the job runs.
	c := newCluster(t, clusterConfig{honest: true, liar: true, liarPad: bigPad, sum: sum,
		dirs:       map[string]string{victim: filepath.Join(mnt, "repo")},
		failpoints: map[string]string{"liar": fmt.Sprintf("%s=sleep(%d)", holdPoint, holdOpen.Milliseconds())}})
	d := c.byName(victim)
	if h := c.hire(c.honest, hireTimeout); h.info.Outcome != "released" {
		t.Fatalf("before the disk filled up: %s", h)
	}

	// Full before the hires.
	filler := fill(t, mnt, diskLeft)
	c.injected(1)
	for range 3 {
		t.Logf("disk full: %s", c.hire(c.liar, hireTimeout))
		t.Logf("disk full: %s", c.hire(c.honest, hireTimeout))
	}
	c.checkDiskFull(t, d)
	c.freeDisk(t, d, filler)

	// Full while a job with a large output runs.
	hits := c.liar.hits(holdPoint)
	hire := c.hireAsync(c.liar, hireTimeout)
	c.liar.waitHit(t, holdPoint, hits)
	filler = fill(t, mnt, diskLeft)
	c.injected(1)
	t.Logf("disk filled during the job: %s", <-hire)
	c.checkDiskFull(t, d)
	c.freeDisk(t, d, filler)

	// Full to the last byte while a job runs, as by a program that wants
	// all of it: the reserve the node releases is taken too.
	waitReserve(t, d)
	hits = c.liar.hits(holdPoint)
	hire = c.hireAsync(c.liar, hireTimeout)
	c.liar.waitHit(t, holdPoint, hits)
	fillers := fillToTheLastByte(t, mnt, d)
	c.injected(1)
	t.Logf("disk filled to the last byte during the job: %s", <-hire)
	c.checkDiskFull(t, d)
	for _, f := range fillers {
		c.freeDisk(t, d, f)
	}

	if h := c.hire(c.honest, hireTimeout); h.info.Outcome != "released" {
		t.Errorf("after space was freed, hires must work again: %s", h)
	}
	c.check(t, c.converge(time.Now()))
}

// checkDiskFull: the daemon on the full disk is alive and reads work.
func (c *cluster) checkDiskFull(t *testing.T, d *daemon) {
	t.Helper()
	if !d.running() {
		t.Errorf("daemon %s crashed on a full disk: %s: %s", d.name, describeExit(d.err()), d.crashReason())
	}
	if r := d.run(cliTimeout, "wallet", "balance", "--json"); !r.ok() {
		t.Errorf("reads must keep working on a full disk: %s", r)
	}
}

// freeDisk removes the filler and starts the daemon again if it died.
func (c *cluster) freeDisk(t *testing.T, d *daemon, filler string) {
	t.Helper()
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if !d.running() {
		d.start(t, d.failpoints())
		c.reconnect(t)
	}
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

// reserveOf is the path of d's disk reserve (node/storage/storage.go).
func reserveOf(d *daemon) string { return filepath.Join(d.repo, "data", "swarmwage.reserve") }

// waitReserve waits until d has made its disk reserve.
func waitReserve(t *testing.T, d *daemon) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(reserveOf(d)); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon %s made no disk reserve with room to spare", d.name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fillToTheLastByte fills dir to the last byte, waits for d to release its
// reserve, and takes that too. It returns the files it wrote.
func fillToTheLastByte(t *testing.T, dir string, d *daemon) []string {
	t.Helper()
	first := fillAs(t, dir, "filler-1", 0)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(reserveOf(d)); errors.Is(err, os.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon %s kept its reserve on a full disk", d.name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return []string{first, fillAs(t, dir, "filler-2", 0)}
}

// fill writes a file into dir until only left bytes are free and returns
// its path.
func fill(t *testing.T, dir string, left int64) string {
	t.Helper()
	return fillAs(t, dir, "filler", left)
}

// fillAs is fill with the file's name.
func fillAs(t *testing.T, dir, name string, left int64) string {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for n := free - left; n > 0; n -= int64(len(buf)) {
		_, err := f.Write(buf[:min(int64(len(buf)), n)])
		if errors.Is(err, syscall.ENOSPC) {
			break // the daemon wrote meanwhile: full is what we want
		}
		if err != nil {
			t.Fatalf("fill %s: %v", dir, err)
		}
	}
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Fatal(err)
	}
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	t.Logf("filled %s: %d KiB left", dir, int64(st.Bavail)*st.Bsize>>10)
	return path
}
