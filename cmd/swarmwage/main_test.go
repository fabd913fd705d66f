package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// binPath is the swarmwage binary built once for the CLI tests, which drive
// it as a user would.
var binPath string

// defaultParallel is how many tests run at once when -test.parallel is not
// given. Its default, GOMAXPROCS, bounds the goroutines of the test process,
// but these tests spend their time waiting on the processes they start
// (daemons, deadlines, verification windows, anvil, npm), so more than one
// per core keeps the cores busy.
const defaultParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && runtime.GOMAXPROCS(0) < defaultParallel {
		if err := flag.Set("test.parallel", strconv.Itoa(defaultParallel)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "swarmwage-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binPath = filepath.Join(dir, "swarmwage")
	build := exec.Command("go", "build", "-o", binPath, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build swarmwage:", err)
		return 1
	}
	return m.Run()
}

// cliResult is what one run of the binary printed and its exit code.
type cliResult struct {
	Stdout, Stderr string
	Code           int
}

// cliRun describes one run of the binary.
type cliRun struct {
	args  []string
	stdin string
	// dir is the working directory; empty: the test's.
	dir string
	// env is added after the defaults (HOME in a temp dir, no
	// $SWARMWAGE_REPO), so it can override them.
	env []string
	// limit bounds the run; zero: one minute.
	limit time.Duration
}

// runCLI runs the binary as r says and returns what it printed and its
// exit code. HOME is a fresh temp dir, so nothing touches the real home.
func runCLI(t *testing.T, r cliRun) cliResult {
	t.Helper()
	if r.limit == 0 {
		r.limit = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, r.args...)
	cmd.Dir = r.dir
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir(), "SWARMWAGE_REPO="), r.env...)
	cmd.Stdin = bytes.NewBufferString(r.stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run swarmwage %v: %v", r.args, err)
	}
	return cliResult{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// swarmwage runs the binary with args.
func swarmwage(t *testing.T, args ...string) cliResult {
	t.Helper()
	return runCLI(t, cliRun{args: args})
}

// swarmwageIn is swarmwage with stdin.
func swarmwageIn(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	return runCLI(t, cliRun{args: args, stdin: stdin})
}
