// Package evmtest starts a real EVM dev chain for tests: anvil from the npm
// package @foundry-rs/anvil pinned in contracts/package-lock.json, on
// 127.0.0.1 with a free port, stopped when the test ends. If the pinned
// anvil is not installed yet, StartAnvil installs it with 'npm ci' in
// contracts/ (npm must be on PATH; the test fails, never skips, without it).
package evmtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startTimeout bounds how long anvil may take to listen.
const startTimeout = 30 * time.Second

// Anvil is one running anvil.
type Anvil struct {
	// URL is its JSON-RPC endpoint, http://127.0.0.1:PORT.
	URL string
	// ChainID is the chain ID it was started with.
	ChainID int64
	// Keys are the hex private keys of its funded accounts (10000 ETH each).
	Keys []string
	// Addresses are the accounts of Keys, in the same order.
	Addresses []string
}

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
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64"}[runtime.GOARCH]
	bin := filepath.Join(dir, "node_modules", "@foundry-rs", "anvil-"+runtime.GOOS+"-"+arch, "bin", "anvil")
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

// Start starts anvil with chainID and returns it with the function that
// stops it (SIGTERM, then SIGKILL after 5 s) and waits for it to exit.
func Start(chainID int64, extra ...string) (*Anvil, func() error, error) {
	bin, err := AnvilPath()
	if err != nil {
		return nil, nil, err
	}
	cfgDir, err := os.MkdirTemp("", "anvil-")
	if err != nil {
		return nil, nil, fmt.Errorf("evmtest: %w", err)
	}
	cfgFile := filepath.Join(cfgDir, "config.json")
	args := append([]string{
		"--host", "127.0.0.1", "--port", "0",
		"--chain-id", fmt.Sprint(chainID),
		"--config-out", cfgFile,
	}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the test binary
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("evmtest: %w", err), os.RemoveAll(cfgDir))
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("evmtest: start %s: %w", bin, err), os.RemoveAll(cfgDir))
	}
	// One goroutine reads anvil's output for its whole life: the listening
	// line first, then it drains so anvil never blocks on a full pipe.
	addrCh := make(chan string, 1)
	drained := make(chan struct{})
	var tail strings.Builder
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if !sent {
				if tail.Len() < 4096 {
					tail.WriteString(line + "\n")
				}
				if rest, ok := strings.CutPrefix(line, "Listening on "); ok {
					addrCh <- strings.TrimSpace(rest)
					sent = true
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	exited := make(chan error, 1)
	stopOnce := sync.OnceValue(func() error {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		var werr error
		select {
		case werr = <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			werr = <-exited
		}
		<-drained
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			werr = nil // killed by our signal: the expected way out
		}
		return errors.Join(werr, os.RemoveAll(cfgDir))
	})
	go func() { exited <- cmd.Wait() }()

	var addr string
	select {
	case addr = <-addrCh:
	case <-time.After(startTimeout):
		return nil, nil, errors.Join(fmt.Errorf("evmtest: anvil did not listen within %s", startTimeout), stopOnce())
	case <-drained:
		<-exited
		return nil, nil, errors.Join(fmt.Errorf("evmtest: anvil exited before listening:\n%s", tail.String()), os.RemoveAll(cfgDir))
	}
	a := &Anvil{URL: "http://" + addr, ChainID: chainID}
	if err := a.readConfig(cfgFile); err != nil {
		return nil, nil, errors.Join(err, stopOnce())
	}
	return a, stopOnce, nil
}

func (a *Anvil) readConfig(path string) error {
	// anvil writes the file before it listens; read it once.
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("evmtest: anvil config: %w", err)
	}
	var cfg struct {
		Accounts []string `json:"available_accounts"`
		Keys     []string `json:"private_keys"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return fmt.Errorf("evmtest: anvil config %s: %w", path, err)
	}
	if len(cfg.Keys) == 0 || len(cfg.Keys) != len(cfg.Accounts) {
		return fmt.Errorf("evmtest: anvil config %s lists %d keys for %d accounts", path, len(cfg.Keys), len(cfg.Accounts))
	}
	a.Keys, a.Addresses = cfg.Keys, cfg.Accounts
	return nil
}

// WriteKey writes key i of a to a 0600 file in dir and returns its path, for
// commands that take --key-file.
func (a *Anvil) WriteKey(dir string, i int) (string, error) {
	if i < 0 || i >= len(a.Keys) {
		return "", fmt.Errorf("evmtest: anvil has %d keys, not %d", len(a.Keys), i+1)
	}
	p := filepath.Join(dir, fmt.Sprintf("anvil-%d.key", i))
	if err := os.WriteFile(p, []byte(a.Keys[i]+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("evmtest: %w", err)
	}
	return p, nil
}
