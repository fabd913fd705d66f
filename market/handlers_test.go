package market

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/lockedbuf"
)

const (
	// envDumpArg as the test binary's first argument makes it an exec
	// handler that prints its environment as a JSON array (an argument,
	// not a variable: handlers get a minimal environment).
	envDumpArg = "market-test-env-dump"
	// nodeParentEnv makes the test binary act as a node that runs one exec
	// handler (the variable's value is its shell script) until killed.
	nodeParentEnv = "MARKET_TEST_NODE_RUNS_SCRIPT"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == envDumpArg {
		out, _ := json.Marshal(map[string]any{"env": os.Environ()})
		fmt.Println(string(out))
		os.Exit(0)
	}
	if script := os.Getenv(nodeParentEnv); script != "" {
		_, err := runExec(context.Background(), HandlerConfig{Kind: HandlerExec, Command: []string{"/bin/sh", "-c", script}}, json.RawMessage(`{}`))
		fmt.Fprintln(os.Stderr, "handler ended:", err)
		os.Exit(3)
	}
	// Fail the package when a test leaves goroutines behind: hosts,
	// handlers, timers and the outbox must all end with Close.
	goleak.VerifyTestMain(m)
}

// requirePublic checks that err is a handler failure whose public part is
// class (with status) and holds none of the secrets, while the error itself
// (what the seller logs) holds logged.
func requirePublic(t *testing.T, err error, class string, status int, logged string, secrets ...string) {
	t.Helper()
	require.ErrorIs(t, err, ErrHandler)
	msg, st, _ := publicFailure(err)
	require.Equal(t, class, msg)
	require.Equal(t, status, st)
	for _, s := range secrets {
		require.NotContains(t, msg, s)
	}
	require.Contains(t, err.Error(), logged, "the seller's log keeps the detail")
}

func TestExecHandlerFailuresAreClassified(t *testing.T) {
	testCases := []struct {
		name    string
		argv    []string
		timeout time.Duration
		class   string
		secrets []string
	}{
		{"exit code", []string{"/bin/sh", "-c", `echo "AWS_SECRET=hunter2 at /srv/seller/keys" >&2; exit 3`}, 0,
			"handler failed with exit 3", []string{"hunter2", "/srv/seller", "/bin/sh"}},
		{"exit 255", []string{"/bin/sh", "-c", "exit 255"}, 0, "handler failed with exit 255", []string{"/bin/sh"}},
		{"timeout", []string{"/bin/sh", "-c", `echo secret-stderr >&2; sleep 30`}, 300 * time.Millisecond,
			"handler timed out", []string{"secret-stderr"}},
		{"not JSON", []string{"/bin/sh", "-c", `echo "internal path /srv/x"`}, 0,
			"handler output is not valid JSON", []string{"/srv/x"}},
		{"too large", []string{"/bin/sh", "-c", fmt.Sprintf("head -c %d /dev/zero", maxHandlerOutput+1)}, 0,
			"handler output too large", []string{"/bin/sh"}},
		{"not found", []string{"/srv/seller/bin/no-such-worker"}, 0,
			"handler failed to start", []string{"/srv/seller/bin"}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			_, err := runExec(ctx, HandlerConfig{Kind: HandlerExec, Command: tc.argv}, json.RawMessage(`{}`))
			requirePublic(t, err, tc.class, http.StatusInternalServerError, tc.secrets[0], tc.secrets...)
		})
	}

	t.Run("killed by a signal", func(t *testing.T) {
		mark := newMark(t)
		errc := make(chan error, 1)
		go func() {
			_, err := runExec(t.Context(), HandlerConfig{Kind: HandlerExec, Command: []string{"/bin/sh", "-c", "echo secret-stderr >&2; sleep " + mark}}, json.RawMessage(`{}`))
			errc <- err
		}()
		var pids []int
		require.Eventually(t, func() bool { pids = processesWith(t, mark); return len(pids) == 2 }, 10*time.Second, 20*time.Millisecond)
		for _, pid := range pids { // the shell and its sleep, which this test started
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		requirePublic(t, <-errc, "handler failed: killed by a signal", http.StatusInternalServerError, "secret-stderr", "secret-stderr", "/bin/sh")
	})

	out, err := runExec(t.Context(), HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}}, json.RawMessage(` {"a": 1} `))
	require.NoError(t, err)
	require.Equal(t, `{"a": 1}`, string(out))
}

// envOf runs the test binary as a handler that prints its environment.
func envOf(t *testing.T, run func(exe string) (json.RawMessage, error)) map[string]string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	out, err := run(exe)
	require.NoError(t, err)
	var dump struct{ Env []string }
	require.NoError(t, json.Unmarshal(out, &dump))
	env := map[string]string{}
	for _, kv := range dump.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// Handlers get PATH, a HOME and TMPDIR of the job's own, LANG=C.UTF-8 and
// the variables the listing names, nothing else of the node's environment.
func TestHandlersGetAMinimalEnvironment(t *testing.T) {
	t.Setenv("SWARMWAGE_TEST_SECRET", "s3cret")
	t.Setenv("PASS_ME", "yes")
	t.Setenv("HOME", "/root/real-home")
	execHandler := func(pass ...string) func(exe string) (json.RawMessage, error) {
		return func(exe string) (json.RawMessage, error) {
			return runExec(t.Context(), HandlerConfig{Kind: HandlerExec, Command: []string{exe, envDumpArg}, Env: pass}, json.RawMessage(`{}`))
		}
	}
	card := func(pass ...string) func(exe string) (json.RawMessage, error) {
		return func(exe string) (json.RawMessage, error) {
			return runSkillCard(t.Context(), HandlerConfig{Kind: HandlerSkillCard, SkillCard: envDumpCard(t, exe), Env: pass}, json.RawMessage(`{}`))
		}
	}
	for _, h := range []struct {
		name string
		run  func(pass ...string) func(string) (json.RawMessage, error)
	}{{"exec", execHandler}, {"skillcard cli", card}} {
		t.Run(h.name, func(t *testing.T) {
			env := envOf(t, h.run())
			require.ElementsMatch(t, []string{"PATH", "HOME", "TMPDIR", "LANG"}, keys(env))
			require.Equal(t, os.Getenv("PATH"), env["PATH"])
			require.Equal(t, "C.UTF-8", env["LANG"])
			require.Equal(t, env["HOME"], env["TMPDIR"])
			require.NotEqual(t, "/root/real-home", env["HOME"])
			require.NoDirExists(t, env["HOME"], "the job's home is removed after the job")

			env = envOf(t, h.run("PASS_ME", "NOT_SET_ANYWHERE", "HOME"))
			require.ElementsMatch(t, []string{"PATH", "HOME", "TMPDIR", "LANG", "PASS_ME"}, keys(env))
			require.Equal(t, "yes", env["PASS_ME"])
			require.Equal(t, "/root/real-home", env["HOME"], "a named variable replaces the minimal value")
		})
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// envDumpCard is a valid SkillCard whose cli binding runs exe envDumpArg.
func envDumpCard(t *testing.T, exe string) json.RawMessage {
	t.Helper()
	return testCard(t, "'"+exe+"' "+envDumpArg, `{"type":"object"}`)
}

// testCard is the example card of the skillcard package with its binding
// replaced by command and its outputs_schema by outSchema.
func testCard(t *testing.T, command, outSchema string) json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("../skillcard/testdata/apeclaw-nft-autobuy.v1.0.0.json")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	doc["bindings"] = []any{map[string]any{"type": "cli", "command": command}}
	doc["inputs_schema"] = map[string]any{"type": "object"}
	var out any
	require.NoError(t, json.Unmarshal([]byte(outSchema), &out))
	doc["outputs_schema"] = out
	card, err := json.Marshal(doc)
	require.NoError(t, err)
	return card
}

func TestSkillCardFailuresAreClassified(t *testing.T) {
	testCases := []struct {
		name    string
		command string
		input   string
		class   string
		status  int
		logged  string
		secrets []string
	}{
		{"option injection", `/bin/sh -c 'touch ran' sh <a>.txt`, `{"a":"--output=/tmp/x"}`,
			"input rejected: the value of <a> starts with '-' and would be read as an option", http.StatusBadRequest,
			"skillcard apeclaw-nft-autobuy", []string{"/bin/sh", "touch"}},
		{"missing value", `/bin/sh -c 'touch ran' sh <a>`, `{}`,
			"input rejected: the input has no value for <a>", http.StatusBadRequest, "skillcard apeclaw-nft-autobuy", []string{"/bin/sh"}},
		{"exit code", `/bin/sh -c 'echo token=hunter2 >&2; exit 3'`, `{}`,
			"handler failed with exit 3", http.StatusInternalServerError, "hunter2", []string{"hunter2", "/bin/sh"}},
		{"not JSON", `/bin/sh -c 'echo /srv/internal'`, `{}`,
			"handler output is not valid JSON", http.StatusInternalServerError, "/srv/internal", []string{"/srv/internal"}},
		{"output schema", `/bin/sh -c 'echo "{\"internal\":1}"'`, `{}`,
			"handler output does not match its schema", http.StatusInternalServerError, "missing property 'count'", []string{"count"}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			card := testCard(t, tc.command, `{"type":"object","required":["count"]}`)
			_, err := runSkillCard(t.Context(), HandlerConfig{Kind: HandlerSkillCard, SkillCard: card, Dir: dir}, json.RawMessage(tc.input))
			requirePublic(t, err, tc.class, tc.status, tc.logged, tc.secrets...)
			require.NoFileExists(t, filepath.Join(dir, "ran"))
		})
	}
}

func TestHTTPHandlerFailuresAreClassified(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		fmt.Fprint(w, `{"stolen":true}`)
	}))
	t.Cleanup(other.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/redirect-other-port", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/redirect-same-host", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok", http.StatusFound)
	})
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, ` {"ok":true} `) })
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "db password hunter2 rejected", http.StatusBadGateway)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "internal page") })
	release := make(chan struct{})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close: cleanups run last first
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	h := &handlers{http: &http.Client{}}
	offer := func(url string) Offer {
		return Offer{Handler: HandlerConfig{Kind: HandlerHTTP, URL: url}, Signed: SignedListing{Listing: Listing{Capability: "custom.test.http"}}}
	}
	testCases := []struct {
		name    string
		url     string
		timeout time.Duration
		class   string
		secrets []string
	}{
		{"redirect to another port", srv.URL + "/redirect-other-port", 0, "handler answered a redirect", []string{srv.URL, other.URL}},
		{"redirect on the same host", srv.URL + "/redirect-same-host", 0, "handler answered a redirect", []string{srv.URL}},
		{"error status", srv.URL + "/fail", 0, "handler failed with HTTP 502", []string{"hunter2", srv.URL}},
		{"not JSON", srv.URL + "/text", 0, "handler output is not valid JSON", []string{"internal page"}},
		{"timeout", srv.URL + "/slow", 300 * time.Millisecond, "handler timed out", []string{srv.URL}},
		{"unreachable", closedURL + "/x", 0, "handler unreachable", []string{closedURL}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			_, err := h.run(ctx, offer(tc.url), json.RawMessage(`{"q":1}`))
			requirePublic(t, err, tc.class, http.StatusInternalServerError, tc.secrets[0], tc.secrets...)
		})
	}
	require.Zero(t, elsewhere.Load(), "the input was never posted to the redirect's target")

	out, err := h.run(t.Context(), offer(srv.URL+"/ok"), json.RawMessage(`{}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"ok":true}`, string(out))
}

func TestCheckEnvNames(t *testing.T) {
	require.NoError(t, CheckEnvNames(nil))
	require.NoError(t, CheckEnvNames([]string{"OPENAI_API_KEY", "_x", "a1"}))
	for _, bad := range []string{"", "1A", "A-B", "A=B", "A B", "É"} {
		require.ErrorContains(t, CheckEnvNames([]string{bad}), "is not a variable name", bad)
	}
	require.ErrorContains(t, CheckEnvNames(make([]string, maxEnvNames+1)), "at most")
}

// A job whose exec handler fails tells the buyer only the class of the
// failure: in the hire's error, in both escrow records' reasons and in the
// job status the buyer can fetch. The seller's log has the stderr.
func TestFailedJobTellsTheBuyerOnlyTheClass(t *testing.T) {
	var logBuf lockedbuf.Buffer
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot, Logger(slog.New(slog.NewTextHandler(&logBuf, nil))))
	buyer := setupPeer(t, boot)
	const secret = "DATABASE_URL=postgres://seller:hunter2@10.0.0.5/prod"
	_, err := seller.market.AddListing(context.Background(), ListingParams{
		Capability: "custom.test.fail", Price: 10_000,
		Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"/bin/sh", "-c", "echo '" + secret + "' >&2; exit 3"}},
	})
	require.NoError(t, err)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))

	res, err := buyer.market.Hire(ctx, HireRequest{Capability: "custom.test.fail", Input: json.RawMessage(`{"a":1}`), Timeout: 20 * time.Second})
	require.ErrorIs(t, err, ErrJobFailed)
	require.Contains(t, err.Error(), "handler failed with exit 3")
	require.NotContains(t, err.Error(), "hunter2")

	var texts []string
	for _, side := range []struct {
		p    *testPeer
		role escrow.Role
	}{{buyer, escrow.RoleBuyer}, {seller, escrow.RoleSeller}} {
		require.Eventually(t, func() bool {
			rec, err := side.p.market.escrow.GetRole(ctx, res.JobID, side.role)
			return err == nil && rec.Reason != ""
		}, 10*time.Second, 50*time.Millisecond)
		rec, err := side.p.market.escrow.GetRole(ctx, res.JobID, side.role)
		require.NoError(t, err)
		texts = append(texts, rec.Reason)
	}
	require.Equal(t, "handler failed with exit 3", texts[1], "the seller's escrow reason")
	require.Contains(t, texts[0], "handler failed with exit 3", "the buyer's escrow reason")

	var st JobStatus
	_, _, err = buyer.market.client.do(ctx, peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}, http.MethodGet, "/jobs/"+res.JobID, nil, maxEventLine, &st)
	require.NoError(t, err)
	require.Equal(t, StatusFailed, st.Status)
	require.Equal(t, "handler failed with exit 3", st.Error)
	texts = append(texts, st.Error)
	rec, err := seller.market.Job(ctx, res.JobID)
	require.NoError(t, err)
	texts = append(texts, rec.Error)
	for _, s := range texts {
		require.NotContains(t, s, "hunter2")
		require.NotContains(t, s, "/bin/sh")
	}
	require.Contains(t, logBuf.String(), "hunter2", "the seller's log keeps the detail")
}

// An exec handler and its grandchildren die with the node when the node is
// killed with SIGKILL. The node is this test binary, re-executed to run one
// exec handler through runExec.
func TestExecHandlerDiesWithTheNode(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	mark := newMark(t)
	node := exec.Command(exe, "-test.run=^$")
	node.Env = append(os.Environ(), nodeParentEnv+fmt.Sprintf("=setsid sleep %[1]s & sleep %[1]s & sleep %[1]s", mark))
	var stderr lockedbuf.Buffer
	node.Stderr = &stderr
	require.NoError(t, node.Start())
	t.Cleanup(func() { _ = node.Process.Kill(); _ = node.Wait() })

	require.Eventually(t, func() bool { return len(processesWith(t, mark)) == 4 }, 10*time.Second, 20*time.Millisecond,
		"the handler shell and its three sleeps run (node stderr: %s)", &stderr)
	require.NoError(t, node.Process.Signal(syscall.SIGKILL))
	_ = node.Wait()
	require.Eventually(t, func() bool { return len(processesWith(t, mark)) == 0 }, 10*time.Second, 20*time.Millisecond,
		"no handler process outlives the node")
}

// newMark is a sleep duration no other process uses, so a test finds the
// processes it started by their command lines. Those still there when the
// test ends are killed, by PID.
func newMark(t *testing.T) string {
	t.Helper()
	var b [4]byte
	_, err := rand.Read(b[:])
	require.NoError(t, err)
	mark := fmt.Sprintf("%d.%09d", 900+binary.LittleEndian.Uint32(b[:])%99, binary.LittleEndian.Uint32(b[:])%1_000_000_000)
	t.Cleanup(func() {
		for _, pid := range processesWith(t, mark) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return mark
}

// processesWith lists live (not zombie) processes whose command line holds
// mark.
func processesWith(t *testing.T, mark string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(mark)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); err == nil && i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// recordLines is a slog handler that keeps the "line" of every record.
type recordLines struct {
	mu    sync.Mutex
	lines []string
	attrs []slog.Attr
}

func (h *recordLines) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordLines) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			h.lines = append(h.lines, a.Value.String())
		}
		return true
	})
	return nil
}
func (h *recordLines) WithAttrs(as []slog.Attr) slog.Handler {
	h.mu.Lock()
	h.attrs = append(h.attrs, as...)
	h.mu.Unlock()
	return h
}
func (h *recordLines) WithGroup(string) slog.Handler { return h }

// An exec handler's stderr reaches the seller's log a line at a time, with
// the job's attributes, also when the handler succeeds; a last line without
// a newline is logged too, and long lines are cut.
func TestExecHandlerStderrIsLogged(t *testing.T) {
	rec := &recordLines{}
	ctx := withHandlerLog(t.Context(), slog.New(rec).With("job", "job-1"))
	long := strings.Repeat("x", maxStderrLine+10)
	script := `echo "loading model" >&2; printf 'second\r\n' >&2; echo ` + long + ` >&2; printf 'no newline' >&2; echo '{"ok":true}'`
	out, err := runExec(ctx, HandlerConfig{Kind: HandlerExec, Command: []string{"/bin/sh", "-c", script}}, json.RawMessage(`{}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"ok":true}`, string(out))
	require.Equal(t, []string{"loading model", "second", long[:maxStderrLine], "xxxxxxxxxx", "no newline"}, rec.lines)
	require.Equal(t, []slog.Attr{slog.String("job", "job-1")}, rec.attrs)
}

// One job logs at most maxHandlerStderr bytes of stderr, then says so.
func TestExecHandlerStderrLogIsBounded(t *testing.T) {
	rec := &recordLines{}
	w := &stderrLog{log: slog.New(rec), tail: &limitedBuffer{max: maxHandlerStderr}}
	line := []byte(strings.Repeat("y", 1023) + "\n")
	for range 200 {
		_, err := w.Write(line)
		require.NoError(t, err)
	}
	w.flush()
	require.Len(t, rec.lines, maxHandlerStderr/1023+1)
	require.Contains(t, rec.lines[len(rec.lines)-1], "more stderr not logged")
	require.True(t, w.tail.overflow)
}
