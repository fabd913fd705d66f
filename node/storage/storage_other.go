//go:build !linux

package storage

import "errors"

// errNoFallocate: this platform has no fallocate; the watermark and the
// open-time floor are the whole protection here (Badger's files are sparse
// outside Linux, see third_party/ristretto).
var errNoFallocate = errors.New("fallocate not supported")

func allocateFile(string, int64) error { return errNoFallocate }
