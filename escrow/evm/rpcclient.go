package evm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// The JSON-RPC endpoint is not trusted to be well behaved: a compromised or
// dishonest provider, or a proxy in front of it, can answer without end or
// never. go-ethereum's HTTP client reads an answer whole, with no limit, so
// every answer here passes through a bounded body, and every request has a
// deadline of its own on top of the caller's context.
const (
	// MaxRPCAnswer bounds one JSON-RPC answer. The largest answers the
	// rail asks for are eth_getLogs over one reconcile step (a few thousand
	// logs of under 1 KiB) and receipts of redeem batches; 16 MiB is
	// generous for both and keeps a hostile answer from growing the heap
	// past it.
	MaxRPCAnswer = 16 << 20
	// RPCRequestTimeout bounds one HTTP request to the endpoint, however
	// long the caller's context is.
	RPCRequestTimeout = 30 * time.Second
)

// ErrRPCMisbehaved is returned when the RPC endpoint answered in a way no
// honest node does: an answer larger than MaxRPCAnswer, or a receipt that
// contradicts itself. The rail moves no money on such an answer; the
// message names the endpoint (without credentials).
var ErrRPCMisbehaved = errors.New("evm: the RPC endpoint misbehaved")

// rpcLimits are dialRPC's bounds; tests make them small.
type rpcLimits struct {
	maxAnswer int64
	timeout   time.Duration
}

var defaultRPCLimits = rpcLimits{maxAnswer: MaxRPCAnswer, timeout: RPCRequestTimeout}

// dialRPC connects to endpoint with bounded answers and per-request
// deadlines: over HTTP through boundedTransport, over WebSocket with the
// client's own message size limit.
func dialRPC(ctx context.Context, endpoint string) (*ethclient.Client, error) {
	return dialRPCLimits(ctx, endpoint, defaultRPCLimits)
}

func dialRPCLimits(ctx context.Context, endpoint string, lim rpcLimits) (*ethclient.Client, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("RPC endpoint %q: %w", redactURL(endpoint), err)
	}
	var opts []rpc.ClientOption
	switch u.Scheme {
	case "http", "https":
		hc := &http.Client{
			Transport: &boundedTransport{base: http.DefaultTransport, max: lim.maxAnswer, endpoint: redactURL(endpoint)},
			Timeout:   lim.timeout,
		}
		opts = append(opts, rpc.WithHTTPClient(hc))
	case "ws", "wss":
		opts = append(opts, rpc.WithWebsocketMessageSizeLimit(lim.maxAnswer))
	}
	c, err := rpc.DialOptions(ctx, endpoint, opts...)
	if err != nil {
		return nil, err
	}
	return ethclient.NewClient(c), nil
}

// redactURL keeps an endpoint's scheme, host and port: providers put API
// keys in the path, the query or the user info, and errors and logs must
// not carry them.
func redactURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "(the configured RPC endpoint)"
	}
	return u.Scheme + "://" + u.Host
}

// boundedTransport cuts every answer at max bytes: an answer that says it
// is longer is refused before it is read, one that turns out longer fails
// its read with ErrRPCMisbehaved.
type boundedTransport struct {
	base     http.RoundTripper
	max      int64
	endpoint string
}

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	cancel := context.CancelFunc(func() {})
	if d, ok := req.Context().Value(rpcTimeoutKey{}).(time.Duration); ok && d > 0 {
		var ctx context.Context
		ctx, cancel = context.WithTimeout(req.Context(), d)
		req = req.WithContext(ctx)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		cancel()
		if req.Context().Err() != nil {
			// No answer in time: an endpoint that hangs is one that is down.
			return nil, &noAnswerError{endpoint: t.endpoint, err: err}
		}
		return nil, err
	}
	if resp.ContentLength > t.max {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("%w: %s answered %d bytes, more than the %d allowed", ErrRPCMisbehaved, t.endpoint, resp.ContentLength, t.max)
	}
	resp.Body = &boundedBody{rc: resp.Body, left: t.max, t: t, cancel: cancel}
	return resp, nil
}

// noAnswerError: the endpoint did not answer a request in time. It is
// ErrChainDown (errors.Is) and unwraps to the transport's error.
type noAnswerError struct {
	endpoint string
	err      error
}

func (e *noAnswerError) Error() string {
	return fmt.Sprintf("%v: %s: no answer in time (%v)", ErrChainDown, e.endpoint, e.err)
}
func (e *noAnswerError) Is(target error) bool { return target == ErrChainDown }
func (e *noAnswerError) Unwrap() error        { return e.err }

// rpcTimeoutKey carries a per-request deadline shorter than the client's
// (withRPCTimeout) to boundedTransport.
type rpcTimeoutKey struct{}

// withRPCTimeout makes every request made with ctx give up after d (0:
// the client's own RPCRequestTimeout): the calls a hire waits on use a
// few seconds, so an endpoint that accepts connections and never answers
// fails the hire quickly with ErrChainDown instead of holding it for the
// client's 30 s, request after request.
func withRPCTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	if cur, ok := ctx.Value(rpcTimeoutKey{}).(time.Duration); ok && cur > 0 && cur <= d {
		return ctx
	}
	return context.WithValue(ctx, rpcTimeoutKey{}, d)
}

type boundedBody struct {
	rc     io.ReadCloser
	left   int64
	t      *boundedTransport
	cancel context.CancelFunc
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%w: %s answered more than the %d bytes allowed", ErrRPCMisbehaved, b.t.endpoint, b.t.max)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

// Close closes the body without draining it: go-ethereum drains a body
// before closing it, and a hostile one never ends.
func (b *boundedBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}
