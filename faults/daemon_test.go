package faults

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swarmwage/swarmwage/internal/failpoint"
)

const (
	// readyTimeout bounds a daemon's start-up until "Daemon is ready".
	readyTimeout = 30 * time.Second
	// cliTimeout bounds one CLI command that is not a hire.
	cliTimeout = 60 * time.Second
	// stopTimeout is how long a SIGTERMed daemon may take to shut down.
	stopTimeout = 15 * time.Second
)

// daemon is one swarmwage daemon of a test: a repo in a temp dir, a fixed
// libp2p port (so that peers find it again after a restart) and, while it
// runs, a process. Its stderr of every run goes to one log file.
type daemon struct {
	name string
	repo string
	port int
	id   string
	log  string
	// args are more flags of 'daemon' (--agent-http ADDR).
	args []string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when the current process has exited
	exitErr error
	starts  int
	// spec is the SWARMWAGE_FAILPOINTS of the current or last run.
	spec string
}

// handedOut are the ports freePort gave out in this process: daemons keep
// theirs across restarts, and libp2p listens with SO_REUSEPORT, so two
// daemons must never get the same one.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: make(map[int]bool)}

// freePort returns a TCP port on 127.0.0.1 that nothing listens on now
// and that no other daemon of this test process has. It lies outside the
// kernel's ephemeral range: a daemon keeps its port across a restart, and
// while it is down any bind to port 0 (another daemon's control API, an
// RPC proxy, anvil) could otherwise be handed the same port.
func freePort(t testing.TB) int {
	t.Helper()
	lo, hi := fixedPortRange(t)
	handedOut.Lock()
	defer handedOut.Unlock()
	for range 1000 {
		port := lo + rand.IntN(hi-lo)
		if handedOut.ports[port] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue // another process of the suite has it
		}
		ln.Close()
		handedOut.ports[port] = true
		return port
	}
	t.Fatalf("no free port in [%d, %d) that was not handed out already", lo, hi)
	return 0
}

// fixedPortRange is the larger span of ports outside the kernel's
// ephemeral range (net.ipv4.ip_local_port_range), above the privileged ones.
func fixedPortRange(t testing.TB) (lo, hi int) {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Fatalf("read the ephemeral port range: %v", err)
	}
	var elo, ehi int
	if _, err := fmt.Sscan(string(b), &elo, &ehi); err != nil {
		t.Fatalf("parse the ephemeral port range %q: %v", b, err)
	}
	below, above := elo-1024, 65536-(ehi+1)
	if max(below, above) < 1000 {
		t.Fatalf("the ephemeral port range %d-%d leaves fewer than 1000 ports for fixed ones", elo, ehi)
	}
	if below >= above {
		return 1024, elo
	}
	return ehi + 1, 65536
}

// addr is the daemon's libp2p address with /p2p/.
func (d *daemon) addr() string {
	return fmt.Sprintf("/ip4/127.0.0.1/tcp/%d/p2p/%s", d.port, d.id)
}

// baseEnv is the test's environment without SWARMWAGE_ variables, so that
// nothing of the caller's (a repo, failpoints) leaks into a daemon.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWARMWAGE_") {
			env = append(env, kv)
		}
	}
	return env
}

// start runs the daemon with the failpoints spec (may be empty) and waits
// until it is ready.
func (d *daemon) start(t testing.TB, failpoints string) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		err := d.tryStart(failpoints)
		if err == nil {
			return
		}
		// An offline CLI command of the test may hold the repo lock for a
		// moment; anything else is a failure.
		if attempt < 3 && strings.Contains(err.Error(), "repo is in use") {
			continue
		}
		t.Fatalf("start daemon %s: %v\n%s", d.name, err, d.tail(30))
	}
}

func (d *daemon) tryStart(failpoints string) error {
	d.mu.Lock()
	if d.cmd != nil && !closed(d.done) {
		d.mu.Unlock()
		return errors.New("already running")
	}
	d.starts++
	logf, err := os.OpenFile(d.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		d.mu.Unlock()
		return err
	}
	fmt.Fprintf(logf, "=== start %d at %s, %s=%q\n", d.starts, time.Now().Format(time.RFC3339Nano), failpoint.EnvVar, failpoints)
	cmd := exec.Command(bin.Path(), append([]string{"--repo", d.repo, "daemon", "--log-level", "info"}, d.args...)...)
	cmd.Env = append(baseEnv(), failpoint.EnvVar+"="+failpoints)
	cmd.Stderr = logf
	// The daemon dies with the test binary, whatever ends it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		d.mu.Unlock()
		return err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		d.mu.Unlock()
		return err
	}
	done := make(chan struct{})
	ready := make(chan struct{})
	d.cmd, d.done, d.exitErr, d.spec = cmd, done, nil, failpoints
	d.mu.Unlock()
	go func() {
		sc := bufio.NewScanner(stdout)
		signalled := false
		for sc.Scan() {
			fmt.Fprintf(logf, "stdout: %s\n", sc.Text())
			if !signalled && strings.HasPrefix(sc.Text(), "Daemon is ready") {
				close(ready)
				signalled = true
			}
		}
		err := cmd.Wait()
		fmt.Fprintf(logf, "=== exit at %s: %v\n", time.Now().Format(time.RFC3339Nano), describeExit(err))
		logf.Close()
		d.mu.Lock()
		d.exitErr = err
		d.mu.Unlock()
		close(done)
	}()
	select {
	case <-ready:
		return nil
	case <-done:
		return fmt.Errorf("exited before it was ready: %s", describeExit(d.err()))
	case <-time.After(readyTimeout):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("not ready after %s", readyTimeout)
	}
}

func closed(ch chan struct{}) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// failpoints is the SWARMWAGE_FAILPOINTS of the current or last run.
func (d *daemon) failpoints() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.spec
}

func (d *daemon) err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.exitErr
}

// running reports whether the daemon's process is alive.
func (d *daemon) running() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cmd != nil && !closed(d.done)
}

// waitExit waits up to timeout for the process to end by itself; it
// reports whether it did and how it ended.
func (d *daemon) waitExit(timeout time.Duration) (bool, error) {
	d.mu.Lock()
	done := d.done
	d.mu.Unlock()
	if done == nil {
		return true, nil
	}
	select {
	case <-done:
		return true, d.err()
	case <-time.After(timeout):
		return false, nil
	}
}

// kill SIGKILLs the daemon, as a power cut would, and waits for it.
func (d *daemon) kill() {
	d.mu.Lock()
	cmd, done := d.cmd, d.done
	d.mu.Unlock()
	if cmd == nil || closed(done) {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// stop shuts the daemon down with SIGTERM, and kills it if that hangs.
func (d *daemon) stop() error {
	d.mu.Lock()
	cmd, done := d.cmd, d.done
	d.mu.Unlock()
	if cmd == nil || closed(done) {
		return nil
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
		return d.err()
	case <-time.After(stopTimeout):
		d.kill()
		return fmt.Errorf("daemon %s did not stop within %s of SIGTERM", d.name, stopTimeout)
	}
}

// killedBy reports whether err is a process end by signal sig.
func killedBy(err error, sig syscall.Signal) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

func describeExit(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

// fired reports whether the daemon's log shows that failpoint name acted
// (on any of its runs).
func (d *daemon) fired(name string) bool {
	data, err := os.ReadFile(d.log)
	return err == nil && bytes.Contains(data, []byte("failpoint: "+name+": "))
}

// hits is how many times the daemon's log shows failpoint name acting
// (on all of its runs).
func (d *daemon) hits(name string) int {
	data, err := os.ReadFile(d.log)
	if err != nil {
		return 0
	}
	return bytes.Count(data, []byte("failpoint: "+name+": "))
}

// waitHit waits until failpoint name acted more than before times: a
// failpoint says so in the log before it acts, so a sleep that holds a
// job open is known to have begun without polling for the job's state
// (which, on a loaded machine, may not land inside a short hold).
func (d *daemon) waitHit(t testing.TB, name string, before int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for d.hits(name) <= before {
		if time.Now().After(deadline) {
			t.Fatalf("failpoint %s of %s did not act within 30 s (%d times before)", name, d.name, before)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tail is the last n lines of the daemon's log, for failure messages.
func (d *daemon) tail(n int) string {
	data, err := os.ReadFile(d.log)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "--- log of " + d.name + " (" + d.log + "), last lines:\n" + strings.Join(lines, "\n")
}

// cliResult is what one CLI command printed and how it exited.
type cliResult struct {
	args   []string
	stdout []byte
	stderr []byte
	code   int
	err    error // set when the command could not run or was killed
}

func (r cliResult) String() string {
	return fmt.Sprintf("swarmwage %s: exit %d: %s %s", strings.Join(r.args, " "), r.code,
		strings.TrimSpace(string(r.stderr)), describeErr(r.err))
}

func describeErr(err error) string {
	if err == nil {
		return ""
	}
	return "(" + err.Error() + ")"
}

// ok reports whether the command ran and exited 0.
func (r cliResult) ok() bool { return r.err == nil && r.code == 0 }

// run runs the CLI on the daemon's repo with a deadline.
func (d *daemon) run(timeout time.Duration, args ...string) cliResult {
	r := runBin(timeout, append([]string{"--repo", d.repo}, args...)...)
	r.args = args
	return r
}

// runBin runs the CLI with args, on no repo of its own, with a deadline.
func runBin(timeout time.Duration, args ...string) cliResult {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.Path(), args...)
	cmd.Env = baseEnv()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	res := cliResult{args: args, stdout: out.Bytes(), stderr: errOut.Bytes()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		res.code = ee.ExitCode()
	default:
		res.code, res.err = -1, err
	}
	return res
}

// cli runs a CLI command that must succeed.
func (d *daemon) cli(t testing.TB, args ...string) []byte {
	t.Helper()
	r := d.run(cliTimeout, args...)
	if !r.ok() {
		t.Fatalf("%s", r)
	}
	return r.stdout
}

// apiPost posts body to path on the daemon's control API.
func (d *daemon) apiPost(path string, body []byte) (int, []byte, error) {
	url, err := os.ReadFile(filepath.Join(d.repo, "api"))
	if err != nil {
		return 0, nil, fmt.Errorf("daemon %s has no api file: %w", d.name, err)
	}
	tok, err := os.ReadFile(filepath.Join(d.repo, "api.token"))
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequest(http.MethodPost, strings.TrimSpace(string(url))+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("POST %s on %s: %w", path, d.name, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, data, err
}

// crashReason is the Go runtime's first words about a crash in the
// daemon's last run ("unexpected fault address", "fatal error: ...",
// "panic: ..."), or "".
func (d *daemon) crashReason() string {
	data, err := os.ReadFile(d.log)
	if err != nil {
		return ""
	}
	runs := strings.Split(string(data), "\n=== start ")
	var out []string
	for _, line := range strings.Split(runs[len(runs)-1], "\n") {
		for _, p := range []string{"fatal error:", "panic:", "unexpected fault address", "[signal "} {
			if strings.HasPrefix(line, p) && len(out) < 3 {
				out = append(out, line)
			}
		}
	}
	return strings.Join(out, "; ")
}
