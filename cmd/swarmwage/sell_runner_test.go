package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/npmci"
	"github.com/swarmwage/swarmwage/market/handler/openai/openaitest"
)

const cliArticle = "The city council met on Tuesday to discuss the new park. Residents asked for more trees, a playground and better lighting. " +
	"The mayor said the budget allows two of the three this year. Work starts in spring and should end before the summer holidays. " +
	"Several shop owners welcomed the plan because the park will bring visitors to the old market street. " +
	"Others worried about parking, which is already scarce on weekends. The council will vote on the final design next month."

// TestCLISellAddOpenAIAndSellTestShowsTheRetries: 'sell add --handler
// openai:MODEL --base-url URL --api-key-env NAME --retries N' stores the
// listing without the key; 'sell test' runs it with the key from the
// environment, and shows the attempt that failed the buyer's check and was
// retried.
func TestCLISellAddOpenAIAndSellTestShowsTheRetries(t *testing.T) {
	t.Parallel()
	const key = "sk-cli-secret-5150"
	srv := openaitest.New(t)
	srv.Key = key
	srv.Chat = func(req openaitest.ChatRequest) string {
		if len(req.Messages) > 2 {
			return `{"summary":"A park is planned; the council votes next month."}`
		}
		b, _ := json.Marshal(map[string]string{"summary": cliArticle})
		return string(b)
	}
	repo := initRepo(t)
	env := []string{"MY_MODEL_KEY=" + key}
	r := runCLI(t, cliRun{env: env, args: []string{"--repo", repo, "sell", "add", "--price", "0.02", "--handler", "openai:tiny",
		"--base-url", srv.BaseURL(), "--api-key-env", "MY_MODEL_KEY", "--retries", "1", "--json", "text.summarize.short"}})
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Contains(t, r.Stdout, `"handler": "openai:tiny"`)

	input, _ := json.Marshal(map[string]string{"text": cliArticle})
	r = runCLI(t, cliRun{env: env, args: []string{"--repo", repo, "sell", "test", "--input-json", string(input), "text.summarize.short"}})
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "attempt 1: FAILED word_count_ratio")
	assert.Contains(t, r.Stderr, "attempt 2: passed the checks")
	assert.Contains(t, r.Stderr, "in 2 requests")
	assert.JSONEq(t, `{"summary":"A park is planned; the council votes next month."}`, r.Stdout)

	// A model that never complies: exit 1, the failed check named.
	srv.Chat = func(openaitest.ChatRequest) string {
		b, _ := json.Marshal(map[string]string{"summary": cliArticle})
		return string(b)
	}
	r = runCLI(t, cliRun{env: env, args: []string{"--repo", repo, "sell", "test", "--json", "--input-json", string(input), "text.summarize.short"}})
	require.Equal(t, 1, r.Code, r.Stderr)
	var res struct {
		Passed   bool
		Error    string
		Attempts []json.RawMessage
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	assert.False(t, res.Passed)
	assert.Len(t, res.Attempts, 2, "--retries 1")
	assert.Contains(t, res.Error, "output failed the buyer's checks: word_count_ratio")

	// The key is in no file of the repo.
	require.NoError(t, filepath.Walk(repo, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.False(t, strings.Contains(string(data), key), "the key is in %s", p)
		return nil
	}))

	// Flags of one kind refused on another.
	r = swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.02", "--base-url", srv.BaseURL(), "compute.statistics.mean")
	require.Equal(t, 2, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "openai:MODEL")
	r = swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.02", "--handler", "openai:tiny", "--base-url", "localhost:1", "text.summarize.short")
	require.Equal(t, 2, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "base URL")
}

// everythingServer is the command line of npm's
// @modelcontextprotocol/server-everything, installed (npm ci) from the
// lock file in market/handler/mcp/testdata when it is missing.
func everythingServer(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../market/handler/mcp/testdata")
	require.NoError(t, err)
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	require.NoError(t, npmci.Install(dir, "@modelcontextprotocol/server-everything/dist/index.js"))
	return "node " + script + " stdio"
}

// TestCLISellMCPTools: 'sell add --from-mcp CMD --prefix custom.<p>.' lists
// one listing per tool of a real MCP server; 'sell add --handler mcp:CMD
// --tool NAME' sells one; 'sell test' runs them with the tools' schemas.
func TestCLISellMCPTools(t *testing.T) {
	t.Parallel()
	server := everythingServer(t)
	repo := initRepo(t)
	r := swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.01", "--from-mcp", server, "--prefix", "custom.everything.", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var added struct {
		Listings []struct{ Capability, Handler string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &added))
	caps := map[string]string{}
	for _, l := range added.Listings {
		caps[l.Capability] = l.Handler
	}
	require.Contains(t, caps, "custom.everything.echo")
	require.Contains(t, caps, "custom.everything.get-sum")
	assert.True(t, strings.HasPrefix(caps["custom.everything.echo"], "mcp:"), caps["custom.everything.echo"])

	r = swarmwage(t, "--repo", repo, "sell", "test", "--json", "--input-json", `{"message":"hi"}`, "custom.everything.echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Contains(t, r.Stdout, `Echo: hi`)
	// The tool's inputSchema is the listing's.
	r = swarmwage(t, "--repo", repo, "sell", "test", "--input-json", `{"msg":"hi"}`, "custom.everything.echo")
	require.Equal(t, 2, r.Code, r.Stderr)

	r = swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.01", "--handler", "mcp:"+server, "--tool", "get-sum", "custom.everything.sum")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", repo, "sell", "test", "--input-json", `{"a":2,"b":3}`, "custom.everything.sum")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Contains(t, r.Stdout, "5")

	r = swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.01", "--handler", "mcp:"+server, "--tool", "no-such-tool", "custom.everything.none")
	require.Equal(t, 2, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "has no tool")
	r = swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.01", "--handler", "mcp:"+server, "custom.everything.none")
	require.Equal(t, 2, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "--tool NAME")
}
