// This file is not part of ristretto: swarmwage's patch (see third_party/PATCHES.md).

package z

import "os"

// resize sets fd's size to size, allocating real blocks for what it grows
// by (see allocate); shrinking truncates.
func resize(fd *os.File, size int64) error {
	fi, err := fd.Stat()
	if err != nil {
		return err
	}
	if cur := fi.Size(); size > cur {
		return allocate(fd, cur, size-cur)
	}
	return fd.Truncate(size)
}
