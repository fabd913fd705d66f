package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCLIDashboardPrintsAOneTimeLogin drives 'swarmwage dashboard' against a
// real daemon: --json prints {"url"}, the link's credential logs in once,
// and without --json the command opens the browser through xdg-open, or
// says there is none and still prints the link.
func TestCLIDashboardPrintsAOneTimeLogin(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)

	r := swarmwage(t, "--repo", repo, "dashboard", "--json")
	require.Equal(t, 1, r.Code, "no daemon: exit 1")
	require.Contains(t, r.Stderr, "start 'swarmwage daemon' first")

	startDaemon(t, repo)
	api, err := os.ReadFile(filepath.Join(repo, "api"))
	require.NoError(t, err)
	base := strings.TrimSpace(string(api))

	r = swarmwage(t, "--repo", repo, "dashboard", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var doc map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &doc))
	require.Len(t, doc, 1, "exactly {\"url\": ...}")
	require.Regexp(t, "^"+regexp.QuoteMeta(base)+"/#login=[0-9a-f]{64}$", doc["url"])
	cred := doc["url"][strings.Index(doc["url"], "=")+1:]
	require.Equal(t, http.StatusOK, exchangeLogin(t, base, cred))
	require.Equal(t, http.StatusUnauthorized, exchangeLogin(t, base, cred), "a credential works once")

	// No display: the link, and a note on stderr; exit 0.
	r = runCLI(t, cliRun{args: []string{"--repo", repo, "dashboard"}, env: []string{"DISPLAY=", "WAYLAND_DISPLAY="}})
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Regexp(t, "^"+regexp.QuoteMeta(base)+"/#login=[0-9a-f]{64}\n$", r.Stdout)
	require.Contains(t, r.Stderr, "No browser opened (no display")
	require.Contains(t, r.Stderr, "within 2 minutes")

	// A display and an xdg-open on PATH: it gets the link.
	bin := t.TempDir()
	got := filepath.Join(t.TempDir(), "opened")
	opener := "#!/bin/sh\nprintf '%s' \"$1\" > " + got + ".tmp && mv " + got + ".tmp " + got + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(opener), 0o755))
	r = runCLI(t, cliRun{args: []string{"--repo", repo, "dashboard"}, env: []string{"DISPLAY=:0", "PATH=" + bin + ":" + os.Getenv("PATH")}})
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "Opened the dashboard in your browser")
	var opened []byte
	require.Eventually(t, func() bool { opened, err = os.ReadFile(got); return err == nil }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, strings.TrimSpace(r.Stdout), string(opened))
}

// exchangeLogin posts a credential to the dashboard's login exchange, as
// its page does, and returns the status.
func exchangeLogin(t *testing.T, base, cred string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/ui/session", strings.NewReader(`{"credential":"`+cred+`"}`))
	require.NoError(t, err)
	req.Header.Set("X-Swarmwage-Dashboard", "1")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func TestBrowserOpener(t *testing.T) {
	t.Parallel()
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	testCases := []struct {
		name    string
		goos    string
		env     map[string]string
		look    func(string) (string, error)
		want    string
		wantErr string
	}{
		{name: "linux with X", goos: "linux", env: map[string]string{"DISPLAY": ":0"}, look: found, want: "/usr/bin/xdg-open"},
		{name: "linux with wayland", goos: "linux", env: map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, look: found, want: "/usr/bin/xdg-open"},
		{name: "linux without display", goos: "linux", look: found, wantErr: "no display"},
		{name: "linux without xdg-open", goos: "linux", env: map[string]string{"DISPLAY": ":0"}, look: missing, wantErr: "xdg-open is not installed"},
		{name: "macOS", goos: "darwin", look: found, want: "/usr/bin/open"},
		{name: "windows", goos: "windows", look: found, wantErr: "not supported"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := browserOpener(tc.goos, env(tc.env), tc.look)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
