// This file is not part of ristretto: swarmwage's patch (see third_party/PATCHES.md).

package z

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// allocate gives the bytes [off, off+n) of fd real disk blocks, growing the
// file to off+n if it is shorter. Files written through mmap must not be
// sparse: on a full disk, a store into a page with no block behind it is a
// SIGBUS that kills the process, where fallocate returns ENOSPC. On a
// filesystem without fallocate the file is grown sparse, as before.
func allocate(fd *os.File, off, n int64) error {
	for {
		err := unix.Fallocate(int(fd.Fd()), 0, off, n)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS):
			return fd.Truncate(off + n)
		default:
			// A failed fallocate may have allocated, and grown the file,
			// in part: give that back.
			if fi, serr := fd.Stat(); serr == nil && fi.Size() > off {
				_ = fd.Truncate(off)
			}
			return &os.PathError{Op: "fallocate", Path: fd.Name(), Err: err}
		}
	}
}
