package market

import (
	"bytes"
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

	"github.com/swarmwage/swarmwage/internal/proc"
	"github.com/swarmwage/swarmwage/market/builtin"
	"github.com/swarmwage/swarmwage/skillcard"
)

const (
	// maxHandlerOutput caps what a handler may return: a 10 MB PNG is
	// 13.4 MB of base64, so outputs get room above that.
	maxHandlerOutput = 32 << 20
	// maxHandlerStderr caps the stderr of an exec handler kept for the
	// seller's log: the tail kept for a failed job's error, and what of it
	// one job writes to the log.
	maxHandlerStderr = 64 << 10
	// maxStderrLine cuts a handler's stderr line in the log: a handler
	// that writes no newline still shows up in pieces.
	maxStderrLine = 4 << 10
	// handlerKillGrace is how long an exec handler may take to exit after
	// its deadline before it is killed with its pipes closed.
	handlerKillGrace = 2 * time.Second
	// maxEnvNames caps the variables a listing passes to its handler.
	maxEnvNames = 64
	// handlerLang is the locale of handler processes: UTF-8, and present
	// on every glibc and musl system without generated locales.
	handlerLang = "C.UTF-8"
	// defaultPath is a handler's PATH when the node has none.
	defaultPath = "/usr/local/bin:/usr/bin:/bin"
)

// ErrHandler wraps every failure of a seller's handler: the job fails and
// the buyer is refunded, the node carries on.
var ErrHandler = errors.New("handler failed")

// Classes of handler failure: all that the buyer of a failed job learns
// about why. Exit codes, HTTP statuses and input-validation reasons are
// added to them.
const (
	failHandler     = "handler failed"
	failStart       = "handler failed to start"
	failTimeout     = "handler timed out"
	failNotJSON     = "handler output is not valid JSON"
	failTooLarge    = "handler output too large"
	failRedirect    = "handler answered a redirect"
	failUnreachable = "handler unreachable"
	failSchema      = "handler output does not match its schema"
	failInput       = "input rejected"
)

// statusError is an error that names the HTTP status the agent endpoint
// answers with (400 bad input, 415 oversized page).
type statusError interface {
	error
	HTTPStatus() int
}

// handlerError is a failed job, in two parts. class is all the buyer
// learns: it is the error event's message, the reason the escrow records
// and the error of the job record the buyer can fetch, so it is short and
// free of the seller's internals. detail is the rest (a handler's stderr,
// an internal URL, a response body, a binding's error), which only the
// seller's log gets, through Error.
type handlerError struct {
	class   string
	status  int      // of the error event: 400 input rejected, 415, else 500
	reasons []string // what is wrong with the input, for input rejections
	detail  error
}

var _ statusError = (*handlerError)(nil)

func (e *handlerError) Error() string { return e.class + ": " + e.detail.Error() }

// Unwrap makes a handlerError match ErrHandler and its detail's errors.
func (e *handlerError) Unwrap() []error { return []error{ErrHandler, e.detail} }

// HTTPStatus is the status of the job's error event.
func (e *handlerError) HTTPStatus() int { return e.status }

// failed is a handler failure of class class (status 500) with its detail.
func failed(class string, detail error) *handlerError {
	return &handlerError{class: class, status: http.StatusInternalServerError, detail: detail}
}

// failedf is failed with a formatted detail.
func failedf(class, format string, args ...any) *handlerError {
	return failed(class, fmt.Errorf(format, args...))
}

// rejected is a job input the handler refused: the reasons are the
// buyer's to know.
func rejected(detail error, reasons ...string) *handlerError {
	return &handlerError{
		class: failInput + ": " + strings.Join(reasons, "; "), status: http.StatusBadRequest,
		reasons: reasons, detail: detail,
	}
}

// publicFailure is what the buyer of a job that failed with err learns:
// the message of the error event (also the escrow's reason and the job
// record's error), the event's status and the input's faults. Errors that
// are not a handlerError (the seller's own: a panic, a deadline passed in
// the queue) are told as "handler failed"; the seller's log has them.
func publicFailure(err error) (msg string, status int, reasons []string) {
	var he *handlerError
	switch {
	case errors.As(err, &he):
		return he.class, he.status, he.reasons
	case errors.Is(err, context.DeadlineExceeded):
		return failTimeout, http.StatusInternalServerError, nil
	default:
		return failHandler, http.StatusInternalServerError, nil
	}
}

// handlers runs jobs with the handler an offer is bound to.
type handlers struct {
	builtin *builtin.Registry
	http    *http.Client
	runners map[string]Runner
}

// runJob runs the job's handler: a Runner's kind through runChecked (its
// output verified before delivery, retried), the others through run.
func (h *handlers) runJob(ctx context.Context, o Offer, input json.RawMessage) outcome {
	switch o.Handler.Kind {
	case HandlerOpenAI, HandlerMCP, HandlerMCPHTTP:
		r := h.runners[o.Handler.Kind]
		if r == nil {
			return outcome{err: failedf(failHandler, "this node has no %s handler", o.Handler.Kind)}
		}
		return h.runChecked(ctx, r, o, input)
	}
	out, err := h.run(ctx, o, input)
	return outcome{out: out, err: err}
}

// run runs the job's handler. Every error is a *handlerError.
func (h *handlers) run(ctx context.Context, o Offer, input json.RawMessage) (json.RawMessage, error) {
	capID := o.Signed.Listing.Capability
	var (
		out json.RawMessage
		err error
	)
	switch o.Handler.Kind {
	case HandlerBuiltin:
		out, err = h.runBuiltin(ctx, capID, input)
	case HandlerExec:
		out, err = runExec(ctx, o.Handler, input)
	case HandlerHTTP:
		out, err = h.runHTTP(ctx, o.Handler.URL, input)
	case HandlerSkillCard:
		out, err = runSkillCard(ctx, o.Handler, input)
	default:
		err = failedf(failHandler, "unknown handler kind %q", o.Handler.Kind)
	}
	if err != nil {
		return nil, err
	}
	if !json.Valid(out) {
		return nil, failedf(failNotJSON, "%s handler's output is not valid JSON (got %q)", o.Handler.Kind, tail(string(out), 200))
	}
	return out, nil
}

func (h *handlers) runBuiltin(ctx context.Context, capID string, input json.RawMessage) (json.RawMessage, error) {
	if h.builtin == nil {
		return nil, failedf(failHandler, "this node has no built-in handlers")
	}
	hd, ok := h.builtin.Lookup(capID)
	if !ok {
		return nil, failedf(failHandler, "no built-in handler for %s", capID)
	}
	out, err := hd.Handle(ctx, input)
	if err == nil {
		return out, nil
	}
	var (
		ie *builtin.InputError
		se statusError
	)
	switch {
	case errors.As(err, &ie):
		return nil, rejected(err, ie.Reasons...)
	case errors.As(err, &se):
		// The built-in handlers' other status errors (415, a page over
		// the buyer's max_response_kb) are about the buyer's own input.
		return nil, &handlerError{class: se.Error(), status: se.HTTPStatus(), detail: err}
	case ctx.Err() == context.DeadlineExceeded:
		return nil, failed(failTimeout, err)
	default:
		return nil, failed(failHandler, err)
	}
}

// limitedBuffer keeps at most max bytes and reports whether more came.
type limitedBuffer struct {
	buf      bytes.Buffer
	max      int
	overflow bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	room := b.max - b.buf.Len()
	if len(p) > room {
		b.overflow = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

// handlerLogKey is the context key of a job's logger (withHandlerLog).
type handlerLogKey struct{}

// withHandlerLog gives a job's context the logger its handler's stderr
// goes to.
func withHandlerLog(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, handlerLogKey{}, log)
}

// handlerLog is the logger withHandlerLog put in ctx, nil when none ('sell
// test' shows the stderr itself).
func handlerLog(ctx context.Context) *slog.Logger {
	l, _ := ctx.Value(handlerLogKey{}).(*slog.Logger)
	return l
}

// stderrLog is an exec handler's stderr: kept in tail for the error of a
// failed job, and written to log (at Info, "handler stderr") a line at a
// time as the handler writes it, so the seller sees its handler's output
// in the daemon's log ('daemon --log-file', 'swarmwage logs -f'). At most
// maxHandlerStderr bytes of one job's stderr are logged, each line cut at
// maxStderrLine. The mutex orders Write (exec.Cmd's copying goroutine,
// which may outlive Wait after WaitDelay) against flush.
type stderrLog struct {
	mu      sync.Mutex
	log     *slog.Logger
	tail    *limitedBuffer
	partial []byte
	logged  int
	cut     bool
}

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.tail.Write(p)
	if w.log == nil {
		return len(p), nil
	}
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		switch {
		case i >= 0 && i <= maxStderrLine:
			w.emit(w.partial[:i])
			w.partial = w.partial[i+1:]
			continue
		case len(w.partial) > maxStderrLine:
			w.emit(w.partial[:maxStderrLine])
			w.partial = w.partial[maxStderrLine:]
			continue
		}
		break
	}
	w.partial = slices.Clip(w.partial)
	return len(p), nil
}

// emit logs one line, within the job's budget.
func (w *stderrLog) emit(line []byte) {
	if w.cut {
		return
	}
	if w.logged+len(line) > maxHandlerStderr {
		w.cut = true
		w.log.Info("handler stderr", "line", "(more stderr not logged: over 64 KiB this job)")
		return
	}
	w.logged += len(line)
	w.log.Info("handler stderr", "line", strings.TrimRight(string(line), "\r"))
}

// flush logs what is left after the handler exited without a newline.
func (w *stderrLog) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.log != nil && len(w.partial) > 0 {
		w.emit(w.partial)
		w.partial = nil
	}
}

// runExec runs the handler's argv (never through a shell) with the input
// JSON on stdin and takes its stdout as the output JSON. The program gets
// a minimal environment (handlerEnv) and runs through proc.Run: in a
// process group (and PID namespace) of its own that is killed whole at the
// deadline and dies with the node, even when the node is SIGKILLed.
func runExec(ctx context.Context, hc HandlerConfig, input json.RawMessage) (json.RawMessage, error) {
	argv := hc.Command
	if len(argv) == 0 {
		return nil, failedf(failHandler, "exec handler without a command")
	}
	home, err := os.MkdirTemp("", "swarmwage-job-")
	if err != nil {
		return nil, failedf(failStart, "make the job's home directory: %w", err)
	}
	defer os.RemoveAll(home)
	env := handlerEnv(home, hc.Env)
	var (
		stdout, stderr *limitedBuffer
		logW           *stderrLog
	)
	err = proc.Run(func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = hc.Dir
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(input)
		stdout = &limitedBuffer{max: maxHandlerOutput}
		stderr = &limitedBuffer{max: maxHandlerStderr}
		logW = &stderrLog{log: handlerLog(ctx), tail: stderr}
		cmd.Stdout, cmd.Stderr = stdout, logW
		cmd.WaitDelay = handlerKillGrace
		return cmd
	})
	if logW != nil {
		logW.flush()
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return nil, failedf(failTimeout, "%s did not finish before the job deadline: %s", argv[0], tail(stderr.buf.String(), 500))
	case ctx.Err() != nil:
		return nil, failedf(failHandler, "%s stopped: %w", argv[0], ctx.Err())
	case errors.As(err, &exitErr) && exitErr.ExitCode() >= 0:
		return nil, failedf(fmt.Sprintf("%s with exit %d", failHandler, exitErr.ExitCode()), "%s: %w: %s", argv[0], err, tail(stderr.buf.String(), 500))
	case errors.As(err, &exitErr):
		return nil, failedf(failHandler+": killed by a signal", "%s: %w: %s", argv[0], err, tail(stderr.buf.String(), 500))
	case err != nil:
		return nil, failedf(failStart, "%s: %w", argv[0], err)
	case stdout.overflow:
		return nil, failedf(failTooLarge, "%s wrote more than %d bytes", argv[0], maxHandlerOutput)
	}
	out := bytes.TrimSpace(stdout.buf.Bytes())
	if !json.Valid(out) {
		return nil, failedf(failNotJSON, "%s did not print one JSON document on stdout (got %q)", argv[0], tail(string(out), 200))
	}
	return out, nil
}

// handlerEnv is the environment of a handler process (exec, SkillCard
// cli). A handler runs a stranger's input, so it gets nothing of the
// node's environment (tokens, credentials, the node's own settings) beyond
// what it needs to run: PATH, to find interpreters; HOME and TMPDIR, a
// fresh directory of the job's own, removed when the job ends; and
// LANG=C.UTF-8. The listing may name variables to pass (HandlerConfig.Env,
// 'sell add --env NAME'): they are copied from the node's environment when
// set there, and a name such as HOME replaces the minimal value.
func handlerEnv(dir string, pass []string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = defaultPath
	}
	names := []string{"PATH", "HOME", "TMPDIR", "LANG"}
	vals := map[string]string{"PATH": path, "HOME": dir, "TMPDIR": dir, "LANG": handlerLang}
	for _, name := range pass {
		v, ok := os.LookupEnv(name)
		if !ok {
			continue
		}
		if _, seen := vals[name]; !seen {
			names = append(names, name)
		}
		vals[name] = v
	}
	env := make([]string, 0, len(names))
	for _, name := range names {
		env = append(env, name+"="+vals[name])
	}
	return env
}

// CheckHandlerEnv checks the variables a listing passes to its handler
// (HandlerConfig.Env): only exec and skillcard handlers run a process
// that gets them, and the names must pass CheckEnvNames.
func CheckHandlerEnv(h HandlerConfig) error {
	if len(h.Env) > 0 && h.Kind != HandlerExec && h.Kind != HandlerSkillCard && h.Kind != HandlerMCP {
		return fmt.Errorf("env: %s handlers run no program; environment variables go to exec and mcp handlers and SkillCard cli bindings", h.Kind)
	}
	return CheckEnvNames(h.Env)
}

// CheckEnvNames checks the variable names a listing passes to its handler
// (HandlerConfig.Env): at most 64, each a portable environment variable
// name (letters, digits and '_', not starting with a digit).
func CheckEnvNames(names []string) error {
	if len(names) > maxEnvNames {
		return fmt.Errorf("env: %d variables, at most %d", len(names), maxEnvNames)
	}
	for _, name := range names {
		if !validEnvName(name) {
			return fmt.Errorf("env: %q is not a variable name (letters, digits and '_', not starting with a digit)", name)
		}
	}
	return nil
}

func validEnvName(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case i > 0 && c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return true
}

// noRedirects is c answering redirects instead of following them: a
// handler's answer must come from the URL the seller configured, and a
// redirect would POST the buyer's input again to wherever it points
// (another host, another port of 127.0.0.1).
func noRedirects(c *http.Client) *http.Client {
	nc := http.Client{}
	if c != nil {
		nc = *c
	}
	nc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &nc
}

// runHTTP POSTs the input JSON to url and takes the JSON response.
func (h *handlers) runHTTP(ctx context.Context, url string, input json.RawMessage) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(input))
	if err != nil {
		return nil, failedf(failHandler, "http handler %s: %w", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := noRedirects(h.http).Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, failedf(failTimeout, "POST %s: %w", url, err)
		}
		return nil, failedf(failUnreachable, "POST %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		return nil, failedf(failRedirect, "POST %s answered %s to %q; redirects are not followed", url, resp.Status, resp.Header.Get("Location"))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxHandlerOutput+1))
	switch {
	case err != nil && ctx.Err() == context.DeadlineExceeded:
		return nil, failedf(failTimeout, "read the response of %s: %w", url, err)
	case err != nil:
		return nil, failedf(failHandler, "read the response of %s: %w", url, err)
	case len(data) > maxHandlerOutput:
		return nil, failedf(failTooLarge, "response of %s is over %d bytes", url, maxHandlerOutput)
	case resp.StatusCode/100 != 2:
		return nil, failedf(fmt.Sprintf("%s with HTTP %d", failHandler, resp.StatusCode), "POST %s answered %s: %s", url, resp.Status, tail(string(data), 300))
	}
	return bytes.TrimSpace(data), nil
}

// runSkillCard runs the card's first binding, checking the input and the
// output against the card's schemas. A cli binding gets the same minimal
// environment as an exec handler.
func runSkillCard(ctx context.Context, hc HandlerConfig, input json.RawMessage) (json.RawMessage, error) {
	card, err := skillcard.Parse(hc.SkillCard)
	if err != nil {
		return nil, failedf(failHandler, "stored skillcard: %w", err)
	}
	home, err := os.MkdirTemp("", "swarmwage-job-")
	if err != nil {
		return nil, failedf(failStart, "make the job's home directory: %w", err)
	}
	defer os.RemoveAll(home)
	lim := skillcard.Limits{
		Timeout: time.Until(deadlineOf(ctx)), MaxOutput: maxHandlerOutput, Dir: hc.Dir,
		Env: handlerEnv(home, hc.Env),
	}
	out, err := card.Run(ctx, input, lim)
	if err != nil {
		return nil, skillCardFailure(card.Slug, err)
	}
	return out, nil
}

// skillCardFailure classes an error of Card.Run.
func skillCardFailure(slug string, err error) *handlerError {
	detail := fmt.Errorf("skillcard %s: %w", slug, err)
	var (
		ie *skillcard.InputError
		ee *skillcard.ExitError
	)
	switch {
	case errors.As(err, &ie):
		return &handlerError{class: failInput + ": " + ie.Reason, status: http.StatusBadRequest, detail: detail}
	case errors.Is(err, skillcard.ErrSchemaMismatch) && !errors.Is(err, skillcard.ErrBindingFailed):
		// The input does not fit the card's inputs_schema, which is
		// published with the listing.
		msg := strings.TrimPrefix(err.Error(), "input: ")
		return &handlerError{class: failInput + ": " + msg, status: http.StatusBadRequest, detail: detail}
	case errors.Is(err, skillcard.ErrBindingTimeout):
		return failed(failTimeout, detail)
	case errors.Is(err, skillcard.ErrBindingOutputTooLarge):
		return failed(failTooLarge, detail)
	case errors.Is(err, skillcard.ErrBindingNotJSON):
		return failed(failNotJSON, detail)
	case errors.Is(err, skillcard.ErrSchemaMismatch):
		return failed(failSchema, detail)
	case errors.As(err, &ee):
		return failed(fmt.Sprintf("%s with exit %d", failHandler, ee.Code), detail)
	default:
		return failed(failHandler, detail)
	}
}

func deadlineOf(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(skillcard.DefaultTimeout)
}

// tail returns the last n bytes of s, for error messages.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// HandlerEnv is the minimal environment of a handler process (see
// handlerEnv), for the runners of other packages that start one (the
// server of an mcp:CMD handler): PATH, HOME and TMPDIR set to dir, LANG,
// and the variables pass names.
func HandlerEnv(dir string, pass []string) []string { return handlerEnv(dir, pass) }
