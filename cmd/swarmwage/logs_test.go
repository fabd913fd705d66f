package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// daemon --log-file PATH writes the daemon's log and every exec handler's
// stderr to PATH (appended, 0600); 'logs' prints it and 'logs -f' follows
// it while the daemon runs.
func TestCLIDaemonLogFileAndLogs(t *testing.T) {
	t.Parallel()
	m := &testMarket{seller: initRepo(t), buyer: initRepo(t)}
	logPath := filepath.Join(t.TempDir(), "logs", "seller.log") // its directory does not exist yet

	r := swarmwage(t, "--repo", m.seller, "logs")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "daemon --log-file PATH")

	m.sellerCmd = startDaemon(t, m.seller, "--log-file", logPath)
	st, err := os.Stat(logPath)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	r = swarmwage(t, "--repo", m.seller, "logs")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `msg="daemon is ready"`)

	// Follow it from now on.
	follow := exec.Command(binPath, "--repo", m.seller, "logs", "-f", "-n", "1")
	follow.Env = append(os.Environ(), "HOME="+t.TempDir())
	follow.WaitDelay = 10 * time.Second
	out, err := follow.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, follow.Start())
	t.Cleanup(func() { _ = follow.Process.Kill(); _ = follow.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitLine := func(want ...string) string {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				require.True(t, ok, "logs -f ended")
				if containsAll(l, want...) {
					return l
				}
			case <-deadline:
				t.Fatalf("logs -f printed no line with %q", want)
			}
		}
	}
	waitLine(`msg="daemon is ready"`) // -n 1: the last line so far

	m.sellerAddr = nodeIDOf(t, m.seller).Addrs[0]
	m.buyerCmd = startDaemon(t, m.buyer, "--bootstrap", m.sellerAddr)
	r = swarmwage(t, "--repo", m.buyer, "wallet", "deposit", "10")
	require.Equal(t, 0, r.Code, r.Stderr)
	m.sell(t, "custom.test.logged", "0.1", "--handler",
		`exec:sh -c 'echo "loading weights for this job" >&2; echo "{\"ok\":true}"'`)
	h, r := hire(t, m.buyer, "--input-json", `{}`, "custom.test.logged")
	require.Equal(t, 0, r.Code, r.Stderr)

	line := waitLine(`msg="handler stderr"`, `line="loading weights for this job"`)
	require.Contains(t, line, "job="+h.JobID)
	require.Contains(t, line, "capability=custom.test.logged")
	waitLine(`msg="job sold"`, "job="+h.JobID) // info, the level a log file gets

	require.NoError(t, follow.Process.Signal(os.Interrupt))
	require.NoError(t, follow.Wait(), "logs -f ends cleanly on Ctrl-C")

	// --json: the lines as a list.
	r = swarmwage(t, "--repo", m.seller, "logs", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var doc struct {
		File  string   `json:"file"`
		Lines []string `json:"lines"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &doc))
	require.Equal(t, logPath, doc.File)
	require.Contains(t, strings.Join(doc.Lines, "\n"), "loading weights for this job")

	// A restart appends to the file.
	r = swarmwage(t, "--repo", m.seller, "shutdown")
	require.Equal(t, 0, r.Code, r.Stderr)
	_ = m.sellerCmd.Wait()
	startDaemon(t, m.seller, "--log-file", logPath)
	raw, err := os.ReadFile(logPath)
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(string(raw), `msg="daemon is ready"`))
	require.Contains(t, string(raw), "loading weights for this job")
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
