package storage

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// errNoFallocate: the filesystem cannot allocate blocks ahead (EOPNOTSUPP).
var errNoFallocate = errors.New("fallocate not supported")

// allocateFile creates path with size bytes of real blocks.
func allocateFile(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	err = syscall.Fallocate(int(f.Fd()), 0, 0, size)
	switch {
	case errors.Is(err, syscall.EOPNOTSUPP):
		err = errNoFallocate
	case err != nil:
		err = fmt.Errorf("allocate %s: %w", path, err)
	}
	return errors.Join(err, f.Close())
}
