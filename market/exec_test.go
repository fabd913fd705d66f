package market

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResolveExec(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "work.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\ncat\n"), 0o755))
	data := filepath.Join(dir, "data.txt")
	require.NoError(t, os.WriteFile(data, []byte("x"), 0o644))
	sh, err := exec.LookPath("sh")
	require.NoError(t, err)
	testCases := []struct {
		name    string
		argv    []string
		want    []string
		wantErr string
	}{
		{"a name is looked up in PATH", []string{"sh", "-c", "cat"}, []string{sh, "-c", "cat"}, ""},
		{"a relative path is taken in dir", []string{"./work.sh", "--x"}, []string{script, "--x"}, ""},
		{"an absolute path stays", []string{script}, []string{script}, ""},
		{"a missing file", []string{"/nonexistent/prog"}, nil, "/nonexistent/prog does not exist"},
		{"not in PATH", []string{"no-such-program-swarmwage"}, nil, "not in PATH"},
		{"not executable", []string{"./data.txt"}, nil, "not executable"},
		{"a directory", []string{dir}, nil, "not a regular file"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveExec(HandlerConfig{Kind: HandlerExec, Command: tc.argv}, dir)
			if tc.wantErr != "" {
				require.ErrorIs(t, err, ErrNoProgram)
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got.Command)
			require.Equal(t, dir, got.Dir)
		})
	}
	h, err := ResolveExec(HandlerConfig{Kind: HandlerHTTP, URL: "http://127.0.0.1:1/"}, dir)
	require.NoError(t, err)
	require.Empty(t, h.Dir, "only exec handlers are touched")
}

// TestExecRunsInItsDir: an exec handler added with a directory runs there,
// so a relative script argument is found whatever the daemon's working
// directory.
func TestExecRunsInItsDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "out.json"), []byte(`{"from":"dir"}`), 0o644))
	h, err := ResolveExec(HandlerConfig{Kind: HandlerExec, Command: []string{"cat", "out.json"}}, dir)
	require.NoError(t, err)
	out, err := runExec(t.Context(), h, json.RawMessage(`{}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"from":"dir"}`, string(out))
}

func TestHandlerStringRoundTrips(t *testing.T) {
	for _, argv := range [][]string{
		{"python3", "worker.py", "--fast"},
		{"sh", "-c", "echo hi; exit 1"},
		{"sh", "-c", `echo '{"a": 1}'`},
		{"prog", "", "a\\b", "tab\there", "it's"},
	} {
		h := HandlerConfig{Kind: HandlerExec, Command: argv}
		back, err := ParseHandler(h.String())
		require.NoError(t, err, h.String())
		require.Equal(t, argv, back.Command, h.String())
	}
}

func FuzzHandlerStringRoundTrips(f *testing.F) {
	f.Add("sh -c 'echo hi'")
	f.Add(`a "b c" d\ e`)
	f.Fuzz(func(t *testing.T, line string) {
		argv, err := SplitCommand(line)
		if err != nil || len(argv) == 0 {
			return
		}
		back, err := ParseHandler(HandlerConfig{Kind: HandlerExec, Command: argv}.String())
		require.NoError(t, err)
		require.Equal(t, argv, back.Command)
	})
}

// TestResolveExecChecksScriptArguments: 'exec:python3 nothere.py' was
// accepted because only the interpreter was checked; every job then failed.
func TestResolveExecChecksScriptArguments(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "here.py"), []byte("print(1)\n"), 0o600))
	testCases := []struct {
		name string
		argv []string
		bad  string
	}{
		{"script present", []string{"sh", "here.py"}, ""},
		{"script missing", []string{"sh", "nothere.py"}, "nothere.py"},
		{"relative path missing", []string{"sh", "./data"}, "data"},
		{"absolute script missing", []string{"sh", filepath.Join(dir, "gone.js")}, "gone.js"},
		{"flag and inline code", []string{"sh", "-c", "cat >/dev/null; echo x.py"}, ""},
		{"not a file name", []string{"sh", "-e", "module"}, ""},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ResolveExec(HandlerConfig{Kind: HandlerExec, Command: tc.argv}, dir)
			if tc.bad == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrNoProgram)
			require.ErrorContains(t, err, tc.bad)
			require.ErrorContains(t, err, "does not exist")
		})
	}
}
