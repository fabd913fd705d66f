package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A full disk must never crash the node or lose a decision. Badger writes
// its write-ahead log (*.mem), value log (*.vlog) and tables (*.sst)
// through mmap, and upstream sizes those files with ftruncate, which leaves
// them sparse: a write into a page with no disk block behind it, on a full
// disk, is a SIGBUS that kills the process (dgraph-io/badger#1801). This
// module builds Badger against a patched ristretto (third_party/ristretto)
// that allocates every such file's blocks when it creates or grows it, so a
// full disk is an ENOSPC error from the write that needs the room, never a
// crash. The Guard keeps those errors away from the writes that record
// decisions:
//
//   - the watermark: below [storage] min_free free bytes, new quotes and new
//     hires are refused (market.Admission), so the space left serves the
//     jobs already running;
//   - two reserve files in the data directory: one of reserveSize bytes,
//     deleted when free space falls under openFloor, which gives Badger room
//     for a memtable rotation and its flush while jobs settle; and one of
//     closeFloor bytes, deleted only at Close (or open), so that the flush
//     at Close fits even after another program took all the rest. Reserves
//     count as free space for the watermark, so releasing them lets no new
//     work in;
//   - at Close with less than closeFloor free all the same, the database is
//     left for the next open to replay (every write was synced) instead of
//     flushed: Badger retries a failed flush forever, so Close would hang.
//
// See README, "Disk space".

const (
	// DefaultMinFree is the default [storage] min_free: room for the
	// rotations of both logs while jobs settle (openFloor), a compaction's
	// tables and the reserves.
	DefaultMinFree = 128 << 20
	// openFloor is the least free space a read-write open of the database
	// needs: Badger starts a new value log at every open (2 x
	// badgerValueLogFile) and a new write-ahead log (2 x badgerMemTable),
	// flushes a left-over memtable and flushes again at close. Below it the
	// daemon does not start and offline commands that write refuse.
	openFloor = 2*badgerValueLogFile + 4*badgerMemTable
	// reserveSize is the reserve file's size: a memtable rotation, its
	// flush and one compaction's tables.
	reserveSize = 16 << 20
	// reserveAgainAt is the free space at which a released reserve is made
	// again: far enough above openFloor that making both does not release
	// one.
	reserveAgainAt = openFloor + 2*(reserveSize+closeFloor)
	// closeFloor is the free space Badger's flush at Close needs: one
	// memtable's table.
	closeFloor = 2 * badgerMemTable
	// reserveFile and closeReserveFile are the reserve files, in the data
	// directory so that they are on the disk the database writes to.
	reserveFile      = "swarmwage.reserve"
	closeReserveFile = "swarmwage.reserve-close"
	// guardInterval is how often the guard looks at free space; statfs and
	// fstat cost microseconds.
	guardInterval = 250 * time.Millisecond
)

// ErrDiskFull is what every *DiskFullError is (errors.Is).
var ErrDiskFull = errors.New("disk full")

// DiskFullError says that free space on the disk of the repo's data is
// below what an operation needs, and what to free.
type DiskFullError struct {
	// Dir is the data directory.
	Dir string
	// Free is the free space (bytes available to this user); Need what
	// the operation needs.
	Free, Need uint64
	// Refused says what is refused, as "new quotes and hires are refused".
	Refused string
	// Watermark is set when Need is [storage] min_free, which may be
	// lowered; otherwise Need is what the database needs.
	Watermark bool
}

var _ error = (*DiskFullError)(nil)

func (e *DiskFullError) Error() string {
	need, lower, still := "needed", "", "Commands that only read (wallet balance, jobs list, escrow list) still work"
	if e.Watermark {
		need, lower = "of [storage] min_free", ", or lower [storage] min_free in config.toml"
		still = "Reads, and the settling of jobs already running, keep working"
	}
	return fmt.Sprintf("disk full: %s free on the disk of %s, under the %s %s: %s until %s more is free. "+
		"Free space on that disk (other files there; do not delete files in %s)%s. %s",
		FormatSize(e.Free), e.Dir, FormatSize(e.Need), need, e.Refused, FormatSize(e.Need-min(e.Need, e.Free)), e.Dir, lower, still)
}

// Is makes errors.Is(err, ErrDiskFull) true.
func (e *DiskFullError) Is(target error) bool { return target == ErrDiskFull }

// Guard watches free space on the data directory's disk. Admit is safe
// for concurrent use; start and stop own one goroutine.
type Guard struct {
	dir     string
	minFree uint64
	log     *slog.Logger
	// statfs returns the free bytes of dir's filesystem (tests inject it).
	statfs func(dir string) (uint64, error)

	low atomic.Bool // below the watermark at the last look
	// reserved is the size of the reserve files at the last look (-1:
	// not looked yet). The guard makes and deletes them itself, and Tick
	// looks again, so Admit need not stat them on every hire.
	reserved atomic.Int64
	mu       sync.Mutex // serializes tick
	cancel   context.CancelFunc
	done     chan struct{}
}

func NewGuard(dir string, minFree uint64, log *slog.Logger) *Guard {
	g := &Guard{
		dir: dir, minFree: minFree,
		log:    log.With("subsystem", "swarmwage/storage"),
		statfs: statfsFree,
	}
	g.reserved.Store(-1)
	return g
}

// statfsFree is the space available to this user on dir's filesystem.
func statfsFree(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("free space of %s: %w", dir, err)
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

// Admit refuses new work with a *DiskFullError while free space (counting
// the reserve, which is this node's) is below the watermark. A failing
// statfs admits: not knowing is no reason to stop trading, and the floors
// still protect the database.
func (g *Guard) Admit(context.Context) error {
	if g.minFree == 0 {
		return nil
	}
	free, err := g.available()
	if err != nil {
		g.log.Debug("cannot read free space", "err", err)
		return nil
	}
	g.note(free)
	if free < g.minFree {
		return &DiskFullError{Dir: g.dir, Free: free, Need: g.minFree, Refused: "new quotes and hires are refused", Watermark: true}
	}
	return nil
}

// available is the free space for the watermark: the disk's free space and
// the reserve.
func (g *Guard) available() (uint64, error) {
	free, err := g.statfs(g.dir)
	if err != nil {
		return 0, err
	}
	if r := g.reserved.Load(); r >= 0 {
		return free + uint64(r), nil
	}
	return free + g.lookAtReserves(), nil
}

// lookAtReserves reads the reserve files' size and keeps it for available.
func (g *Guard) lookAtReserves() uint64 {
	var sum int64
	for _, name := range []string{reserveFile, closeReserveFile} {
		if fi, err := os.Stat(filepath.Join(g.dir, name)); err == nil {
			sum += fi.Size()
		}
	}
	g.reserved.Store(sum)
	return uint64(sum)
}

// note logs the crossings of the watermark, once each way.
func (g *Guard) note(free uint64) {
	low := g.minFree > 0 && free < g.minFree
	if g.low.Swap(low) == low {
		return
	}
	if low {
		g.log.Warn("free disk space below the watermark: refusing new quotes and hires; running jobs still settle",
			"dir", g.dir, "free", FormatSize(free), "min_free", FormatSize(g.minFree))
	} else {
		g.log.Info("free disk space back above the watermark: taking new quotes and hires again",
			"dir", g.dir, "free", FormatSize(free), "min_free", FormatSize(g.minFree))
	}
}

// CheckOpen makes sure a read-write open of the database has openFloor
// free, deleting the reserves first if that is what it takes.
func (g *Guard) CheckOpen() error {
	free, err := g.freeAfterReleasing(openFloor, reserveFile, closeReserveFile)
	if err != nil {
		return nil // the open itself will say what is wrong with the directory
	}
	if free < openFloor {
		return &DiskFullError{Dir: g.dir, Free: free, Need: openFloor, Refused: "the database cannot be opened for writing"}
	}
	return nil
}

// Tick looks at free space once: releases or restores the reserves, and
// logs watermark crossings.
func (g *Guard) Tick() {
	g.mu.Lock()
	defer g.mu.Unlock()
	free, err := g.statfs(g.dir)
	if err != nil {
		g.log.Debug("cannot read free space", "err", err)
		return
	}
	g.lookAtReserves() // someone may have deleted one
	if avail, err := g.available(); err == nil {
		g.note(avail)
	}
	if free < openFloor && g.release(reserveFile) {
		g.log.Warn("disk nearly full: released the reserve so that running jobs can settle",
			"dir", g.dir, "free", FormatSize(free), "reserve", FormatSize(reserveSize))
		if free, err = g.statfs(g.dir); err != nil {
			return
		}
	}
	for _, r := range []struct {
		name string
		size int64
	}{{closeReserveFile, closeFloor}, {reserveFile, reserveSize}} {
		if free >= reserveAgainAt && g.ensureReserve(r.name, r.size) {
			if free, err = g.statfs(g.dir); err != nil {
				return
			}
		}
	}
}

// release deletes the reserve file name and reports whether there was one.
func (g *Guard) release(name string) bool {
	ok := os.Remove(filepath.Join(g.dir, name)) == nil
	g.lookAtReserves()
	return ok
}

// freeAfterReleasing is the free space after deleting the reserves names,
// in order, for as long as it is under need.
func (g *Guard) freeAfterReleasing(need uint64, names ...string) (uint64, error) {
	free, err := g.statfs(g.dir)
	for _, name := range names {
		if err != nil || free >= need {
			break
		}
		if g.release(name) {
			free, err = g.statfs(g.dir)
		}
	}
	return free, err
}

// ensureReserve creates the reserve file name of size bytes, with real
// blocks, if it is missing, and reports whether it made it.
func (g *Guard) ensureReserve(name string, size int64) bool {
	path := filepath.Join(g.dir, name)
	if fi, err := os.Stat(path); err == nil && fi.Size() == size {
		return false
	}
	defer g.lookAtReserves()
	if err := allocateFile(path, size); err != nil {
		if !errors.Is(err, errNoFallocate) {
			g.log.Debug("create a disk reserve", "file", name, "err", err)
		}
		os.Remove(path)
		return false
	}
	return true
}

// Start ticks until Stop.
func (g *Guard) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel, g.done = cancel, make(chan struct{})
	go func() {
		defer close(g.done)
		t := time.NewTicker(guardInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				g.Tick()
			}
		}
	}()
}

// Stop ends the goroutine of Start and waits for it.
func (g *Guard) Stop() {
	if g.cancel == nil {
		return
	}
	g.cancel()
	<-g.done
	g.cancel = nil
}

// RoomToClose gives Badger room for its flush at Close, releasing the
// reserve on a nearly full disk, and reports whether there is enough. When
// there is not, the caller leaves the database unclosed: its write-ahead
// log holds every synced write, and the next open replays it, while Badger
// retries a flush that has no room forever.
func (g *Guard) RoomToClose() bool {
	free, err := g.freeAfterReleasing(2*closeFloor, reserveFile, closeReserveFile)
	return err != nil || free >= closeFloor
}

// Tight reports whether free space is under the watermark or the open
// floor: no time for work that needs room, such as value-log GC.
func (g *Guard) Tight() bool {
	free, err := g.statfs(g.dir)
	return err == nil && free < max(g.minFree, openFloor)
}
