package market

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/swarmwage/swarmwage/market/builtin"
	"github.com/swarmwage/swarmwage/skillcard"
)

const (
	// maxHandlerOutput caps what a handler may return: a 10 MB PNG is
	// 13.4 MB of base64, so outputs get room above that.
	maxHandlerOutput = 32 << 20
	// maxHandlerStderr caps the stderr of an exec handler kept for the
	// error message.
	maxHandlerStderr = 64 << 10
	// handlerKillGrace is how long an exec handler may take to exit after
	// its deadline before it is killed with its pipes closed.
	handlerKillGrace = 2 * time.Second
)

// ErrHandler wraps every failure of a seller's handler: the job fails and
// the buyer is refunded, the node carries on.
var ErrHandler = errors.New("handler failed")

// statusError is an error that names the HTTP status the agent endpoint
// answers with (400 bad input, 415 oversized page).
type statusError interface {
	error
	HTTPStatus() int
}

// handlers runs jobs with the handler an offer is bound to.
type handlers struct {
	builtin *builtin.Registry
	http    *http.Client
}

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
		out, err = runExec(ctx, o.Handler.Command, input)
	case HandlerHTTP:
		out, err = h.runHTTP(ctx, o.Handler.URL, input)
	case HandlerSkillCard:
		out, err = runSkillCard(ctx, o.Handler, input)
	default:
		err = fmt.Errorf("%w: unknown handler kind %q", ErrHandler, o.Handler.Kind)
	}
	if err != nil {
		return nil, err
	}
	if !json.Valid(out) {
		return nil, fmt.Errorf("%w: output is not valid JSON", ErrHandler)
	}
	return out, nil
}

func (h *handlers) runBuiltin(ctx context.Context, capID string, input json.RawMessage) (json.RawMessage, error) {
	if h.builtin == nil {
		return nil, fmt.Errorf("%w: this node has no built-in handlers", ErrHandler)
	}
	hd, ok := h.builtin.Lookup(capID)
	if !ok {
		return nil, fmt.Errorf("%w: no built-in handler for %s", ErrHandler, capID)
	}
	out, err := hd.Handle(ctx, input)
	if err != nil {
		var se statusError
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrHandler, err)
	}
	return out, nil
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

// runExec runs argv (never through a shell) with the input JSON on stdin
// and takes its stdout as the output JSON.
func runExec(ctx context.Context, argv []string, input json.RawMessage) (json.RawMessage, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: exec handler without a command", ErrHandler)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = bytes.NewReader(input)
	stdout := &limitedBuffer{max: maxHandlerOutput}
	stderr := &limitedBuffer{max: maxHandlerStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = handlerKillGrace
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%w: %s did not finish before the job deadline", ErrHandler, argv[0])
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %v: %s", ErrHandler, argv[0], err, tail(stderr.buf.String(), 500))
	case stdout.overflow:
		return nil, fmt.Errorf("%w: %s wrote more than %d bytes", ErrHandler, argv[0], maxHandlerOutput)
	}
	out := bytes.TrimSpace(stdout.buf.Bytes())
	if !json.Valid(out) {
		return nil, fmt.Errorf("%w: %s did not print one JSON document on stdout (got %q)", ErrHandler, argv[0], tail(string(out), 200))
	}
	return out, nil
}

// runHTTP POSTs the input JSON to url and takes the JSON response.
func (h *handlers) runHTTP(ctx context.Context, url string, input json.RawMessage) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(input))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHandler, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: POST %s: %v", ErrHandler, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxHandlerOutput+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read response of %s: %v", ErrHandler, url, err)
	}
	if len(data) > maxHandlerOutput {
		return nil, fmt.Errorf("%w: response of %s is over %d bytes", ErrHandler, url, maxHandlerOutput)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%w: POST %s answered %s: %s", ErrHandler, url, resp.Status, tail(string(data), 300))
	}
	return bytes.TrimSpace(data), nil
}

// runSkillCard runs the card's first binding, checking the input and the
// output against the card's schemas.
func runSkillCard(ctx context.Context, h HandlerConfig, input json.RawMessage) (json.RawMessage, error) {
	card, err := skillcard.Parse(h.SkillCard)
	if err != nil {
		return nil, fmt.Errorf("%w: stored skillcard: %v", ErrHandler, err)
	}
	lim := skillcard.Limits{Timeout: time.Until(deadlineOf(ctx)), MaxOutput: maxHandlerOutput, Dir: h.Dir}
	out, err := card.Run(ctx, input, lim)
	if err != nil {
		return nil, fmt.Errorf("%w: skillcard %s: %v", ErrHandler, card.Slug, err)
	}
	return out, nil
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
