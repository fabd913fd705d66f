package market

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// agentClient talks to other sellers' agent endpoints over libp2p streams
// (transport.go), kept alive between requests to the same seller.
type agentClient struct {
	host host.Host
	// trOnce makes tr, the HTTP transport over agent streams, on first use.
	trOnce sync.Once
	tr     *http.Transport
	// holePunchWait is HolePunchWait; tests shorten it.
	holePunchWait time.Duration
	// untagged, if set, hears of each listing accepted without a type tag
	// (Market.noteUntagged).
	untagged func(kind string, signer peer.ID)
}

// noteUntagged tells c.untagged of an untagged listing that verified.
func (c *agentClient) noteUntagged(s SignedListing) {
	if s.Untagged() && c.untagged != nil {
		c.untagged(TypeListing, s.Listing.Seller)
	}
}

// do sends one request to seller's agent endpoint and decodes a JSON
// response of at most limit bytes into out. It returns the status code and
// the round-trip time.
func (c *agentClient) do(ctx context.Context, seller peer.AddrInfo, method, path string, body io.Reader, limit int64, out any) (int, time.Duration, error) {
	// Over a libp2p stream the host part only names the peer; the path is
	// what the seller routes on.
	req, err := http.NewRequestWithContext(ctx, method, "http://"+seller.ID.String()+AgentPath+path, body)
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := c.roundTrip(req, seller, false)
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s at %s: %w", method, path, seller.ID, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	rtt := time.Since(start)
	if err != nil {
		return resp.StatusCode, rtt, fmt.Errorf("%s %s at %s: read body: %w", method, path, seller.ID, err)
	}
	if int64(len(data)) > limit {
		return resp.StatusCode, rtt, fmt.Errorf("%s %s at %s: response over %d bytes", method, path, seller.ID, limit)
	}
	if resp.StatusCode/100 != 2 {
		var e errorBody
		_ = json.Unmarshal(data, &e)
		return resp.StatusCode, rtt, newStatusError(resp, e)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, rtt, fmt.Errorf("%s %s at %s: decode response: %w", method, path, seller.ID, err)
		}
	}
	return resp.StatusCode, rtt, nil
}

// StatusError is a non-2xx answer of a seller's agent endpoint.
type StatusError struct {
	Code    int
	Message string
	Reasons []string
	// RetryAfter is the seller's Retry-After on a 429 or 503; 0 if none.
	RetryAfter time.Duration
	// Local is set when this node did not send the request because the
	// only path to the seller could not carry it (a relay's limits); Code
	// then says why, as the seller would have.
	Local bool
}

// maxRetryAfter caps how long a seller's Retry-After makes a buyer wait
// before it asks again; longer values are the seller's problem, not ours.
const maxRetryAfter = 30 * time.Second

func newStatusError(resp *http.Response, e errorBody) *StatusError {
	se := &StatusError{Code: resp.StatusCode, Message: e.Error, Reasons: e.Reasons}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs >= 0 {
		se.RetryAfter = min(time.Duration(secs)*time.Second, maxRetryAfter)
	}
	return se
}

// retryable reports whether err is a seller's "busy, ask again later" and
// how long to wait first.
func retryable(err error) (time.Duration, bool) {
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusTooManyRequests && se.Code != http.StatusServiceUnavailable {
		return 0, false
	}
	return max(se.RetryAfter, 100*time.Millisecond), true
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("seller answered %d %s", e.Code, http.StatusText(e.Code))
	if e.Local {
		msg = "not sent to the seller"
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	for _, r := range e.Reasons {
		msg += "; " + r
	}
	return msg
}

// fetchListing fetches and verifies seller's listing of capID.
func (c *agentClient) fetchListing(ctx context.Context, seller peer.AddrInfo, capID string) (SignedListing, time.Duration, error) {
	var raw json.RawMessage
	_, rtt, err := c.do(ctx, seller, http.MethodGet, "/capabilities/"+capID, nil, maxListingSize, &raw)
	if err != nil {
		return SignedListing{}, rtt, err
	}
	s, err := DecodeSignedListing(raw)
	if err != nil {
		return SignedListing{}, rtt, err
	}
	if err := s.Verify(seller.ID, capID); err != nil {
		return SignedListing{}, rtt, err
	}
	c.noteUntagged(s)
	return s, rtt, nil
}

// fetchListings fetches every listing of seller under prefix and verifies
// each; listings that fail are counted in rejected.
func (c *agentClient) fetchListings(ctx context.Context, seller peer.AddrInfo, prefix string) (out []SignedListing, rejected int, rtt time.Duration, err error) {
	var resp struct {
		Listings []json.RawMessage `json:"listings"`
	}
	_, rtt, err = c.do(ctx, seller, http.MethodGet, "/capabilities", nil, maxListingsSize, &resp)
	if err != nil {
		return nil, 0, rtt, err
	}
	for _, raw := range resp.Listings {
		s, err := DecodeSignedListing(raw)
		if err != nil {
			rejected++
			continue
		}
		if !strings.HasPrefix(s.Listing.Capability, prefix+".") {
			continue
		}
		if err := s.Verify(seller.ID, prefix); err != nil {
			rejected++
			continue
		}
		c.noteUntagged(s)
		out = append(out, s)
	}
	return out, rejected, rtt, nil
}

// stream POSTs a job's body to seller and returns the response for the
// caller to read as a stream. A non-2xx answer is a *StatusError.
//
// The request runs under a context of its own that ctx cancels, so that
// closing the response (jobBody) may read its end after the caller's
// context is gone: the transport aborts a request whose context ends.
func (c *agentClient) stream(ctx context.Context, seller peer.AddrInfo, path string, body []byte) (*http.Response, error) {
	return c.streamBody(ctx, seller, path, bytes.NewReader(body))
}

// streamBody is stream with a body read as the request is sent: one that
// is not a *bytes.Reader goes out chunked, each read as it comes.
func (c *agentClient) streamBody(ctx context.Context, seller peer.AddrInfo, path string, body io.Reader) (*http.Response, error) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, "http://"+seller.ID.String()+AgentPath+path, body)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if path == "/jobs" {
		req.Header.Set(DeliveryHeader, EarlyDelivery)
	}
	resp, err := c.roundTrip(req, seller, true)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("POST %s at %s: %w", path, seller.ID, err)
	}
	if resp.StatusCode/100 != 2 {
		defer cancel()
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxListingSize))
		var e errorBody
		_ = json.Unmarshal(data, &e)
		return nil, newStatusError(resp, e)
	}
	resp.Body = &jobBody{ReadCloser: resp.Body, stop: stop, cancel: cancel}
	return resp, nil
}

const (
	// jobDrainWait bounds how long closing a job's event stream waits for
	// the end of the response after the event the buyer stopped at: a
	// seller ends the response right after its result, and a stream read
	// to its end is kept for the next request.
	jobDrainWait = 100 * time.Millisecond
	// jobDrainMax is how much of a job's event stream closing it reads
	// past the buyer's last event: the end of a chunked body, not events.
	jobDrainMax = 4 << 10
)

// jobBody is a job's event stream. Its reader stops at the result event,
// before the end of the response; Close reads that end in the background,
// for a short while and a few bytes at most, so that the transport keeps
// the stream alive (it closes a stream whose response was not read to the
// end) without the hire waiting for the seller's last write. A hire that
// was cancelled closes the stream at once.
type jobBody struct {
	io.ReadCloser
	// stop stops ctx from cancelling the request; cancel cancels it.
	stop   func() bool
	cancel context.CancelFunc
	once   sync.Once
}

func (b *jobBody) Close() error {
	b.once.Do(func() {
		if !b.stop() {
			// The caller's context ended: the request is being aborted.
			_ = b.ReadCloser.Close()
			b.cancel()
			return
		}
		go func() {
			defer b.cancel()
			t := time.AfterFunc(jobDrainWait, func() { _ = b.ReadCloser.Close() })
			_, _ = io.Copy(io.Discard, io.LimitReader(b.ReadCloser, jobDrainMax))
			t.Stop()
			_ = b.ReadCloser.Close()
		}()
	})
	return nil
}
