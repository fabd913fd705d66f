// Package evmtest starts a real EVM dev chain for tests: anvil from the npm
// package @foundry-rs/anvil pinned in contracts/package-lock.json, on
// 127.0.0.1 with a free port, stopped when the test ends. If the pinned
// anvil is not installed yet, StartAnvil installs it with 'npm ci' in
// contracts/ (npm must be on PATH; the test fails, never skips, without it).
// Running the chain is package devchain's, which the binary uses too; this
// package adds what only tests need (the source tree, npm ci, testing.TB).
package evmtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/swarmwage/swarmwage/escrow/evm/devchain"
)

// Anvil is one running anvil.
type Anvil = devchain.Chain

// ContractsDir returns the repository's contracts/ directory.
func ContractsDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("evmtest: cannot locate the source tree")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "contracts")
	if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err != nil {
		return "", fmt.Errorf("evmtest: contracts/package-lock.json: %w", err)
	}
	return dir, nil
}

var installMu sync.Mutex // one npm ci at a time inside a test binary

// AnvilPath returns the pinned anvil binary, installing it with npm ci in
// contracts/ when missing.
func AnvilPath() (string, error) {
	dir, err := ContractsDir()
	if err != nil {
		return "", err
	}
	bin := devchain.PinnedAnvil(dir)
	installMu.Lock()
	defer installMu.Unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	// Test binaries of several packages may install at once: one npm ci at
	// a time (contracts/build.sh takes the same lock).
	lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("evmtest: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("evmtest: lock %s: %w", lock.Name(), err)
	}
	if _, err := os.Stat(bin); err == nil {
		return bin, nil // another process installed it while we waited
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("evmtest: anvil is not installed and npm is not on PATH: install Node.js and npm (apt-get install nodejs npm), then run 'npm ci' in %s", dir)
	}
	// --ignore-scripts: the binary comes in an optional dependency; anvil's
	// postinstall would only fetch it again.
	cmd := exec.Command(npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("evmtest: npm ci in %s: %w\n%s", dir, err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("evmtest: npm ci did not install %s: %w", bin, err)
	}
	return bin, nil
}

// StartAnvil starts anvil on 127.0.0.1 with a free port and chain ID 31337
// and stops it when t ends. extra are more anvil flags (for instance
// "--block-time", "1").
func StartAnvil(t testing.TB, extra ...string) *Anvil {
	t.Helper()
	a, stop, err := Start(31337, extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("stop anvil: %v", err)
		}
	})
	return a
}

// Start starts the pinned anvil with chainID and returns it with the
// function that stops it (SIGTERM, then SIGKILL after 5 s) and waits for it
// to exit.
func Start(chainID int64, extra ...string) (*Anvil, func() error, error) {
	bin, err := AnvilPath()
	if err != nil {
		return nil, nil, err
	}
	return devchain.Start(context.Background(), bin, chainID, extra...)
}
