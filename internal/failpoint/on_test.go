//go:build failpoints

package failpoint_test

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/failpoint"
)

// helperEnv makes the test binary act as the process under test.
const helperEnv = "FAILPOINT_TEST_HELPER"

// TestMain lets the test binary play the process whose failpoints fire:
// with helperEnv set it hits "faults/test" three times, printing each hit.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		for i := 1; i <= 3; i++ {
			os.Stdout.WriteString("before " + string(rune('0'+i)) + "\n")
			failpoint.Inject("faults/test")
		}
		if v, ok := failpoint.Value("faults/value"); ok {
			os.Stdout.WriteString("value " + strconv.FormatInt(v, 10) + "\n")
		}
		os.Stdout.WriteString("survived\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runHelper runs the helper process with spec and returns its stdout,
// stderr and how it ended.
func runHelper(t *testing.T, spec string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=1", failpoint.EnvVar+"="+spec)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), errOut.String(), err
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("helper process did not end")
		return "", "", nil
	}
}

func killedBySIGKILL(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

func TestInject(t *testing.T) {
	require.True(t, failpoint.Enabled)
	for _, tc := range []struct {
		name, spec  string
		wantOut     string
		killed      bool
		wantStderr  string
		wantExit2   bool
		minDuration time.Duration
	}{
		{name: "kill at the first hit", spec: "faults/test=kill", wantOut: "before 1\n", killed: true, wantStderr: "failpoint: faults/test: kill (hit 1)"},
		{name: "kill@2", spec: "faults/test=kill@2", wantOut: "before 1\nbefore 2\n", killed: true, wantStderr: "failpoint: faults/test: kill@2 (hit 2)"},
		{name: "kill@4 never comes", spec: "faults/test=kill@4", wantOut: "before 1\nbefore 2\nbefore 3\nsurvived\n"},
		{name: "other point", spec: "faults/other=kill", wantOut: "before 1\nbefore 2\nbefore 3\nsurvived\n"},
		{name: "sleep", spec: "faults/test=sleep(100)", wantOut: "before 1\nbefore 2\nbefore 3\nsurvived\n", wantStderr: "failpoint: faults/test: sleep(100) (hit 3)", minDuration: 300 * time.Millisecond},
		{name: "malformed spec stops the process", spec: "faults/test=explode", wantExit2: true, wantStderr: "SWARMWAGE_FAILPOINTS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			out, stderr, err := runHelper(t, tc.spec)
			require.GreaterOrEqual(t, time.Since(start), tc.minDuration)
			require.Contains(t, stderr, tc.wantStderr)
			switch {
			case tc.killed:
				require.True(t, killedBySIGKILL(err), "want SIGKILL, got %v", err)
			case tc.wantExit2:
				var ee *exec.ExitError
				require.ErrorAs(t, err, &ee)
				require.Equal(t, 2, ee.ExitCode())
				return
			default:
				require.NoError(t, err)
			}
			require.Equal(t, tc.wantOut, out)
		})
	}
}

// A set(N) point gives its value to the code that asks, and says so on
// stderr; the process goes on.
func TestValueGivesTheSetNumber(t *testing.T) {
	out, errOut, err := runHelper(t, "faults/value=set(3000000)")
	require.NoError(t, err)
	require.Contains(t, out, "value 3000000\nsurvived")
	require.Contains(t, errOut, "failpoint: faults/value: set(3000000) (hit 1)")
}
