package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/gateway"
	"github.com/swarmwage/swarmwage/mcp"
)

const (
	maxPerHireFlag    = "max-per-hire"
	maxPerSessionFlag = "max-per-session"
	maxPerDayFlag     = "max-per-day"
	allowRisk3Flag    = "allow-risk-tier-3"
	mcpHTTPFlag       = "http"
)

// mcpCommand serves the MCP tools over stdio (package mcp).
func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Usage:     "serve the swarmwage tools to an AI agent over MCP (stdio, or Streamable HTTP with --http); hires go through the running daemon",
		ArgsUsage: " ",
		Description: `Runs a Model Context Protocol server on stdin/stdout for an MCP client (Claude
Desktop, an IDE, an agent framework). Its tools list capabilities, find sellers,
hire (costs credits; escrowed, verified locally, refunded on failure), verify,
list jobs, show the wallet and rate jobs. Hires need 'swarmwage daemon' running
for the same repo.

Spending guard: the flags below, else the same keys in <repo>/mcp.toml
(max_per_hire, max_per_session, max_per_day as credits; allow_risk_tier_3 =
true|false). 0 means no cap. Example client configuration:

  {"mcpServers": {"swarmwage": {"command": "swarmwage",
    "args": ["--repo", "/home/me/.swarmwage", "mcp", "--max-per-hire", "0.1"]}}}

With --http ADDR the same tools are served over Streamable HTTP at
http://ADDR/mcp to clients that send "Authorization: Bearer <token>" with the
token of <repo>/gateway.token (created if missing, mode 0600; the gateway's).
Every client of one run shares its per-session cap.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: maxPerHireFlag, Usage: "refuse a hire that may cost more than `AMOUNT` credits (0: no cap)"},
			&cli.StringFlag{Name: maxPerSessionFlag, Usage: "refuse hires past `AMOUNT` credits in this session (0: no cap)"},
			&cli.StringFlag{Name: maxPerDayFlag, Usage: "refuse hires past `AMOUNT` credits spent by the node today, local time (0: no cap)"},
			&cli.BoolFlag{Name: allowRisk3Flag, Usage: "let agents hire risk tier 3 capabilities (refused by default)"},
			&cli.StringFlag{Name: mcpHTTPFlag, Usage: "serve Streamable HTTP on `ADDR` (host:port) at /mcp instead of stdio, behind the bearer token of <repo>/gateway.token"},
			&cli.StringFlag{Name: "log-level", Value: "warn", Usage: "log level on stderr: debug, info, warn or error"},
		},
		Action: runMCP,
	}
}

func runMCP(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrf("mcp takes no arguments, got %q", c.Args().First())
	}
	// A client started with a wrong --repo must fail at once, not serve
	// tools that all fail.
	repo, err := openRepo(c)
	if err != nil {
		return err
	}
	dir := repo.Dir
	limits, err := mcpLimits(c, dir)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return usageErrf("--log-level %q: want debug, info, warn or error", c.String("log-level"))
	}
	logger := slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: level}))
	srv, err := mcp.New(dir, mcp.WithLimits(limits), mcp.WithLogger(logger), mcp.WithVersion(buildVersion()))
	if err != nil {
		return err
	}
	ctx, cancel := signalContext(c)
	defer cancel()
	if addr := c.String(mcpHTTPFlag); c.IsSet(mcpHTTPFlag) {
		return serveMCPHTTP(ctx, c, srv, dir, addr, limits)
	}
	fmt.Fprintf(c.App.ErrWriter, "swarmwage mcp: serving on stdio for repo %s (%s)\n", dir, describeLimits(limits))
	stdio := newDrainingStdio(ctx, os.Stdin, c.App.Writer)
	t := &sdk.IOTransport{Reader: stdio.reader(), Writer: stdio.writer()}
	if err := srv.Run(ctx, t); err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp server: %w", err)
	}
	return nil
}

// serveMCPHTTP serves srv over Streamable HTTP on addr until ctx ends.
func serveMCPHTTP(ctx context.Context, c *cli.Context, srv *mcp.Server, dir, addr string, limits mcp.Limits) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return usageErrf("--%s %q: want host:port, such as 127.0.0.1:8403", mcpHTTPFlag, addr)
	}
	token, err := gateway.EnsureToken(dir)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp --http %s: %w", addr, err)
	}
	url := "http://" + ln.Addr().String() + mcp.HTTPPath
	fmt.Fprintf(c.App.ErrWriter, "swarmwage mcp: serving Streamable HTTP on %s for repo %s (%s); bearer token in %s\n",
		url, dir, describeLimits(limits), filepath.Join(dir, gateway.TokenFile))
	// One line on stdout, so scripts can wait for it.
	fmt.Fprintf(c.App.Writer, "MCP server is ready: %s\n", url)
	return srv.ServeHTTP(ctx, ln, token)
}

// mcpLimits reads <repo>/mcp.toml, then lets each flag that is given
// override its key.
func mcpLimits(c *cli.Context, dir string) (mcp.Limits, error) {
	l, _, err := mcp.LoadLimits(dir)
	if err != nil {
		return l, usageErr(err)
	}
	for _, f := range []struct {
		name string
		dst  *int64
	}{
		{maxPerHireFlag, &l.MaxPerHire},
		{maxPerSessionFlag, &l.MaxPerSession},
		{maxPerDayFlag, &l.MaxPerDay},
	} {
		if !c.IsSet(f.name) {
			continue
		}
		v, err := mcp.ParseCap(c.String(f.name))
		if err != nil {
			return l, usageErrf("--%s %q: want a decimal number of credits such as 0.5 (0: no cap)", f.name, c.String(f.name))
		}
		*f.dst = v
	}
	if c.IsSet(allowRisk3Flag) {
		l.AllowRiskTier3 = c.Bool(allowRisk3Flag)
	}
	return l, nil
}

func describeLimits(l mcp.Limits) string {
	var parts []string
	for _, p := range []struct {
		name string
		v    int64
	}{{"max per hire", l.MaxPerHire}, {"max per session", l.MaxPerSession}, {"max per day", l.MaxPerDay}} {
		if p.v > 0 {
			parts = append(parts, p.name+" "+escrow.FormatAmount(p.v))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no spending caps")
	}
	if l.AllowRiskTier3 {
		parts = append(parts, "risk tier 3 allowed")
	} else {
		parts = append(parts, "risk tier 3 refused")
	}
	return strings.Join(parts, ", ")
}
