package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	mcphandler "github.com/swarmwage/swarmwage/market/handler/mcp"
	"github.com/swarmwage/swarmwage/verify"
)

// describeTimeout bounds starting an MCP server to read its tools.
const describeTimeout = 90 * time.Second

// maxPromptFile caps --prompt FILE.
const maxPromptFile = 64 << 10

// runnerFlags are the flags of 'sell add' for openai and mcp handlers.
func runnerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "base-url", Usage: "the OpenAI-compatible server of an openai:MODEL handler, up to /v1 (Ollama http://localhost:11434/v1, llama.cpp http://localhost:8080/v1)"},
		&cli.StringFlag{Name: "api-key-env", Usage: "the daemon's environment variable `NAME` the openai handler's API key is read from at each job (default OPENAI_API_KEY; the key is never stored)"},
		&cli.StringFlag{Name: "prompt", Usage: "prompt template `FILE` of an openai handler, replacing the family's embedded one (Go text/template: {{.Input.text}}, {{.Params.tgt}}, ...)"},
		&cli.IntFlag{Name: "retries", Value: market.DefaultRetries, Usage: "how many times an openai or mcp handler's output that fails the buyer's checks is asked for again, within the job's deadline"},
		&cli.StringFlag{Name: "tool", Usage: "the tool `NAME` of an mcp:CMD or mcp+http:URL handler's server"},
		&cli.StringFlag{Name: "from-mcp", Usage: "list every tool of the MCP server `CMD` (a command, or an http(s):// URL), one listing per tool, named --prefix + the tool's name"},
		&cli.StringFlag{Name: "prefix", Usage: "with --from-mcp: the capability prefix, as custom.<provider>."},
	}
}

// addRunnerFields reads the openai and mcp flags into req; for an mcp
// handler it resolves the server's program and, for a capability outside
// the taxonomy, takes the listing's schemas from the tool.
func addRunnerFields(c *cli.Context, req *controlapi.AddListingRequest) error {
	req.BaseURL, req.APIKeyEnv, req.Tool = c.String("base-url"), c.String("api-key-env"), c.String("tool")
	if c.IsSet("retries") {
		n := c.Int("retries")
		if err := market.CheckRetries(n); err != nil {
			return usageErrf("--%v", err)
		}
		req.Retries = &n
	}
	if path := c.String("prompt"); path != "" {
		data, err := readSmallFile(path, maxPromptFile)
		if err != nil {
			return usageErrf("--prompt: %v", err)
		}
		req.Prompt = string(data)
	}
	h, err := market.ParseHandler(req.Handler)
	if err != nil || (h.Kind != market.HandlerMCP && h.Kind != market.HandlerMCPHTTP) {
		return nil // the node checks the rest
	}
	if req.Tool == "" {
		return usageErrf("--handler %s needs the tool to sell, as --tool NAME", req.Handler)
	}
	h.Env = req.Env
	if h, err = resolveMCP(h); err != nil {
		return err
	}
	req.Handler, req.Dir = h.String(), h.Dir
	if _, err := verify.InputSchema(req.Capability); err == nil {
		return nil // a standard capability: the taxonomy's schemas
	}
	tools, err := describeMCP(c.Context, h)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if t.Name == req.Tool {
			if len(req.InputSchema) == 0 {
				req.InputSchema = t.InputSchema
			}
			if len(req.OutputSchema) == 0 {
				req.OutputSchema = t.OutputSchema
			}
			return nil
		}
	}
	return usageErrf("the MCP server %s has no tool %q; it has: %s", req.Handler, req.Tool, toolList(tools))
}

// resolveMCP makes an mcp:CMD handler's program an absolute path and its
// directory the working directory, as for exec handlers.
func resolveMCP(h market.HandlerConfig) (market.HandlerConfig, error) {
	if h.Kind != market.HandlerMCP {
		return h, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return h, fmt.Errorf("working directory: %w", err)
	}
	r, err := market.ResolveExec(h, wd)
	if err != nil {
		return h, usageErrf("--handler %s: %v", h.String(), err)
	}
	return r, nil
}

func describeMCP(ctx context.Context, h market.HandlerConfig) ([]mcphandler.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	tools, err := mcphandler.Describe(ctx, h, nil)
	if err != nil {
		return nil, fmt.Errorf("read the tools of %s: %w", h.String(), err)
	}
	return tools, nil
}

func toolList(tools []mcphandler.Tool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func readSmallFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is over %d bytes", path, limit)
	}
	return data, nil
}

// fromMCPResult is what 'sell add --from-mcp' prints with --json.
type fromMCPResult struct {
	Listings []controlapi.ListingInfo `json:"listings"`
}

// sellFromMCP lists every tool of an MCP server, one listing per tool.
func sellFromMCP(c *cli.Context) error {
	prefix := c.String("prefix")
	if c.NArg() > 0 {
		return usageErrf("--from-mcp names its capabilities from --prefix and the tools; drop the capability ID %q", c.Args().First())
	}
	if !strings.HasPrefix(prefix, "custom.") {
		return usageErrf("--from-mcp needs --prefix custom.<provider>. (the tools are not taxonomy capabilities)")
	}
	prefix = strings.TrimSuffix(prefix, ".") + "."
	if c.IsSet("handler") || c.IsSet("tool") || c.IsSet("skillcard") {
		return usageErrf("--from-mcp names the server and sells each of its tools: drop --handler, --tool and --skillcard")
	}
	if price, err := escrow.ParseAmount(c.String("price")); err != nil || price <= 0 {
		return usageErrf("--price %q: want a positive amount of credits, such as 0.05", c.String("price"))
	}
	src := c.String("from-mcp")
	spec := "mcp:" + src
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		spec = "mcp+http:" + src
	}
	h, err := market.ParseHandler(spec)
	if err != nil {
		return usageErrf("--from-mcp: %v", err)
	}
	h.Env = c.StringSlice("env")
	if err := market.CheckEnvNames(h.Env); err != nil {
		return usageErrf("--%v", err)
	}
	if h, err = resolveMCP(h); err != nil {
		return err
	}
	tools, err := describeMCP(c.Context, h)
	if err != nil {
		return err
	}
	if len(tools) == 0 {
		return fmt.Errorf("the MCP server %s lists no tools", h.String())
	}
	var res fromMCPResult
	for _, t := range tools {
		capID := prefix + toolSlug(t.Name)
		if err := verify.CheckID(capID); err != nil {
			return usageErrf("tool %q as %s: %v (choose another --prefix)", t.Name, capID, err)
		}
		req := controlapi.AddListingRequest{
			Capability: capID, Price: c.String("price"), Handler: h.String(), Dir: h.Dir, Env: h.Env,
			Tool: t.Name, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
		}
		if c.IsSet("retries") {
			n := c.Int("retries")
			if err := market.CheckRetries(n); err != nil {
				return usageErrf("--%v", err)
			}
			req.Retries = &n
		}
		info, err := addListing(c, req)
		if err != nil {
			return fmt.Errorf("tool %s: %w", t.Name, err)
		}
		res.Listings = append(res.Listings, info)
	}
	if c.Bool(jsonFlag) {
		return printJSON(c, res)
	}
	for _, l := range res.Listings {
		fmt.Fprintf(c.App.Writer, "selling %s at %s credits (handler %s)\n", l.Capability, l.Price, l.Handler)
	}
	return nil
}

// toolSlug turns a tool name into a capability segment: lowercase, words
// (camelCase, '_', ' ', '.') joined by '-', other characters dropped.
func toolSlug(name string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case unicode.IsUpper(r) && r < unicode.MaxASCII:
			if prevLower {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			prevLower = true
		case r == '-' || r == '_' || r == ' ' || r == '.':
			b.WriteByte('-')
			prevLower = false
		}
	}
	s := b.String()
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	return strings.Trim(s, "-")
}
