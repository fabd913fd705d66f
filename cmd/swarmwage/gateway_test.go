package main

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// startLine runs the binary with args until the test ends and returns the
// first stdout line that matches re, with its submatches.
func startLine(t *testing.T, re *regexp.Regexp, args ...string) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		var m []string
		for sc.Scan() {
			if m == nil {
				if m = re.FindStringSubmatch(sc.Text()); m != nil {
					found <- m
				}
			}
		}
		if m == nil {
			found <- nil
		}
	}()
	select {
	case m := <-found:
		require.NotNil(t, m, "%v exited before printing %s", args, re)
		return m
	case <-time.After(30 * time.Second):
		t.Fatalf("%v: no %s after 30s", args, re)
		return nil
	}
}

func post(t *testing.T, url, token, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp
}

// TestDaemonGatewayAndMCPHTTP: 'daemon --gateway ADDR' serves the A2A
// gateway behind <repo>/gateway.token, and 'mcp --http ADDR' serves MCP
// behind the same token.
func TestDaemonGatewayAndMCPHTTP(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	m := startLine(t, regexp.MustCompile(`^Daemon is ready: .*, gateway (http://\S+)$`), "--repo", repo, "daemon", "--gateway", "127.0.0.1:0")
	gw := m[1]
	b, err := os.ReadFile(filepath.Join(repo, "gateway.token"))
	require.NoError(t, err)
	token := strings.TrimSpace(string(b))

	resp, err := http.Get(gw + "/.well-known/agent-card.json")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	list := `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`
	require.Equal(t, http.StatusUnauthorized, post(t, gw+"/a2a", "", list).StatusCode)
	require.Equal(t, http.StatusOK, post(t, gw+"/a2a", token, list).StatusCode)

	m = startLine(t, regexp.MustCompile(`^MCP server is ready: (http://\S+)$`), "--repo", repo, "mcp", "--http", "127.0.0.1:0")
	initReq := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	require.Equal(t, http.StatusUnauthorized, post(t, m[1], "", initReq).StatusCode)
	require.Equal(t, http.StatusOK, post(t, m[1], token, initReq).StatusCode)
}
