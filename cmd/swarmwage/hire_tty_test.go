package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"
)

// slowMeanWorker is an exec handler that takes a few seconds, so the
// seller's progress events reach the buyer's terminal, then answers the
// right mean of {"data":[1,2,3,4]}.
const slowMeanWorker = `#!/bin/sh
cat >/dev/null
sleep 2.5
echo '{"result":2.5}'
`

// hireNetwork starts a seller of compute.statistics.mean (a slow exec
// worker) and a buyer with test credits, both daemons, and returns the
// buyer's repo once it finds the seller.
func hireNetwork(t *testing.T) string {
	t.Helper()
	worker := filepath.Join(t.TempDir(), "slow-mean.sh")
	require.NoError(t, os.WriteFile(worker, []byte(slowMeanWorker), 0o755))
	seller := initRepo(t)
	r := swarmwage(t, "--repo", seller, "sell", "add", "--price", "0.01", "--handler", "exec:"+worker, "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	startDaemon(t, seller)
	addr := nodeIDOf(t, seller).Addrs[0]

	buyer := initRepo(t)
	r = swarmwage(t, "--repo", buyer, "wallet", "deposit", "10")
	require.Equal(t, 0, r.Code, r.Stderr)
	startDaemon(t, buyer, "--bootstrap", addr)
	require.Eventually(t, func() bool {
		r := swarmwage(t, "--repo", buyer, "find", "--json", "--timeout", "5s", "compute.statistics.mean")
		var res struct {
			Sellers []json.RawMessage `json:"sellers"`
		}
		return r.Code == 0 && json.Unmarshal([]byte(r.Stdout), &res) == nil && len(res.Sellers) == 1
	}, 30*time.Second, 200*time.Millisecond)
	return buyer
}

func hireArgs(repo string) []string {
	return []string{"--repo", repo, "hire", "--input-json", `{"data":[1,2,3,4]}`, "compute.statistics.mean"}
}

// TestHireShowsProgressOnATerminalOnly runs the same hire twice: with stderr
// on a pseudo-terminal the job's progress is drawn there (and stdout, piped,
// holds only the output JSON); with stderr piped there is no progress at all.
func TestHireShowsProgressOnATerminalOnly(t *testing.T) {
	t.Parallel()
	buyer := hireNetwork(t)

	t.Run("terminal", func(t *testing.T) {
		shown, stdout := onTerminal(t, hireArgs(buyer)...)
		require.Contains(t, shown, "finding a seller")
		// "job ... accepted" may be throttled away (the spinner redraws at
		// most every 50 ms); the heartbeats of a 2.5 s job are not.
		require.Regexp(t, `running \(\d+\.\ds\)`, shown, "the seller's heartbeats show as progress")
		require.Contains(t, shown, "\r", "the spinner redraws its line")
		require.JSONEq(t, `{"result":2.5}`, stdout, "stdout holds only the output")
	})

	t.Run("find on a terminal", func(t *testing.T) {
		shown, stdout := onTerminal(t, "--repo", buyer, "find", "compute.statistics.mean")
		require.Contains(t, shown, "searching the network for sellers of compute.statistics.mean")
		require.Contains(t, stdout, "1 seller(s)")
	})

	t.Run("piped", func(t *testing.T) {
		r := swarmwage(t, hireArgs(buyer)...)
		require.Equal(t, 0, r.Code, r.Stderr)
		require.Empty(t, r.Stderr, "no progress when stderr is not a terminal")
		require.JSONEq(t, `{"result":2.5}`, r.Stdout)
		require.False(t, strings.ContainsAny(r.Stdout, "\r\x1b"), "no control characters in piped output")
	})
}

// onTerminal runs the binary with stderr on a pseudo-terminal and stdout
// piped, and returns what the terminal showed and what stdout held.
func onTerminal(t *testing.T, args ...string) (screen, stdout string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptmx.Close()
	require.NoError(t, pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 120}))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "TERM=xterm")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, tty
	require.NoError(t, cmd.Start())
	tty.Close() // the child has its copy; EOF on ptmx once it exits

	var shown bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(&shown, ptmx) // ends with EIO when the child closes the tty
	}()
	require.NoError(t, cmd.Wait(), "stdout: %s", out.String())
	wg.Wait()
	return shown.String(), out.String()
}
