package mcp_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/internal/npmci"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/handler/mcp"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
}

// everything is the command of npm's @modelcontextprotocol/server-everything,
// installed from testdata/package-lock.json (npm ci) when it is missing,
// with a marker argument (ignored by the server) that finds its process.
func everything(t *testing.T) (argv []string, marker string) {
	t.Helper()
	dir, err := filepath.Abs("testdata")
	require.NoError(t, err)
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	require.NoError(t, npmci.Install(dir, "@modelcontextprotocol/server-everything/dist/index.js"))
	require.FileExists(t, script)
	nodeBin, err := exec.LookPath("node")
	require.NoError(t, err, "the test needs node (apt-get install nodejs)")
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	marker = "--swarmwage-test-" + hex.EncodeToString(b)
	return []string{nodeBin, script, "stdio", marker}, marker
}

func everythingHandler(t *testing.T, tool string) (market.HandlerConfig, string) {
	argv, marker := everything(t)
	return market.HandlerConfig{Kind: market.HandlerMCP, Command: argv, Tool: tool, Dir: t.TempDir()}, marker
}

func offerOf(t *testing.T, capID string, h market.HandlerConfig, tool mcp.Tool) market.Offer {
	t.Helper()
	return market.Offer{Signed: market.SignedListing{Listing: market.Listing{
		Capability: capID, InputSchema: tool.InputSchema, OutputSchema: tool.OutputSchema,
	}}, Handler: h}
}

func describe(t *testing.T, h market.HandlerConfig) map[string]mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	tools, err := mcp.Describe(ctx, h, nil)
	require.NoError(t, err)
	m := map[string]mcp.Tool{}
	for _, tl := range tools {
		m[tl.Name] = tl
	}
	return m
}

func test(t *testing.T, r *mcp.Runner, o market.Offer, input string) market.TestResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	res, err := market.TestOfferWith(ctx, o, json.RawMessage(input), nil, nil,
		map[string]market.Runner{market.HandlerMCP: r, market.HandlerMCPHTTP: r})
	require.NoError(t, err)
	return res
}

func TestEverythingServerToolsAreSoldOverStdio(t *testing.T) {
	h, _ := everythingHandler(t, "echo")
	tools := describe(t, h)
	require.Contains(t, tools, "echo")
	require.Contains(t, tools, "get-sum")
	require.Contains(t, tools, "get-structured-content")
	assert.Contains(t, string(tools["echo"].InputSchema), `"message"`)
	assert.JSONEq(t, string(mcp.TextOutputSchema), string(tools["echo"].OutputSchema), "echo has no outputSchema: its text is the output")

	r := mcp.New(mcp.Options{})
	defer r.Close()
	res := test(t, r, offerOf(t, "custom.everything.echo", h, tools["echo"]), `{"message":"hello market"}`)
	require.True(t, res.Passed, "%+v", res)
	assert.JSONEq(t, `{"text":"Echo: hello market"}`, string(res.Output))

	// A tool with structuredContent and an outputSchema: the output is the
	// structured content, checked against the schema before delivery.
	sc := tools["get-structured-content"]
	assert.NotEqual(t, string(mcp.TextOutputSchema), string(sc.OutputSchema))
	h.Tool = "get-structured-content"
	res = test(t, r, offerOf(t, "custom.everything.weather", h, sc), `{"location":"Chicago"}`)
	require.True(t, res.Passed, "%+v", res)
	var weather map[string]any
	require.NoError(t, json.Unmarshal(res.Output, &weather))
	assert.Contains(t, weather, "temperature")

	// The buyer's input is checked against the tool's inputSchema first.
	_, err := market.TestOfferWith(t.Context(), offerOf(t, "custom.everything.weather", h, sc), json.RawMessage(`{"location":"Paris"}`), nil, nil, map[string]market.Runner{market.HandlerMCP: r})
	require.ErrorIs(t, err, market.ErrTestInput)
}

func TestEverythingServerGetsTheMinimalEnvironment(t *testing.T) {
	t.Setenv("SWARMWAGE_TEST_SECRET", "do-not-leak")
	t.Setenv("SWARMWAGE_TEST_PASSED", "passed-on")
	h, _ := everythingHandler(t, "get-env")
	h.Env = []string{"SWARMWAGE_TEST_PASSED"}
	tools := describe(t, h)
	r := mcp.New(mcp.Options{})
	defer r.Close()
	res := test(t, r, offerOf(t, "custom.everything.env", h, tools["get-env"]), `{}`)
	require.True(t, res.Passed, "%+v", res)
	var out struct{ Text string }
	require.NoError(t, json.Unmarshal(res.Output, &out))
	var env map[string]string
	require.NoError(t, json.Unmarshal([]byte(out.Text), &env))
	assert.NotContains(t, env, "SWARMWAGE_TEST_SECRET")
	assert.Equal(t, "passed-on", env["SWARMWAGE_TEST_PASSED"])
	assert.Equal(t, "C.UTF-8", env["LANG"])
	assert.NotEmpty(t, env["PATH"])
	assert.Equal(t, env["HOME"], env["TMPDIR"])
	assert.True(t, strings.Contains(env["HOME"], "swarmwage-mcp-"), env["HOME"])
}

// pidOf finds the process whose command line holds marker.
func pidOf(t *testing.T, marker string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), marker) {
			return pid
		}
	}
	return 0
}

func TestDeadServerIsStartedAgain(t *testing.T) {
	h, marker := everythingHandler(t, "echo")
	tools := describe(t, h)
	r := mcp.New(mcp.Options{})
	defer r.Close()
	require.NoError(t, r.Prepare(t.Context(), h))
	o := offerOf(t, "custom.everything.echo", h, tools["echo"])
	require.True(t, test(t, r, o, `{"message":"one"}`).Passed)
	first := pidOf(t, marker)
	require.NotZero(t, first)

	require.NoError(t, syscall.Kill(first, syscall.SIGKILL))
	require.Eventually(t, func() bool {
		p := pidOf(t, marker)
		return p != 0 && p != first
	}, 30*time.Second, 100*time.Millisecond, "a new server process")
	res := test(t, r, o, `{"message":"two"}`)
	require.True(t, res.Passed, "%+v", res)
	assert.JSONEq(t, `{"text":"Echo: two"}`, string(res.Output))

	// Close stops the server.
	require.NoError(t, r.Close())
	require.Eventually(t, func() bool { return pidOf(t, marker) == 0 }, 10*time.Second, 50*time.Millisecond)
}

type sumIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

// goServer is an in-process go-sdk MCP server over Streamable HTTP.
func goServer(t *testing.T) (*sdk.Server, string) {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "add", Description: "adds"}, func(_ context.Context, _ *sdk.CallToolRequest, in sumIn) (*sdk.CallToolResult, sumOut, error) {
		return nil, sumOut{Sum: in.A + in.B}, nil
	})
	srv.AddTool(&sdk.Tool{Name: "fails", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "disk on fire at /srv/secret"}}}, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return srv, hs.URL
}

func TestGoSDKServerOverStreamableHTTP(t *testing.T) {
	srv, url := goServer(t)
	h := market.HandlerConfig{Kind: market.HandlerMCPHTTP, URL: url, Tool: "add"}
	tools := describe(t, h)
	require.Contains(t, tools, "add")
	assert.Contains(t, string(tools["add"].OutputSchema), `"sum"`)

	r := mcp.New(mcp.Options{})
	defer r.Close()
	res := test(t, r, offerOf(t, "custom.test.add", h, tools["add"]), `{"a":2,"b":40}`)
	require.True(t, res.Passed, "%+v", res)
	assert.JSONEq(t, `{"sum":42}`, string(res.Output))

	// isError fails the job; the buyer learns the class only.
	h.Tool = "fails"
	res = test(t, r, offerOf(t, "custom.test.fails", h, tools["fails"]), `{}`)
	require.False(t, res.Passed)
	assert.True(t, strings.HasPrefix(res.Error, "the tool reported an error: "), res.Error)
	assert.Equal(t, "the tool reported an error", publicClass(res.Error))

	// A tool added later is announced (tools/list_changed) and re-read.
	h.Tool = "late"
	lateTool := mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: mcp.TextOutputSchema}
	res = test(t, r, offerOf(t, "custom.test.late", h, lateTool), `{}`)
	require.False(t, res.Passed)
	assert.True(t, strings.HasPrefix(res.Error, market.ClassMisconfigured+": "), res.Error)
	srv.AddTool(&sdk.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "here"}}}, nil
	})
	require.Eventually(t, func() bool {
		return test(t, r, offerOf(t, "custom.test.late", h, lateTool), `{}`).Passed
	}, 10*time.Second, 100*time.Millisecond)
}

func publicClass(msg string) string {
	if i := strings.Index(msg, ": "); i >= 0 {
		return msg[:i]
	}
	return msg
}
