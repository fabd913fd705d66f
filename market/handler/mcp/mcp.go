// Package mcp sells the tools of MCP servers: the market.Runner of the
// "mcp:CMD" (a server over stdio, CMD split into argv as for exec:, never
// through a shell) and "mcp+http:URL" (Streamable HTTP) handler kinds, with
// github.com/modelcontextprotocol/go-sdk as the client.
//
// A listing sells one tool (HandlerConfig.Tool). Its input schema is the
// tool's inputSchema; its output is the tool's structuredContent (and the
// listing's output schema the tool's outputSchema, which the seller checks
// before delivery as the buyer will), or, for a tool without structured
// output, {"text": ...}: its text content, joined by newlines. A result
// with isError fails the job; the buyer learns "the tool reported an
// error", the seller's log has its text.
//
// One server (process or URL) serves every listing that names it: it is
// started when the daemon starts with such a listing or one is added
// (market.Starter), restarted with a doubling backoff (up to 30 s) when it
// dies or its session ends, and stopped with Close. A stdio server runs
// through internal/proc (its process group killed with it, a PID namespace
// where the kernel allows, dead with the node) with the exec handler's
// minimal environment (market.HandlerEnv: PATH, HOME and TMPDIR in a fresh
// directory, LANG, and the variables the listing names with --env). The
// tool list is read at each (re)connection and again on
// notifications/tools/list_changed; a job for a tool the server no longer
// lists fails as "seller misconfigured".
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/swarmwage/swarmwage/internal/proc"
	"github.com/swarmwage/swarmwage/market"
)

const (
	// maxFrame bounds one JSON-RPC message from a server: an output is at
	// most 32 MiB in the market, and base64 images travel inside.
	maxFrame = 40 << 20
	// maxOutput bounds the output of one call.
	maxOutput = 32 << 20
	// maxTools bounds the tools read from one server.
	maxTools = 1024
	// firstRestart and maxRestart bound the wait before a dead server is
	// started again.
	firstRestart = 500 * time.Millisecond
	maxRestart   = 30 * time.Second
	// killGrace is how long a stdio server may take to exit once its
	// stdin closed, before its process group is killed.
	killGrace = 2 * time.Second
	// stderrTail is how much of a server's stderr its exit is logged with.
	stderrTail = 4 << 10
)

// Public classes of a tool's failures.
const (
	classToolError = "the tool reported an error"
)

// TextOutputSchema is the output schema of a tool without outputSchema:
// its text content as {"text": ...}.
var TextOutputSchema = json.RawMessage(`{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}`)

// Options configure a Runner.
type Options struct {
	Logger *slog.Logger
	// HTTPClient makes the requests of mcp+http servers; nil: a client
	// that follows no redirects.
	HTTPClient *http.Client
}

// Runner runs the jobs of mcp and mcp+http listings. It is safe for
// concurrent use; Close stops every server it started.
type Runner struct {
	log  *slog.Logger
	http *http.Client

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	servers map[string]*server
}

var (
	_ market.Runner  = (*Runner)(nil)
	_ market.Starter = (*Runner)(nil)
)

// New returns a Runner.
func New(o Options) *Runner {
	r := &Runner{log: o.Logger, http: o.HTTPClient, servers: make(map[string]*server)}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.http == nil {
		r.http = &http.Client{}
	}
	c := *r.http
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r.http = &c
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r
}

// Close stops every server and waits for them.
func (r *Runner) Close() error {
	r.cancel()
	r.wg.Wait()
	return nil
}

// serverKey identifies a server: kind, argv, directory and passed
// variables, or URL.
func serverKey(h market.HandlerConfig) string {
	if h.Kind == market.HandlerMCPHTTP {
		return h.Kind + "\x00" + h.URL
	}
	return strings.Join([]string{h.Kind, strings.Join(h.Command, "\x01"), h.Dir, strings.Join(h.Env, "\x01")}, "\x00")
}

// Prepare starts the server of h, if it does not run yet.
func (r *Runner) Prepare(_ context.Context, h market.HandlerConfig) error {
	_, err := r.server(h)
	return err
}

func (r *Runner) server(h market.HandlerConfig) (*server, error) {
	if h.Kind != market.HandlerMCP && h.Kind != market.HandlerMCPHTTP {
		return nil, fmt.Errorf("not an mcp handler: %s", h.Kind)
	}
	if h.Kind == market.HandlerMCP && len(h.Command) == 0 {
		return nil, errors.New("mcp handler without a command")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ctx.Err(); err != nil {
		return nil, errors.New("mcp runner closed")
	}
	k := serverKey(h)
	if s, ok := r.servers[k]; ok {
		return s, nil
	}
	s := newServer(r, h)
	r.servers[k] = s
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		s.supervise(r.ctx)
	}()
	return s, nil
}

// Run calls the attempt's tool with the job's input.
func (r *Runner) Run(ctx context.Context, a market.Attempt) (market.Answer, error) {
	ans := market.Answer{Usage: market.Usage{Requests: 1}}
	s, err := r.server(a.Handler)
	if err != nil {
		return ans, market.Fail(market.ClassMisconfigured, err)
	}
	sess, tools, err := s.ready(ctx)
	if err != nil {
		return ans, err
	}
	if _, ok := tools[a.Handler.Tool]; !ok {
		return ans, market.Fail(market.ClassMisconfigured, fmt.Errorf("%s lists no tool %q (it lists %s)", s.name, a.Handler.Tool, toolNames(tools)))
	}
	res, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: a.Handler.Tool, Arguments: json.RawMessage(a.Input)})
	if err != nil {
		if ctx.Err() != nil {
			return ans, market.Fail(market.ClassTimeout, fmt.Errorf("call %s on %s: %w", a.Handler.Tool, s.name, err))
		}
		return ans, market.Fail(market.ClassUnavailable, fmt.Errorf("call %s on %s: %w", a.Handler.Tool, s.name, err))
	}
	ans.Output, err = Output(res)
	return ans, err
}

// Output is a tool result as a job's output: its structuredContent, else
// {"text": ...} of its text content; isError and an empty result are
// failures.
func Output(res *sdk.CallToolResult) (json.RawMessage, error) {
	text := textOf(res.Content)
	if res.IsError {
		return nil, market.Fail(classToolError, fmt.Errorf("isError: %s", truncate(text, 500)))
	}
	var (
		out []byte
		err error
	)
	switch {
	case res.StructuredContent != nil:
		out, err = json.Marshal(res.StructuredContent)
	case text != "" || hasText(res.Content):
		out, err = json.Marshal(map[string]string{"text": text})
	default:
		return nil, market.Fail(market.ClassBadAnswer, errors.New("the tool answered neither structuredContent nor text content"))
	}
	if err != nil {
		return nil, market.Fail(market.ClassBadAnswer, fmt.Errorf("encode the tool's result: %w", err))
	}
	if len(out) > maxOutput {
		return nil, market.Fail(market.ClassTooLarge, fmt.Errorf("the tool's result is %d bytes, over %d", len(out), maxOutput))
	}
	return out, nil
}

func textOf(cs []sdk.Content) string {
	var parts []string
	for _, c := range cs {
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func hasText(cs []sdk.Content) bool {
	for _, c := range cs {
		if _, ok := c.(*sdk.TextContent); ok {
			return true
		}
	}
	return false
}

func toolNames(tools map[string]Tool) string {
	if len(tools) == 0 {
		return "none"
	}
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	if len(names) > 20 {
		names = append(names[:20], "...")
	}
	return strings.Join(names, ", ")
}

// Tool is one tool of a server, as a listing needs it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema is the tool's outputSchema, or TextOutputSchema.
	OutputSchema json.RawMessage `json:"output_schema"`
}

// Describe starts h's server, lists its tools and stops it: what 'sell add
// --handler mcp:CMD --tool NAME' and '--from-mcp CMD' read the schemas
// from.
func Describe(ctx context.Context, h market.HandlerConfig, log *slog.Logger) ([]Tool, error) {
	r := New(Options{Logger: log})
	defer r.Close()
	s, err := r.server(h)
	if err != nil {
		return nil, err
	}
	_, tools, err := s.ready(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: %w", s.name, err)
	}
	out := make([]Tool, 0, len(tools))
	for _, t := range tools {
		out = append(out, t)
	}
	sortTools(out)
	return out, nil
}

func sortTools(ts []Tool) {
	slices.SortFunc(ts, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "..."
}

// server is one MCP server and its current session.
type server struct {
	r    *Runner
	h    market.HandlerConfig
	name string

	mu      sync.Mutex
	sess    *sdk.ClientSession
	tools   map[string]Tool
	lastErr error
	// up is closed when a session is ready, and replaced when it ends.
	up chan struct{}
	// refresh coalesces tools/list_changed notifications.
	refresh chan struct{}
}

func newServer(r *Runner, h market.HandlerConfig) *server {
	name := h.URL
	if h.Kind == market.HandlerMCP {
		name = strings.Join(h.Command, " ")
	}
	return &server{r: r, h: h, name: name, up: make(chan struct{}), refresh: make(chan struct{}, 1)}
}

// ready waits for a session with its tools, until ctx ends.
func (s *server) ready(ctx context.Context) (*sdk.ClientSession, map[string]Tool, error) {
	for {
		s.mu.Lock()
		sess, tools, up, last := s.sess, s.tools, s.up, s.lastErr
		s.mu.Unlock()
		if sess != nil {
			return sess, tools, nil
		}
		select {
		case <-up:
		case <-ctx.Done():
			err := fmt.Errorf("mcp server %s is not up", s.name)
			if last != nil {
				err = fmt.Errorf("%w: %w", err, last)
			}
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, nil, market.Fail(market.ClassUnavailable, err)
			}
			return nil, nil, market.Fail(market.ClassUnavailable, fmt.Errorf("%w (%w)", err, ctx.Err()))
		}
	}
}

// supervise runs the server until ctx ends, restarting it when it dies.
func (s *server) supervise(ctx context.Context) {
	wait := firstRestart
	for ctx.Err() == nil {
		start := time.Now()
		err := s.runOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		if time.Since(start) > maxRestart {
			wait = firstRestart // it ran a while: a fresh failure
		}
		s.r.log.Warn("mcp server stopped; starting it again", "server", s.name, "err", err, "in", wait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		wait = min(2*wait, maxRestart)
	}
}

// runOnce connects (starting the process of a stdio server), serves until
// the session ends, and reports why it ended.
func (s *server) runOnce(ctx context.Context) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "swarmwage", Version: "0.1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case s.refresh <- struct{}{}:
			default:
			}
		},
	})
	var (
		transport sdk.Transport
		exited    = make(chan error, 1)
	)
	if s.h.Kind == market.HandlerMCPHTTP {
		transport = &sdk.StreamableClientTransport{Endpoint: s.h.URL, HTTPClient: s.r.http, MaxRetries: -1}
	} else {
		t, err := s.startProcess(ctx, exited)
		if err != nil {
			return err
		}
		transport = t
		// The process ends with this run: killed if need be, waited for.
		defer func() {
			cancel()
			if perr := <-exited; err != nil && perr != nil {
				err = fmt.Errorf("%w (%w)", err, perr)
			}
		}()
	}
	connectCtx, cancelConnect := context.WithTimeout(ctx, 30*time.Second)
	sess, err := client.Connect(connectCtx, transport, nil)
	cancelConnect()
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer sess.Close()
	tools, err := listTools(ctx, sess)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.sess, s.tools, s.lastErr = sess, tools, nil
	close(s.up)
	s.mu.Unlock()
	s.r.log.Info("mcp server up", "server", s.name, "tools", len(tools))
	defer func() {
		s.mu.Lock()
		s.sess, s.up = nil, make(chan struct{})
		s.mu.Unlock()
	}()
	ended := make(chan error, 1)
	go func() { ended <- sess.Wait() }()
	for {
		select {
		case err := <-ended:
			if err == nil {
				err = errors.New("session ended")
			}
			return err
		case <-s.refresh:
			tools, err := listTools(ctx, sess)
			if err != nil {
				s.r.log.Warn("re-read mcp tools", "server", s.name, "err", err)
				continue
			}
			s.mu.Lock()
			s.tools = tools
			s.mu.Unlock()
			s.r.log.Info("mcp tools changed", "server", s.name, "tools", len(tools))
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func listTools(ctx context.Context, sess *sdk.ClientSession) (map[string]Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tools := make(map[string]Tool)
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list tools: %w", err)
		}
		if len(tools) >= maxTools {
			return nil, fmt.Errorf("list tools: over %d tools", maxTools)
		}
		in, err := json.Marshal(t.InputSchema)
		if err != nil || t.InputSchema == nil {
			in = json.RawMessage(`{"type":"object"}`)
		}
		out := TextOutputSchema
		if t.OutputSchema != nil {
			if b, err := json.Marshal(t.OutputSchema); err == nil {
				out = b
			}
		}
		tools[t.Name] = Tool{Name: t.Name, Description: t.Description, InputSchema: in, OutputSchema: out}
	}
	return tools, nil
}

// startProcess starts a stdio server through proc.Run and returns the
// transport over its stdin and stdout; exited gets the process's end.
// Closing the transport (the session's Close) closes stdin, and ctx's end
// kills the process group.
func (s *server) startProcess(ctx context.Context, exited chan<- error) (sdk.Transport, error) {
	home, err := os.MkdirTemp("", "swarmwage-mcp-")
	if err != nil {
		return nil, fmt.Errorf("make the server's home directory: %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(home)
		inR.Close()
		inW.Close()
		return nil, err
	}
	env := market.HandlerEnv(home, s.h.Env)
	argv := s.h.Command
	stderr := &tailBuffer{max: stderrTail}
	go func() {
		err := proc.Run(func() *exec.Cmd {
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Dir, cmd.Env = s.h.Dir, env
			cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
			cmd.WaitDelay = killGrace
			return cmd
		})
		// The process is gone: its end of both pipes with it, so the
		// session reads EOF.
		inR.Close()
		outW.Close()
		os.RemoveAll(home)
		if err != nil {
			err = fmt.Errorf("%s: %w: %s", argv[0], err, strings.TrimSpace(stderr.String()))
		} else {
			err = fmt.Errorf("%s exited: %s", argv[0], strings.TrimSpace(stderr.String()))
		}
		exited <- err
	}()
	return &sdk.IOTransport{Reader: outR, Writer: inW, MaxLineLength: maxFrame}, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = b.buf[len(b.buf)-b.max:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

var _ io.Writer = (*tailBuffer)(nil)
