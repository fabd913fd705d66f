// Package npmci installs a test's pinned npm packages: 'npm ci' from the
// lock file of a testdata directory when its node_modules lacks them, one
// install at a time across test binaries (a file lock next to the lock
// file). It is imported by tests only.
package npmci

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
)

var mu sync.Mutex // one npm ci at a time inside a test binary

// Install makes sure that dir/node_modules holds what dir/package-lock.json
// pins, checked by the presence of want (paths under dir/node_modules) and
// of the lock file npm writes last (node_modules/.package-lock.json), and
// runs 'npm ci --ignore-scripts' in dir otherwise. The last file matters:
// a test that only looked for one package saw it while another process's
// npm ci was still unpacking the rest, and ran node on half a tree.
func Install(dir string, want ...string) error {
	mu.Lock()
	defer mu.Unlock()
	if present(dir, want) {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err != nil {
		return fmt.Errorf("npmci: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("npmci: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("npmci: lock %s: %w", lock.Name(), err)
	}
	if present(dir, want) {
		return nil // another process installed them while we waited
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("npmci: npm is not on PATH: install Node.js and npm (apt-get install nodejs npm), then run 'npm ci' in %s", dir)
	}
	// No package here needs an install script: the binaries ship in the
	// packages themselves.
	cmd := exec.Command(npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npmci: npm ci in %s: %w\n%s", dir, err, out)
	}
	if !present(dir, want) {
		return fmt.Errorf("npmci: npm ci in %s did not install %v", dir, want)
	}
	return nil
}

// doneMarker is the hidden lock file npm writes once an install is whole.
const doneMarker = ".package-lock.json"

func present(dir string, want []string) bool {
	for _, w := range append([]string{doneMarker}, want...) {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", w)); errors.Is(err, fs.ErrNotExist) || err != nil {
			return false
		}
	}
	return true
}
