package skillcard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarmwage/swarmwage/internal/proc"
)

// Binding types (spec, Bindings).
const (
	// BindingCLI runs a local command from a template; see the template
	// rules in template.go and Binding.Run.
	BindingCLI = "cli"
	// BindingHTTP sends the input JSON to a URL and takes the JSON response.
	BindingHTTP = "http"
)

const (
	// DefaultTimeout bounds one binding run when Limits.Timeout is zero.
	DefaultTimeout = 60 * time.Second
	// DefaultMaxOutput caps a binding's stdout or response body, in bytes,
	// when Limits.MaxOutput is zero.
	DefaultMaxOutput = 4 << 20

	// maxStderr is how much of a failing command's stderr is kept for the
	// error message; the rest is discarded so a chatty program cannot fill
	// memory.
	maxStderr = 2 << 10
	// maxErrorBody is how much of a bad output is quoted in an error.
	maxErrorBody = 200
	// waitDelay is how long Run waits for a killed command's pipes to close
	// (a grandchild may hold them open).
	waitDelay = 2 * time.Second
)

var (
	// ErrBindingFailed is returned when a binding cannot run or fails; the
	// error text gives the reason. Every other binding error wraps it.
	ErrBindingFailed = errors.New("binding failed")
	// ErrBindingTimeout is returned when a binding exceeds Limits.Timeout.
	ErrBindingTimeout = fmt.Errorf("%w: timed out", ErrBindingFailed)
	// ErrBindingOutputTooLarge is returned when a binding's stdout or
	// response body exceeds Limits.MaxOutput.
	ErrBindingOutputTooLarge = fmt.Errorf("%w: output too large", ErrBindingFailed)
	// ErrBindingNotJSON is returned when a binding's output is not one JSON value.
	ErrBindingNotJSON = fmt.Errorf("%w: output is not JSON", ErrBindingFailed)
	// ErrBadInput is returned (as an *InputError) when a job input cannot be
	// handed to a binding: not a JSON object, a placeholder without a value,
	// a value holding a NUL byte. The fault is the input's, not the card's.
	ErrBadInput = fmt.Errorf("%w: bad input", ErrBindingFailed)
	// ErrOptionInjection is returned (as an *InputError) when an input value
	// would make an argument of a cli binding start with '-', so that the
	// program would read it as an option. The program is not run. It wraps
	// ErrBadInput.
	ErrOptionInjection = fmt.Errorf("%w: value would be read as an option", ErrBadInput)
)

// ExitError is returned when a cli binding's program exits with a non-zero
// status. It wraps ErrBindingFailed.
type ExitError struct {
	// Program is the program as the template names it.
	Program string
	// Code is its exit status, 1..255.
	Code int
	// Stderr is the start of what it wrote to stderr (at most 2 KiB).
	Stderr string
}

var _ error = (*ExitError)(nil)

func (e *ExitError) Error() string {
	msg := fmt.Sprintf("%v: %s exited with status %d", ErrBindingFailed, e.Program, e.Code)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Unwrap makes an ExitError match ErrBindingFailed.
func (e *ExitError) Unwrap() error { return ErrBindingFailed }

// InputError is a job input a binding refuses before it runs anything. Its
// Reason names the input field (the placeholder) and nothing of the
// command, so a seller may pass it on to the buyer who sent the input.
type InputError struct {
	// Placeholder is the template placeholder, which is the input field's
	// name, at fault; empty when the input as a whole is.
	Placeholder string
	// Reason says what is wrong, e.g. "the value of <n> starts with '-' and
	// would be read as an option".
	Reason string
	option bool
}

var _ error = (*InputError)(nil)

func (e *InputError) Error() string { return "bad input: " + e.Reason }

// Unwrap makes an InputError match ErrOptionInjection (for a leading '-')
// or ErrBadInput, and ErrBindingFailed.
func (e *InputError) Unwrap() error {
	if e.option {
		return ErrOptionInjection
	}
	return ErrBadInput
}

// Binding is one entry of a card's bindings: how to run the skill.
type Binding struct {
	Type string `json:"type"`
	// Command is the cli binding's command template.
	Command string `json:"command,omitempty"`
	// URL and Method (POST, PUT or PATCH; default POST) are an http binding's.
	URL    string `json:"url,omitempty"`
	Method string `json:"method,omitempty"`
}

// Limits bound one binding run.
type Limits struct {
	// Timeout bounds the whole run. Defaults to DefaultTimeout.
	Timeout time.Duration
	// MaxOutput caps stdout (cli) or the response body (http), in bytes.
	// Defaults to DefaultMaxOutput.
	MaxOutput int64
	// Dir is a cli binding's working directory, and the base of a relative
	// program path such as ./run.sh. Defaults to the current directory.
	Dir string
	// Env is a cli binding's environment. Nil gives a minimal one (PATH,
	// HOME, TMPDIR, LANG) rather than the node's, which may hold secrets.
	Env []string
	// Client sends http bindings' requests. Defaults to a client that does
	// not follow redirects (the input must go where the card says).
	Client *http.Client
}

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	if l.Env == nil {
		l.Env = minimalEnv()
	}
	if l.Client == nil {
		l.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}
	}
	return l
}

func minimalEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Run runs the binding on a job input (a JSON object) and returns its output,
// which is one JSON value. cli: the command template is expanded with the
// input (no shell: every value is part of one argument), the program also
// gets the input JSON on stdin, and must exit 0 and print one JSON value on
// stdout. http: the input JSON is sent (POST by default) and a 2xx response
// with a JSON body is the output. Every failure is an error wrapping
// ErrBindingFailed with the reason; Run never panics on bad input or output.
func (b Binding) Run(ctx context.Context, input json.RawMessage, lim Limits) (json.RawMessage, error) {
	lim = lim.withDefaults()
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	var (
		out json.RawMessage
		err error
	)
	switch b.Type {
	case BindingCLI:
		out, err = b.runCLI(ctx, input, lim)
	case BindingHTTP:
		out, err = b.runHTTP(ctx, input, lim)
	default:
		return nil, fmt.Errorf("%w: unknown binding type %q", ErrBindingFailed, b.Type)
	}
	if err != nil && ctx.Err() == context.DeadlineExceeded && !errors.Is(err, ErrBindingOutputTooLarge) {
		return nil, fmt.Errorf("%w after %s: %s", ErrBindingTimeout, lim.Timeout, err)
	}
	return out, err
}

func (b Binding) runCLI(ctx context.Context, input json.RawMessage, lim Limits) (json.RawMessage, error) {
	tmpl, err := parseTemplate(b.Command)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBindingFailed, err)
	}
	fields, err := decodeJSON(input)
	if err != nil {
		return nil, &InputError{Reason: fmt.Sprintf("the input is not JSON: %v", err)}
	}
	obj, ok := fields.(map[string]any)
	if !ok {
		return nil, &InputError{Reason: "the input must be a JSON object, not " + jsonType(fields)}
	}
	argv, err := tmpl.expand(obj)
	var ie *InputError
	if errors.As(err, &ie) {
		return nil, ie
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBindingFailed, err)
	}
	prog, err := findProgram(argv[0], lim)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBindingFailed, err)
	}

	ctx, kill := context.WithCancel(ctx)
	defer kill()
	var stdout, stderr *capWriter
	// proc.Run: its own process group, killed whole on cancel, and dying
	// with the node (see internal/proc).
	err = proc.Run(func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, prog, argv[1:]...)
		cmd.Dir = lim.Dir
		cmd.Env = lim.Env
		cmd.Stdin = bytes.NewReader(input)
		stdout = &capWriter{max: lim.MaxOutput, onFull: kill}
		stderr = &capWriter{max: maxStderr}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		cmd.WaitDelay = waitDelay
		return cmd
	})
	switch {
	case stdout.full:
		return nil, fmt.Errorf("%w: %s printed more than %d bytes", ErrBindingOutputTooLarge, argv[0], lim.MaxOutput)
	case err != nil:
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) && ctx.Err() == nil && exitErr.ExitCode() >= 0 {
			return nil, &ExitError{Program: argv[0], Code: exitErr.ExitCode(), Stderr: strings.TrimSpace(stderr.buf.String())}
		}
		return nil, fmt.Errorf("%w: run %s: %w%s", ErrBindingFailed, argv[0], err, stderrSuffix(stderr))
	}
	return jsonOutput(stdout.buf.Bytes(), argv[0]+" printed")
}

// findProgram resolves a relative path against lim.Dir, and a bare name
// against the PATH of lim.Env (the environment the program will run with),
// not the node's.
func findProgram(name string, lim Limits) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		if !filepath.IsAbs(name) && lim.Dir != "" {
			return filepath.Join(lim.Dir, name), nil
		}
		return name, nil
	}
	pathList, ok := "", false
	for _, kv := range lim.Env {
		if v, found := strings.CutPrefix(kv, "PATH="); found {
			pathList, ok = v, true
		}
	}
	if !ok {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would depend on the working directory
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("program %q not found in PATH %q", name, pathList)
}

func stderrSuffix(w *capWriter) string {
	s := strings.TrimSpace(w.buf.String())
	if s == "" {
		return ""
	}
	return ": " + s
}

// jsonOutput checks that out is exactly one JSON value and compacts it.
func jsonOutput(out []byte, what string) (json.RawMessage, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s nothing", ErrBindingNotJSON, what)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, out); err != nil {
		return nil, fmt.Errorf("%w: %s %s (%v)", ErrBindingNotJSON, what, quoteStart(out), err)
	}
	return buf.Bytes(), nil
}

func quoteStart(b []byte) string {
	if len(b) > maxErrorBody {
		return fmt.Sprintf("%q...", b[:maxErrorBody])
	}
	return fmt.Sprintf("%q", b)
}

func (b Binding) runHTTP(ctx context.Context, input json.RawMessage, lim Limits) (json.RawMessage, error) {
	if err := checkBindingURL(b.URL); err != nil {
		return nil, fmt.Errorf("%w: url %w", ErrBindingFailed, err)
	}
	if !json.Valid(input) {
		return nil, &InputError{Reason: "the input is not JSON"}
	}
	method := b.Method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, b.URL, bytes.NewReader(input))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBindingFailed, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := lim.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %w", ErrBindingFailed, method, b.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, lim.MaxOutput+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read the response of %s: %w", ErrBindingFailed, b.URL, err)
	}
	if int64(len(body)) > lim.MaxOutput {
		return nil, fmt.Errorf("%w: %s returned more than %d bytes", ErrBindingOutputTooLarge, b.URL, lim.MaxOutput)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("%w: %s returned HTTP %d: %s", ErrBindingFailed, b.URL, resp.StatusCode, quoteStart(bytes.TrimSpace(body)))
	}
	return jsonOutput(body, b.URL+" returned")
}

// capWriter keeps the first max bytes written to it. When more arrive it
// sets full and calls onFull (which kills the command) instead of blocking
// the child on a pipe nobody reads.
type capWriter struct {
	max    int64
	buf    bytes.Buffer
	full   bool
	onFull func()
}

func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max - int64(w.buf.Len())
	if int64(len(p)) <= room {
		return w.buf.Write(p)
	}
	w.buf.Write(p[:max(room, 0)])
	if w.onFull != nil {
		w.full = true
		w.onFull()
		return 0, ErrBindingOutputTooLarge
	}
	return len(p), nil // stderr: discard the rest
}

// Run is the seller handler of a card: it checks the input against
// inputs_schema (an error wrapping ErrSchemaMismatch is the buyer's fault),
// runs the card's first binding (never more than one, since a binding may
// have side effects), and checks the output against outputs_schema (a
// mismatch wraps both ErrBindingFailed and ErrSchemaMismatch). An invalid
// card is refused with its ValidationError. Set lim.Dir to the card's
// directory so a program given as ./script.sh is found next to the card.
func (c *Card) Run(ctx context.Context, input json.RawMessage, lim Limits) (json.RawMessage, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	if err := c.ValidateInput(input); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	out, err := c.Bindings[0].Run(ctx, input, lim)
	if err != nil {
		return nil, err
	}
	if err := c.ValidateOutput(out); err != nil {
		return nil, fmt.Errorf("%w: the %s binding's output: %w", ErrBindingFailed, c.Bindings[0].Type, err)
	}
	return out, nil
}
