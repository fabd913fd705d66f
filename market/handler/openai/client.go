package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/swarmwage/swarmwage/market"
)

const (
	// maxResponse caps a model server's answer: a 10 MiB PNG is 13.4 MB of
	// base64, and market caps an output at 32 MiB.
	maxResponse = 32 << 20
	// maxErrorBody caps what is read of an error answer (for the log).
	maxErrorBody = 16 << 10
	// maxRequests caps the requests of one attempt when 429s and 5xx
	// repeat: the deadline usually ends it first.
	maxRequests = 8
	// firstBackoff is the wait after the first 5xx or refused connection
	// without Retry-After; each further failure doubles it, up to
	// maxBackoff.
	firstBackoff = 500 * time.Millisecond
	maxBackoff   = 8 * time.Second
)

// Class of a request the model server refused for another reason than the
// seller's credentials (400: the model's context is too small for the
// input, a parameter it does not take).
const classRefused = "model server refused the request"

// statusError is a 4xx answer other than 401, 403 and 404 and 429, kept
// so that the chat call can tell a server that takes no response_format.
type statusError struct {
	status  int
	message string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("model server answered %d: %s", e.status, e.message)
}

// call is one request to the model server at path (under the base URL),
// with the retries of the package doc. It returns the 2xx response, whose
// body the caller reads (through limitBody) and closes.
func (r *Runner) call(ctx context.Context, hc market.HandlerConfig, path string, body any, usage *market.Usage) (*http.Response, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	url := strings.TrimRight(hc.BaseURL, "/") + path
	key := r.apiKey(hc)
	redact := func(s string) string {
		if key != "" {
			s = strings.ReplaceAll(s, key, "[redacted]")
		}
		return s
	}
	backoff := firstBackoff
	var last error
	for n := 0; n < maxRequests; n++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
		if err != nil {
			return nil, market.Fail(market.ClassMisconfigured, fmt.Errorf("request to %s: %w", url, err))
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		usage.Requests++
		resp, err := r.http.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, market.Fail(market.ClassTimeout, fmt.Errorf("POST %s: %s", url, redact(err.Error())))
			}
			last = fmt.Errorf("POST %s: %s", url, redact(err.Error()))
			if !r.wait(ctx, backoff) {
				break
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		if resp.StatusCode/100 == 2 {
			return resp, nil
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		msg := redact(decodeError(data))
		switch st := resp.StatusCode; {
		case st == http.StatusUnauthorized || st == http.StatusForbidden:
			return nil, market.Fail(market.ClassMisconfigured, fmt.Errorf("POST %s answered %d (check the key in $%s): %s", url, st, keyEnv(hc), msg))
		case st == http.StatusNotFound:
			return nil, market.Fail(market.ClassMisconfigured, fmt.Errorf("POST %s answered 404 (is the base URL right, up to /v1, and is model %q served?): %s", url, hc.Model, msg))
		case st == http.StatusTooManyRequests || st >= 500:
			last = fmt.Errorf("POST %s answered %d: %s", url, st, msg)
			wait := backoff
			if ra, ok := retryAfter(resp.Header.Get("Retry-After"), r.now()); ok {
				wait = ra
			} else {
				backoff = min(2*backoff, maxBackoff)
			}
			if !r.wait(ctx, wait) {
				return nil, market.Fail(market.ClassUnavailable, fmt.Errorf("%w; the next try (in %s) is past the job deadline", last, wait.Round(time.Millisecond)))
			}
		case st >= 300 && st < 400:
			return nil, market.Fail(market.ClassMisconfigured, fmt.Errorf("POST %s answered a redirect %d to %q; redirects are not followed", url, st, resp.Header.Get("Location")))
		default:
			return nil, &statusError{status: st, message: msg}
		}
	}
	if ctx.Err() != nil {
		return nil, market.Fail(market.ClassTimeout, last)
	}
	return nil, market.Fail(market.ClassUnavailable, last)
}

// wait sleeps d unless that passes ctx's deadline or ctx ends first; it
// reports whether the wait ended normally.
func (r *Runner) wait(ctx context.Context, d time.Duration) bool {
	if dl, ok := ctx.Deadline(); ok && r.now().Add(d).After(dl) {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// maxRetryAfter bounds a Retry-After: past it the server is down, not busy.
const maxRetryAfter = 10 * time.Minute

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || math.IsNaN(s) || s > maxRetryAfter.Seconds() {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d > maxRetryAfter {
			return 0, false
		}
		return max(d, 0), true
	}
	return 0, false
}

// readBody reads a 2xx answer's body, at most maxResponse bytes.
func readBody(ctx context.Context, resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, market.Fail(market.ClassTimeout, fmt.Errorf("read the answer: %w", err))
	case err != nil:
		return nil, market.Fail(market.ClassUnavailable, fmt.Errorf("read the answer: %w", err))
	case len(data) > maxResponse:
		return nil, market.Fail(market.ClassTooLarge, fmt.Errorf("the answer is over %d bytes", maxResponse))
	}
	return data, nil
}

// badAnswer classes a decode error of a 2xx answer.
func badAnswer(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, errTooLarge):
		return market.Fail(market.ClassTooLarge, err)
	case ctx.Err() != nil:
		return market.Fail(market.ClassTimeout, err)
	default:
		return market.Fail(market.ClassBadAnswer, err)
	}
}
