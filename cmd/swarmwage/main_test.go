package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// binPath is the swarmwage binary built once for the CLI tests, which drive
// it as a user would.
var binPath string

func TestMain(m *testing.M) {
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

// swarmwage runs the binary with args, no stdin, HOME set to a temp dir so
// nothing touches the real home, and a one-minute limit.
func swarmwage(t *testing.T, args ...string) cliResult {
	t.Helper()
	return swarmwageIn(t, "", args...)
}

// swarmwageIn is swarmwage with stdin.
func swarmwageIn(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "SWARMWAGE_REPO=")
	cmd.Stdin = bytes.NewBufferString(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run swarmwage %v: %v", args, err)
	}
	return cliResult{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}
