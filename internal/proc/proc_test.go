package proc_test

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/internal/proc"
)

// parentEnv makes the test binary act as a node that starts a handler with
// proc.Run and then waits to be killed.
const parentEnv = "PROC_TEST_PARENT_SCRIPT"

func TestMain(m *testing.M) {
	if script := os.Getenv(parentEnv); script != "" {
		err := proc.Run(func() *exec.Cmd { return exec.CommandContext(context.Background(), "/bin/sh", "-c", script) })
		fmt.Fprintln(os.Stderr, "handler ended:", err)
		os.Exit(3)
	}
	goleak.VerifyTestMain(m)
}

// marker is a sleep duration no other process on the machine uses, so the
// test finds the processes it started by their command lines.
func marker(t *testing.T) string {
	var b [4]byte
	_, err := rand.Read(b[:])
	require.NoError(t, err)
	return fmt.Sprintf("%d.%09d", 900+binary.LittleEndian.Uint32(b[:])%99, binary.LittleEndian.Uint32(b[:])%1_000_000_000)
}

// handlerScript starts a grandchild that leaves the process group
// (setsid), one that stays in it, and sleeps itself.
func handlerScript(mark string) string {
	return fmt.Sprintf("setsid sleep %[1]s & sleep %[1]s & sleep %[1]s", mark)
}

// withMarker lists the PIDs of live processes whose command line holds mark.
func withMarker(t *testing.T, mark string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), mark) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && zombie(stat) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// zombie reports whether /proc/PID/stat describes a zombie (state Z).
func zombie(stat []byte) bool {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// killLeftovers kills, by PID, processes this test started that are still
// there when it fails, so a failure does not leave sleeps behind.
func killLeftovers(t *testing.T, mark string) {
	t.Cleanup(func() {
		for _, pid := range withMarker(t, mark) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

func requireLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Fatalf("these tests need Linux (process groups, Pdeathsig, /proc); GOOS is %s", runtime.GOOS)
	}
}

func TestCancelKillsTheWholeGroup(t *testing.T) {
	requireLinux(t)
	mark := marker(t)
	killLeftovers(t, mark)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- proc.Run(func() *exec.Cmd { return exec.CommandContext(ctx, "/bin/sh", "-c", handlerScript(mark)) })
	}()
	require.Eventually(t, func() bool { return len(withMarker(t, mark)) == 4 }, 10*time.Second, 20*time.Millisecond,
		"the shell and its three sleeps run")
	cancel()
	select {
	case err := <-done:
		require.Error(t, err, "killed, not a clean exit")
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	require.Eventually(t, func() bool { return len(withMarker(t, mark)) == 0 }, 10*time.Second, 20*time.Millisecond,
		"every process, the setsid one too, is gone: %v", withMarker(t, mark))
}

func TestRunReportsExitStatus(t *testing.T) {
	requireLinux(t)
	var stdout strings.Builder
	err := proc.Run(func() *exec.Cmd {
		cmd := exec.CommandContext(t.Context(), "/bin/sh", "-c", "read x; echo got $x; exit 3")
		cmd.Stdin, cmd.Stdout = strings.NewReader("hello\n"), &stdout
		return cmd
	})
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 3, ee.ExitCode())
	require.Equal(t, "got hello\n", stdout.String())

	err = proc.Run(func() *exec.Cmd { return exec.CommandContext(t.Context(), "/nonexistent/program") })
	require.ErrorIs(t, err, os.ErrNotExist)
}

// The node is killed with SIGKILL while a handler and its grandchildren
// run: they all die with it. The node is this test binary, re-executed;
// as root the test runs it a second time as an unprivileged user, which
// needs a user namespace for the PID namespace.
func TestHandlersDieWithTheNodeOnSIGKILL(t *testing.T) {
	requireLinux(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	users := []struct {
		name string
		cred *syscall.Credential
	}{{"as this user", nil}}
	if os.Geteuid() == 0 {
		users = append(users, struct {
			name string
			cred *syscall.Credential
		}{"as nobody", &syscall.Credential{Uid: 65534, Gid: 65534}})
		exe = copyExecutable(t, exe)
	}
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			mark := marker(t)
			killLeftovers(t, mark)
			node := exec.Command(exe, "-test.run=^$")
			node.Env = append(os.Environ(), parentEnv+"="+handlerScript(mark))
			node.Dir = "/"
			node.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			var stderr strings.Builder
			node.Stderr = &stderr
			require.NoError(t, node.Start())
			t.Cleanup(func() { _ = node.Process.Kill(); _ = node.Wait() })

			require.Eventually(t, func() bool { return len(withMarker(t, mark)) == 4 }, 10*time.Second, 20*time.Millisecond,
				"the handler and its three sleeps run (node stderr: %s)", &stderr)
			if u.cred != nil {
				for _, pid := range withMarker(t, mark) {
					fi, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
					require.NoError(t, err)
					require.EqualValues(t, 65534, fi.Sys().(*syscall.Stat_t).Uid, "the handler keeps the node's uid")
				}
			}
			require.NoError(t, node.Process.Signal(syscall.SIGKILL))
			_ = node.Wait()
			require.Eventually(t, func() bool { return len(withMarker(t, mark)) == 0 }, 10*time.Second, 20*time.Millisecond,
				"no handler process outlives the node: %v", withMarker(t, mark))
		})
	}
}

// copyExecutable copies the test binary where an unprivileged user can
// run it (go test keeps it in a private directory).
func copyExecutable(t *testing.T, exe string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "proc-test-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	src, err := os.Open(exe)
	require.NoError(t, err)
	defer src.Close()
	dst := filepath.Join(dir, "proc.test")
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(f, src)
	require.NoError(t, errors.Join(err, f.Close()))
	return dst
}
