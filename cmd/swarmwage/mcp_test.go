package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/npmci"
)

// inspectorVersion is the external MCP client the tests drive: the MCP
// project's own inspector, in CLI mode (0.20.0 runs on Node 20 and later),
// pinned with its dependencies in testdata/inspector/package-lock.json.
const inspectorVersion = "@modelcontextprotocol/inspector@0.20.0"

// installInspector returns testdata/inspector, where npm ci installs the
// inspector from the lock file when it is missing (node_modules is
// gitignored), so only a checkout's first run waits for the registry.
func installInspector(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "inspector"))
	require.NoError(t, err)
	require.NoError(t, npmci.Install(dir, "@modelcontextprotocol/inspector/package.json"), "installing %s", inspectorVersion)
	return dir
}

func inspector(t *testing.T, npmDir, repo string, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	full := append([]string{"--no-install", "@modelcontextprotocol/inspector", "--cli", binPath, "--repo", repo, "mcp"}, args...)
	cmd := exec.CommandContext(ctx, "npx", full...)
	cmd.Dir = npmDir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "SWARMWAGE_REPO=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "inspector %v\nstdout: %s\nstderr: %s", args, stdout.String(), stderr.String())
	var doc map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc), "inspector printed: %s", stdout.String())
	return doc
}

func TestMCPWithExternalInspectorClient(t *testing.T) {
	t.Parallel()
	npmDir := installInspector(t)
	repo := initRepo(t) // no daemon: the local tools still answer

	doc := inspector(t, npmDir, repo, "--method", "tools/list")
	tools, _ := doc["tools"].([]any)
	var names []string
	for _, tl := range tools {
		m := tl.(map[string]any)
		names = append(names, m["name"].(string))
		require.NotNil(t, m["inputSchema"], m["name"])
	}
	require.ElementsMatch(t, []string{"swarmwage_capabilities", "swarmwage_find", "swarmwage_hire", "swarmwage_verify",
		"swarmwage_jobs", "swarmwage_job", "swarmwage_wallet", "swarmwage_rate"}, names)

	doc = inspector(t, npmDir, repo, "--method", "tools/call", "--tool-name", "swarmwage_capabilities", "--tool-arg", "domain=compute")
	require.NotEqual(t, true, doc["isError"], "%v", doc)
	sc, _ := doc["structuredContent"].(map[string]any)
	require.NotNil(t, sc, "structured output: %v", doc)
	var ids []string
	for _, c := range sc["capabilities"].([]any) {
		cm := c.(map[string]any)
		require.Equal(t, "compute", cm["domain"])
		ids = append(ids, cm["id"].(string))
	}
	require.Contains(t, ids, "compute.statistics.{op}")

	// A tool that needs the daemon answers with an error result telling
	// what to do, not a broken stream.
	doc = inspector(t, npmDir, repo, "--method", "tools/call", "--tool-name", "swarmwage_wallet")
	require.Equal(t, true, doc["isError"], "%v", doc)
	content := doc["content"].([]any)[0].(map[string]any)
	require.Contains(t, content["text"], "swarmwage --repo "+repo+" daemon")
}

// stdioClient starts 'swarmwage --repo repo mcp args...' and connects the
// SDK's client to it over stdio.
func stdioClient(t *testing.T, repo string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"--repo", repo, "mcp"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "SWARMWAGE_REPO=")
	cmd.Stderr = os.Stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "swarmwage-cli-test", Version: "1"}, nil).
		Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func stdioHire(t *testing.T, cs *sdk.ClientSession, maxPrice string) (*sdk.CallToolResult, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "swarmwage_hire", Arguments: map[string]any{
		"capability": "compute.statistics.mean", "input": map[string]any{"data": []int{2, 4}}, "max_price": maxPrice,
	}})
	require.NoError(t, err)
	sc, _ := res.StructuredContent.(map[string]any)
	return res, sc
}

func firstText(res *sdk.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); ok {
		return tc.Text
	}
	return ""
}

func TestMCPOverStdioReadsLimitsFileAndFlags(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "compute.statistics.mean", "0.05")
	require.NoError(t, os.WriteFile(filepath.Join(m.buyer, "mcp.toml"), []byte("max_per_hire = \"0.01\"\n"), 0o600))

	// The file's cap applies.
	cs := stdioClient(t, m.buyer)
	res, _ := stdioHire(t, cs, "0.05")
	require.True(t, res.IsError)
	require.Contains(t, firstText(res), "per-hire cap of 0.01 credits")
	require.Contains(t, firstText(res), "mcp.toml")

	// A flag overrides the file.
	cs = stdioClient(t, m.buyer, "--max-per-hire", "0.1")
	res, sc := stdioHire(t, cs, "0.05")
	require.False(t, res.IsError, firstText(res))
	require.Equal(t, "released", sc["outcome"])
	require.Equal(t, map[string]any{"result": 3.0}, sc["output"])
	require.Equal(t, "released", sc["escrow"].(map[string]any)["state"])
	require.Equal(t, "9.95", balance(t, m.buyer).Available)
}

func TestMCPBadLimitsExitTwo(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	testCases := []struct {
		name, file string
		args       []string
		want       string
	}{
		{"unknown key", "max_per_hour = 1\n", nil, "unknown key(s) max_per_hour"},
		{"bad amount in file", "max_per_day = \"lots\"\n", nil, "mcp.toml"},
		{"negative amount in file", "max_per_day = -1\n", nil, "mcp.toml"},
		{"bad flag", "", []string{"--max-per-session", "1.2.3"}, "--max-per-session"},
		{"arguments", "", []string{"extra"}, "no arguments"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(repo, "mcp.toml")
			_ = os.Remove(path)
			if tc.file != "" {
				require.NoError(t, os.WriteFile(path, []byte(tc.file), 0o600))
			}
			r := swarmwage(t, append([]string{"--repo", repo, "mcp"}, tc.args...)...)
			require.Equal(t, exitUsage, r.Code, r.Stderr)
			require.Contains(t, r.Stderr, tc.want)
		})
	}
}

// Regression (issue 22): 'swarmwage mcp --allow-risk-tier-3' also confirmed
// [[policy]] require_confirmation holds. Only a person confirms one: the
// MCP hire is refused with a message naming the policy, nothing is held,
// and 'hire --confirm' goes through.
func TestMCPAllowRiskTier3NeverConfirmsAPolicyHold(t *testing.T) {
	t.Parallel()
	seller := initRepo(t)
	startDaemon(t, seller)
	buyer := initRepo(t)
	setConfig(t, buyer, "[[policy]]\ncapability = \"compute.statistics.mean\"\nrequire_confirmation = true")
	startDaemon(t, buyer, "--bootstrap", nodeIDOf(t, seller).Addrs[0])
	m := &testMarket{seller: seller, buyer: buyer}
	require.Equal(t, 0, swarmwage(t, "--repo", buyer, "wallet", "deposit", "10").Code)
	m.sell(t, "compute.statistics.mean", "0.05")

	cs := stdioClient(t, buyer, "--allow-risk-tier-3")
	res, sc := stdioHire(t, cs, "0.1")
	require.True(t, res.IsError, firstText(res))
	require.Contains(t, firstText(res), "[[policy]] compute.statistics.mean")
	require.Contains(t, firstText(res), "until a person confirms it")
	require.NotContains(t, firstText(res), "risk tier 3")
	require.Equal(t, "needs_confirm", sc["outcome"])
	require.Equal(t, "0", balance(t, buyer).Held)
	require.Equal(t, "10", balance(t, buyer).Available)

	h, r := hire(t, buyer, "--confirm", "--input-json", `{"data":[2,4]}`, "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "released", h.Escrow.State)
}
