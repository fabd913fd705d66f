// Package devchain runs a local EVM dev chain for the binary and the tests:
// anvil (Foundry's), on 127.0.0.1 with a free port, with its funded dev
// accounts. 'swarmwage bench hire --settlement evm' starts one here; the
// test helpers of package evmtest build on it. The contract is deployed
// from its compiled artifact by evm.Deploy, not here.
//
// Which anvil runs is the caller's choice, or FindAnvil's: a path given
// explicitly, else anvil on PATH, else the one pinned in contracts/ of a
// swarmwage source checkout (contracts/node_modules after 'npm ci' there)
// found from the working directory up.
package devchain

import (
	"bufio"
	"context"
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
	"time"
)

// startTimeout bounds how long anvil may take to listen when the caller's
// context has no deadline.
const startTimeout = 30 * time.Second

// ErrNoAnvil is returned by FindAnvil when no anvil binary is found.
var ErrNoAnvil = errors.New("anvil not found")

// Chain is one running anvil.
type Chain struct {
	// URL is its JSON-RPC endpoint, http://127.0.0.1:PORT.
	URL string
	// ChainID is the chain ID it was started with.
	ChainID int64
	// Keys are the hex private keys of its funded accounts (10000 ETH each).
	Keys []string
	// Addresses are the accounts of Keys, in the same order.
	Addresses []string
}

// PinnedAnvil is where 'npm ci' in a contracts/ directory puts the anvil
// binary pinned in its package-lock.json, for this OS and architecture.
func PinnedAnvil(contractsDir string) string {
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64"}[runtime.GOARCH]
	return filepath.Join(contractsDir, "node_modules", "@foundry-rs", "anvil-"+runtime.GOOS+"-"+arch, "bin", "anvil")
}

// FindAnvil returns the anvil to run: path when it is not empty (it must
// be an executable file), else anvil on PATH, else the pinned one in the
// contracts/ directory of a swarmwage checkout that contains the working
// directory. It fails with ErrNoAnvil, saying where it looked.
func FindAnvil(path string) (string, error) {
	if path != "" {
		if err := executable(path); err != nil {
			return "", fmt.Errorf("%w at %s: %w", ErrNoAnvil, path, err)
		}
		return path, nil
	}
	if p, err := exec.LookPath("anvil"); err == nil {
		return p, nil
	}
	looked := "not on PATH"
	if dir, ok := checkoutContracts(); ok {
		bin := PinnedAnvil(dir)
		if executable(bin) == nil {
			return bin, nil
		}
		looked += fmt.Sprintf(", and not installed in %s (run 'npm ci' there)", dir)
	} else {
		looked += ", and the working directory is not in a swarmwage checkout (contracts/package-lock.json)"
	}
	return "", fmt.Errorf("%w: %s", ErrNoAnvil, looked)
}

// executable checks that path is a regular file someone may execute.
func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}

// checkoutContracts finds contracts/ of a swarmwage checkout from the
// working directory up.
func checkoutContracts() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		c := filepath.Join(dir, "contracts")
		if _, err := os.Stat(filepath.Join(c, "package-lock.json")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return c, true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Start runs the anvil at bin on 127.0.0.1 with a free port and chainID,
// with extra anvil flags (for instance "--block-time", "1"). ctx bounds
// the start-up only (30 s when it has no deadline); the chain runs until
// the returned function stops it (SIGTERM, then SIGKILL after 5 s) and
// waits for it to exit. It dies with the process that started it.
func Start(ctx context.Context, bin string, chainID int64, extra ...string) (*Chain, func() error, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, startTimeout)
		defer cancel()
	}
	cfgDir, err := os.MkdirTemp("", "anvil-")
	if err != nil {
		return nil, nil, fmt.Errorf("devchain: %w", err)
	}
	cfgFile := filepath.Join(cfgDir, "config.json")
	args := append([]string{
		"--host", "127.0.0.1", "--port", "0",
		"--chain-id", fmt.Sprint(chainID),
		"--config-out", cfgFile,
	}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive its parent
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("devchain: %w", err), os.RemoveAll(cfgDir))
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("devchain: start %s: %w", bin, err), os.RemoveAll(cfgDir))
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
	case <-ctx.Done():
		return nil, nil, errors.Join(fmt.Errorf("devchain: anvil did not listen: %w", ctx.Err()), stopOnce())
	case <-drained:
		<-exited
		return nil, nil, errors.Join(fmt.Errorf("devchain: anvil exited before listening:\n%s", tail.String()), os.RemoveAll(cfgDir))
	}
	c := &Chain{URL: "http://" + addr, ChainID: chainID}
	if err := c.readConfig(cfgFile); err != nil {
		return nil, nil, errors.Join(err, stopOnce())
	}
	return c, stopOnce, nil
}

func (c *Chain) readConfig(path string) error {
	// anvil writes the file before it listens; read it once.
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("devchain: anvil config: %w", err)
	}
	var cfg struct {
		Accounts []string `json:"available_accounts"`
		Keys     []string `json:"private_keys"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return fmt.Errorf("devchain: anvil config %s: %w", path, err)
	}
	if len(cfg.Keys) == 0 || len(cfg.Keys) != len(cfg.Accounts) {
		return fmt.Errorf("devchain: anvil config %s lists %d keys for %d accounts", path, len(cfg.Keys), len(cfg.Accounts))
	}
	c.Keys, c.Addresses = cfg.Keys, cfg.Accounts
	return nil
}

// WriteKey writes key i of c to a 0600 file in dir and returns its path,
// for commands that take --key-file.
func (c *Chain) WriteKey(dir string, i int) (string, error) {
	if i < 0 || i >= len(c.Keys) {
		return "", fmt.Errorf("devchain: anvil has %d keys, not %d", len(c.Keys), i+1)
	}
	p := filepath.Join(dir, fmt.Sprintf("anvil-%d.key", i))
	if err := os.WriteFile(p, []byte(c.Keys[i]+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("devchain: %w", err)
	}
	return p, nil
}
