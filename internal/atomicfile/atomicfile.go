// Package atomicfile writes files so that a crash or a concurrent reader
// never sees half of one: the data goes to a temporary file in the same
// directory, which is synced, then renamed over the target, and the
// directory is synced so that the rename itself survives a power cut.
// The node's small files (identity.key, config.toml, api, api.token), the
// sandbox's compiled bootstrap and saved SkillCards are written this way.
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
func Write(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("write %s: %w", path, err), os.Remove(tmp.Name()))
		}
	}()
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
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir flushes a directory's entries, which is where a rename lives.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
