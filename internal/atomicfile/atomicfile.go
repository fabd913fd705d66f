// Package atomicfile writes files so that a crash or a concurrent reader
// never sees half of one: the data goes to a temporary file in the same
// directory, which is synced, then renamed (or linked) over the target,
// and the directory is synced so that the new name itself survives a power
// cut. The node's small files (identity.key, evm.key, config.toml, api,
// api.token), the sandbox's compiled bootstrap and saved SkillCards are
// written this way; it is the module's one atomic-write helper. ReadSmall
// reads such a file back with a cap on its size.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Write makes path hold data with permissions perm, atomically and
// durably: when Write returns nil, the new content is on disk; on any
// error path is unchanged and no temporary file is left.
func Write(path string, data []byte, perm os.FileMode) error {
	return place(path, data, perm, os.Rename)
}

// Create is Write for a file that must not exist yet: it fails with an
// error matching fs.ErrExist if path exists, even when another process
// creates it meanwhile, and never replaces it. For files such as a money
// key, which an overwrite would lose.
func Create(path string, data []byte, perm os.FileMode) error {
	// Link, not rename: link(2) fails if the target exists.
	return place(path, data, perm, os.Link)
}

// place writes data to a synced temporary file next to path, gives it
// path's name with move, and syncs the directory.
func place(path string, data []byte, perm os.FileMode, move func(tmp, path string) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// After a rename the temp name is gone; after a link it is removed
	// here. Either way nothing is left behind.
	defer func() {
		if rmErr := os.Remove(tmp.Name()); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) && err == nil {
			err = fmt.Errorf("write %s: %w", path, rmErr)
		}
	}()
	if err := fill(tmp, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := move(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// fill writes data to tmp with mode perm, syncs and closes it.
func fill(tmp *os.File, data []byte, perm os.FileMode) error {
	// CreateTemp makes the file 0600: set the mode before the data is in.
	if err := tmp.Chmod(perm); err != nil {
		return errors.Join(err, tmp.Close())
	}
	if _, err := tmp.Write(data); err != nil {
		return errors.Join(err, tmp.Close())
	}
	if err := tmp.Sync(); err != nil {
		return errors.Join(err, tmp.Close())
	}
	return tmp.Close()
}

// syncDir flushes a directory's entries, which is where a rename lives.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
