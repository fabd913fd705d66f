package node

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// fallocKeepSize is FALLOC_FL_KEEP_SIZE (linux/falloc.h): allocate blocks
// without changing the file's size, so that racing with Badger's own
// truncation never grows one of its files.
const fallocKeepSize = 0x1

// errNoFallocate: the filesystem cannot preallocate (EOPNOTSUPP).
var errNoFallocate = errors.New("fallocate not supported")

// preallocate gives real blocks to the files Badger writes through mmap and
// keeps writing, up to the size Badger maps them at: the newest write-ahead
// log and the DISCARD stats always (a few MiB), and the newest value log
// when free space stays above keep with as much again to spare. Blocks go
// past a file's end too (FALLOC_FL_KEEP_SIZE): Badger grows a reopened
// value log one write at a time with ftruncate.
func preallocate(dir string, free, keep uint64) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("preallocate: %w", err)
	}
	mem, vlog := newestLog(entries, ".mem"), newestLog(entries, ".vlog")
	var errs []error
	for _, f := range []struct {
		name   string
		target int64 // 0: the file's size
		always bool
	}{{mem, 2 * badgerMemTable, true}, {"DISCARD", 0, true}, {vlog, 2 * badgerValueLogFile, false}} {
		if f.name == "" {
			continue
		}
		err := fillHoles(filepath.Join(dir, f.name), f.target, func(holes uint64) bool { return f.always || free >= 2*holes+keep })
		if errors.Is(err, errNoFallocate) {
			return err
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// newestLog is the name of the file with the highest number and suffix
// ("00007.mem", "000003.vlog"): the one Badger appends to.
func newestLog(entries []os.DirEntry, suffix string) string {
	best, bestID := "", -1
	for _, e := range entries {
		n := e.Name()
		id, err := strconv.Atoi(strings.TrimSuffix(n, suffix))
		if !strings.HasSuffix(n, suffix) || err != nil {
			continue
		}
		if id > bestID {
			best, bestID = n, id
		}
	}
	return best
}

// fillHoles allocates the first target bytes of path (its size when target
// is 0) where they have no blocks yet, if ok agrees to the number of bytes
// that takes.
func fillHoles(path string, target int64, ok func(holes uint64) bool) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return fmt.Errorf("preallocate %s: %w", path, err)
	}
	if target <= 0 {
		target = st.Size
	}
	allocated := uint64(st.Blocks) * 512
	if target <= 0 || allocated >= uint64(target) {
		return nil
	}
	if !ok(uint64(target) - allocated) {
		return nil
	}
	return fallocate(f, fallocKeepSize, target, path)
}

// allocateFile creates path with size bytes of real blocks.
func allocateFile(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	err = fallocate(f, 0, size, path)
	return errors.Join(err, f.Close())
}

func fallocate(f *os.File, mode uint32, size int64, path string) error {
	err := syscall.Fallocate(int(f.Fd()), mode, 0, size)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EOPNOTSUPP):
		return errNoFallocate
	default:
		return fmt.Errorf("preallocate %s: %w", path, err)
	}
}
