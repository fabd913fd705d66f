//go:build !linux

// This file is not part of ristretto: swarmwage's patch (see third_party/PATCHES.md).

package z

import "os"

// allocate grows fd to off+n bytes. Only Linux allocates blocks; elsewhere
// the file is grown sparse, as upstream does.
func allocate(fd *os.File, off, n int64) error { return fd.Truncate(off + n) }
