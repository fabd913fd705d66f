//go:build !linux

package node

import "errors"

// errNoFallocate: this platform has no fallocate; the watermark and the
// open-time floor are the whole protection here.
var errNoFallocate = errors.New("fallocate not supported")

func preallocate(string, uint64, uint64) error { return errNoFallocate }

func allocateFile(string, int64) error { return errNoFallocate }
