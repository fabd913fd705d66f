package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// initRepo creates a loopback-only repo on a private network.
func initRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	r := swarmwage(t, "--repo", dir, "init", "--network", "clitest", "--listen", "/ip4/127.0.0.1/tcp/0", "--api", "127.0.0.1:0")
	require.Equal(t, 0, r.Code, r.Stderr)
	return dir
}

// startDaemon runs 'swarmwage daemon' on repo until the test ends and waits
// for its ready line.
func startDaemon(t *testing.T, repo string, args ...string) *exec.Cmd {
	t.Helper()
	return startDaemonErr(t, repo, nil, args...)
}

// startDaemonErr is startDaemon that also copies the daemon's stderr into
// errOut when it is set.
func startDaemonErr(t *testing.T, repo string, errOut io.Writer, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binPath, append([]string{"--repo", repo, "daemon"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	if errOut != nil {
		cmd.Stderr = io.MultiWriter(os.Stderr, errOut)
	}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := false
		for sc.Scan() {
			if !ok && strings.HasPrefix(sc.Text(), "Daemon is ready") {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		require.True(t, ok, "daemon exited before it was ready")
	case <-time.After(30 * time.Second):
		t.Fatal("daemon not ready after 30s")
	}
	return cmd
}

type idJSON struct {
	PeerID  string   `json:"peer_id"`
	Addrs   []string `json:"addrs"`
	Network string   `json:"network"`
}

func nodeIDOf(t *testing.T, repo string) idJSON {
	t.Helper()
	r := swarmwage(t, "--repo", repo, "id", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var id idJSON
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &id))
	return id
}

// TestCLIEndToEndSellAndFind drives the real binary: init, two daemons,
// sell add on one, find --json on the other.
func TestCLIEndToEndSellAndFind(t *testing.T) {
	t.Parallel()
	seller, buyer := initRepo(t), initRepo(t)
	startDaemon(t, seller)
	sid := nodeIDOf(t, seller)
	require.Equal(t, "clitest", sid.Network)
	require.NotEmpty(t, sid.Addrs)
	require.Contains(t, sid.Addrs[0], "/p2p/"+sid.PeerID)
	startDaemon(t, buyer, "--bootstrap", sid.Addrs[0])

	r := swarmwage(t, "--repo", seller, "sell", "add", "--price", "0.05", "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", seller, "sell", "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"capability":"compute.statistics.mean","price":"0.05","handler":"builtin"}`,
		pick(t, r.Stdout, "listings", 0, "capability", "price", "handler"))

	var found struct {
		Capability string `json:"capability"`
		Sellers    []struct {
			PeerID string   `json:"peer_id"`
			Price  string   `json:"price"`
			Addrs  []string `json:"addrs"`
			RTTMS  *float64 `json:"rtt_ms"`
		} `json:"sellers"`
		Rejected *int `json:"rejected"`
	}
	require.Eventually(t, func() bool {
		// Flags after the positional argument work too.
		r := swarmwage(t, "--repo", buyer, "find", "compute.statistics.mean", "--json", "--timeout", "5s")
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &found) != nil {
			return false
		}
		return len(found.Sellers) == 1
	}, 30*time.Second, 200*time.Millisecond)
	require.Equal(t, "compute.statistics.mean", found.Capability)
	s := found.Sellers[0]
	require.Equal(t, sid.PeerID, s.PeerID)
	require.Equal(t, "0.05", s.Price)
	require.NotEmpty(t, s.Addrs)
	require.NotNil(t, s.RTTMS)
	require.Greater(t, *s.RTTMS, 0.0)
	require.NotNil(t, found.Rejected)
	require.Zero(t, *found.Rejected)

	// A second daemon on the same repo fails at once with a clear message.
	r = swarmwage(t, "--repo", seller, "daemon")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "daemon already running")

	r = swarmwage(t, "--repo", seller, "sell", "remove", "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", seller, "sell", "list", "--json")
	require.JSONEq(t, `{"listings":[]}`, r.Stdout)
}

// pick extracts fields of element i of array key of a JSON document.
func pick(t *testing.T, doc, key string, i int, fields ...string) string {
	t.Helper()
	var m map[string][]map[string]any
	require.NoError(t, json.Unmarshal([]byte(doc), &m))
	require.Greater(t, len(m[key]), i, doc)
	out := map[string]any{}
	for _, f := range fields {
		out[f] = m[key][i][f]
	}
	data, _ := json.Marshal(out)
	return string(data)
}

func TestCLIBadInputExitsTwo(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	missing := filepath.Join(t.TempDir(), "nothing")
	testCases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"uppercase capability", []string{"--repo", repo, "sell", "add", "--price", "1", "Text.summarize"}, `rule "lowercase"`},
		{"underscore capability", []string{"--repo", repo, "sell", "add", "--price", "1", "text.sum_marize"}, `rule "charset"`},
		{"unknown domain", []string{"--repo", repo, "sell", "add", "--price", "1", "video.generate"}, `rule "domain"`},
		{"domain only", []string{"--repo", repo, "sell", "add", "--price", "1", "text"}, `rule "domain-action"`},
		{"double dot", []string{"--repo", repo, "sell", "add", "--price", "1", "text..short"}, `rule "dot-separated"`},
		{"custom without capability", []string{"--repo", repo, "sell", "add", "--price", "1", "custom.acme"}, `rule "custom-form"`},
		{"wcp five segments", []string{"--repo", repo, "sell", "add", "--price", "1", "cap.doc.pdf.native.extract"}, `rule "wcp-segments"`},
		{"wcp too long", []string{"--repo", repo, "sell", "add", "--price", "1", "cap.doc." + strings.Repeat("a", 60)}, `rule "length"`},
		{"wcp underscore", []string{"--repo", repo, "find", "cap.doc.pdf_extract"}, `rule "wcp-charset"`},
		{"bad price", []string{"--repo", repo, "sell", "add", "--price", "-1", "compute.statistics.mean"}, "--price"},
		{"bad handler", []string{"--repo", repo, "sell", "add", "--price", "1", "--handler", "shell:ls", "compute.statistics.mean"}, "unknown kind"},
		{"malformed listen multiaddr", []string{"--repo", repo, "daemon", "--listen", "/ip4/not-an-ip/tcp/1"}, "multiaddr"},
		{"bootstrap without peer id", []string{"--repo", repo, "daemon", "--bootstrap", "/ip4/127.0.0.1/tcp/1"}, "/p2p/"},
		{"malformed bootstrap at init", []string{"--repo", filepath.Join(t.TempDir(), "r"), "init", "--bootstrap", "garbage"}, "multiaddr"},
		{"unknown flag", []string{"--repo", repo, "find", "--bogus", "text"}, "unknown flag --bogus for find"},
		{"unknown global flag", []string{"--bogus"}, "unknown flag --bogus for swarmwage"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown subcommand", []string{"sell", "frobnicate"}, "unknown subcommand \"frobnicate\" for sell; valid: add"},
		{"missing repo", []string{"--repo", missing, "sell", "list"}, "run 'swarmwage init'"},
		{"missing repo for daemon", []string{"--repo", missing, "daemon"}, "run 'swarmwage init'"},
		{"init over a repo", []string{"--repo", repo, "init"}, "repo already exists"},
		{"jobs list limit", []string{"--repo", repo, "jobs", "list", "--limit", "-1"}, "--limit"},
		{"bad network name", []string{"--repo", filepath.Join(t.TempDir(), "r"), "init", "--network", "Bad_Name"}, "network"},
		{"api not on loopback", []string{"--repo", filepath.Join(t.TempDir(), "r"), "init", "--api", "0.0.0.0:5000"}, "loopback"},
		{"find limit", []string{"--repo", repo, "find", "--limit", "0", "text"}, "--limit"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r := swarmwage(t, tc.args...)
			require.Equal(t, 2, r.Code, "stdout=%s stderr=%s", r.Stdout, r.Stderr)
			require.Contains(t, r.Stderr, tc.want)
			require.Equal(t, 1, strings.Count(r.Stderr, "Error:"), "the error is printed once: %s", r.Stderr)
		})
	}
}

func TestCLIOfflineCommandsWorkWithoutDaemon(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	worker := filepath.Join(t.TempDir(), "worker.py") // a handler's script must exist
	require.NoError(t, os.WriteFile(worker, []byte("print('{}')\n"), 0o600))
	r := swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.5", "--handler", "exec:python3 "+worker, "custom.me.thing")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", repo, "id", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var id struct {
		idJSON
		Listings []string `json:"listings"`
		Online   bool     `json:"online"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &id))
	require.Equal(t, []string{"custom.me.thing"}, id.Listings)
	require.False(t, id.Online)

	r = swarmwage(t, "--repo", repo, "find", "custom.me.thing")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "start 'swarmwage daemon' first")
	r = swarmwage(t, "--repo", repo, "peers")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "swarmwage daemon")
}

// TestCLIRepoFlagAnywhere: --repo works before or after the command, and
// $SWARMWAGE_REPO when neither is given.
func TestCLIRepoFlagAnywhere(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo")
	r := swarmwage(t, "init", "--repo", dir, "--network", "clitest")
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, args := range [][]string{
		{"--repo", dir, "id", "--json"},
		{"id", "--repo", dir, "--json"},
		{"id", "--json", "--repo", dir},
	} {
		r := swarmwage(t, args...)
		require.Equal(t, 0, r.Code, "%v: %s", args, r.Stderr)
		require.Contains(t, r.Stdout, `"network": "clitest"`)
	}
}
