package nattest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/gobuild"
)

var (
	tries   = flag.Int("nat.tries", 3, "hole punches to measure: each one a fresh buyer-b daemon whose NAT mappings are forgotten (the closing note used 20)")
	verbose = flag.Bool("nat.v", false, "print the daemons' logs")
)

// bin is the swarmwage binary, built once by TestMain.
var bin *gobuild.Binary

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "swarmwage-nattest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin, err = gobuild.Build("..", "./cmd/swarmwage", filepath.Join(dir, "swarmwage"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "build swarmwage:", err)
		return 1
	}
	return m.Run()
}

// peer is one swarmwage node of the topology: a repo and, while it runs,
// its daemon, in role's namespace.
type peer struct {
	tp   *topology
	role string
	repo string

	mu     sync.Mutex
	daemon *exec.Cmd
	exited chan struct{}
	logs   []string // log file of each daemon run
}

// newPeer initialises a repo for role on network; its daemon listens on
// port 4747 (TCP and QUIC) on every address of its namespace.
func newPeer(t *testing.T, tp *topology, role, network string, initArgs ...string) *peer {
	t.Helper()
	p := &peer{tp: tp, role: role, repo: filepath.Join(t.TempDir(), role)}
	args := append([]string{"init", "--network", network,
		"--listen", "/ip4/0.0.0.0/tcp/4747", "--listen", "/ip4/0.0.0.0/udp/4747/quic-v1",
		"--api", "127.0.0.1:0"}, initArgs...)
	r := p.cli(t, args...)
	require.Equal(t, 0, r.code, r.stderr)
	return p
}

// cliResult is what one run of the binary printed and its exit code.
type cliResult struct {
	stdout, stderr string
	code           int
}

// cli runs the binary in p's namespace against p's repo, as a user there
// would: the control API is on that namespace's loopback.
func (p *peer) cli(t *testing.T, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", p.tp.ns[p.role], bin.Path(), "--repo", p.repo}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+p.repo, "SWARMWAGE_REPO=")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: swarmwage %v: %v", p.role, args, err)
	}
	return cliResult{stdout: out.String(), stderr: errOut.String(), code: code}
}

// cliJSON runs a command that prints JSON and decodes it into out.
func (p *peer) cliJSON(t *testing.T, out any, args ...string) {
	t.Helper()
	r := p.cli(t, args...)
	require.Equal(t, 0, r.code, "%s: swarmwage %v: %s", p.role, args, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), out), "%s: swarmwage %v printed %s", p.role, args, r.stdout)
}

// setConfig appends TOML to p's config.toml.
func (p *peer) setConfig(t *testing.T, toml string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(p.repo, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n" + toml + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// start runs p's daemon with args and waits until it is ready. The daemon
// is stopped when the test ends.
func (p *peer) start(t *testing.T, args ...string) {
	t.Helper()
	log := filepath.Join(filepath.Dir(p.repo), fmt.Sprintf("%s.%d.log", p.role, len(p.logs)))
	f, err := os.Create(log)
	require.NoError(t, err)
	cmd := exec.Command("ip", append([]string{"netns", "exec", p.tp.ns[p.role], bin.Path(), "--repo", p.repo,
		"daemon", "--log-level", "info"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+p.repo, "SWARMWAGE_REPO=")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = f
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			fmt.Fprintln(f, sc.Text())
			if strings.HasPrefix(sc.Text(), "Daemon is ready") {
				select {
				case ready <- sc.Text():
				default:
				}
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(exited)
	}()
	p.mu.Lock()
	p.daemon, p.exited, p.logs = cmd, exited, append(p.logs, log)
	p.mu.Unlock()
	t.Cleanup(func() {
		p.stop(t)
		if *verbose || t.Failed() {
			b, _ := os.ReadFile(log)
			t.Logf("%s daemon log (%s):\n%s", p.role, log, b)
		}
	})
	select {
	case <-ready:
	case <-exited:
		b, _ := os.ReadFile(log)
		t.Fatalf("%s daemon exited before it was ready:\n%s", p.role, b)
	case <-time.After(time.Minute):
		t.Fatalf("%s daemon not ready after a minute", p.role)
	}
}

// stop ends p's daemon with SIGTERM (SIGKILL if it lingers); it is a no-op
// when none runs.
func (p *peer) stop(t *testing.T) {
	p.mu.Lock()
	cmd, exited := p.daemon, p.exited
	p.daemon = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Errorf("%s daemon ignored SIGTERM for 20s; killing it", p.role)
		_ = cmd.Process.Kill()
		<-exited
	}
}

// log is the text of p's daemon logs so far.
func (p *peer) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, l := range p.logs {
		data, _ := os.ReadFile(l)
		b.Write(data)
	}
	return b.String()
}

// status is what 'swarmwage status --json' prints (the fields used here).
type status struct {
	PeerID       string   `json:"peer_id"`
	Online       bool     `json:"online"`
	Peers        int      `json:"peers"`
	DHTPeers     int      `json:"dht_peers"`
	Reachability string   `json:"reachability"`
	RelayAddrs   []string `json:"relay_addrs"`
	HolePunch    struct {
		Attempts  int `json:"attempts"`
		Successes int `json:"successes"`
		Last      *struct {
			Peer    string `json:"peer"`
			Success bool   `json:"success"`
		} `json:"last"`
	} `json:"hole_punch"`
	Listings []struct {
		Capability    string `json:"capability"`
		LastAnnounced string `json:"last_announced"`
	} `json:"listings"`
	Balance struct {
		Available string `json:"available"`
		Earned    string `json:"earned"`
		Held      string `json:"held"`
	} `json:"balance"`
}

func (p *peer) status(t *testing.T) status {
	t.Helper()
	var s status
	p.cliJSON(t, &s, "status", "--json")
	return s
}

// idInfo is what 'swarmwage id --json' prints (the fields used here).
type idInfo struct {
	PeerID       string   `json:"peer_id"`
	Addrs        []string `json:"addrs"`
	Reachability string   `json:"reachability"`
	RelayAddrs   []string `json:"relay_addrs"`
}

func (p *peer) id(t *testing.T) idInfo {
	t.Helper()
	var id idInfo
	p.cliJSON(t, &id, "id", "--json")
	return id
}

// hireResult is what 'swarmwage hire --json' prints (the fields used here).
type hireResult struct {
	JobID        string          `json:"job_id"`
	Seller       string          `json:"seller"`
	Output       json.RawMessage `json:"output"`
	Outcome      string          `json:"outcome"`
	Error        string          `json:"error"`
	DurationMS   int64           `json:"duration_ms"`
	Connection   string          `json:"connection"`
	Verification struct {
		Passed bool `json:"passed"`
	} `json:"verification"`
	Escrow struct {
		State string `json:"state"`
	} `json:"escrow"`
}

// hire hires capID with input and returns the result; it fails the test
// unless the hire exited 0.
func (p *peer) hire(t *testing.T, capID, input string) hireResult {
	t.Helper()
	r := p.cli(t, "hire", "--json", "--max-price", "0.05", "--timeout", "90s", "--input-json", input, capID)
	var h hireResult
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &h), "%s: hire printed %q; stderr %s", p.role, r.stdout, r.stderr)
	require.Equal(t, 0, r.code, "%s: hire exited %d: %s; %s", p.role, r.code, h.Error, r.stderr)
	return h
}

// find is what 'swarmwage find --json' prints (the fields used here).
type findResult struct {
	Sellers []struct {
		PeerID string   `json:"peer_id"`
		Addrs  []string `json:"addrs"`
	} `json:"sellers"`
}
