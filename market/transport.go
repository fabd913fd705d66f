package market

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	libp2phttp "github.com/libp2p/go-libp2p/p2p/http"
	circuit "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/client"
)

// The kinds of connection a job ran over (HireResult.Connection).
const (
	// ConnDirect: a direct connection, dialled or made by hole punching.
	ConnDirect = "direct"
	// ConnRelayed: a limited connection through a circuit relay v2.
	ConnRelayed = "relayed"
)

const (
	// newStreamTimeout bounds opening one agent stream (dial and protocol
	// negotiation), as libp2phttp.DefaultNewStreamTimeout does; the
	// request's own deadline bounds the rest.
	newStreamTimeout = 15 * time.Second

	// HolePunchWait is how long a job whose only connection to the seller
	// is relayed waits for hole punching (DCUtR) to add a direct one,
	// counted from when the relayed connection opened. The NAT'd side
	// starts hole punching as soon as the relayed connection is
	// identified; where NATs allow it, it succeeds within a few round
	// trips, so a wait of seconds covers it, and a job whose NATs do not
	// allow it is not delayed longer than that.
	HolePunchWait = 3 * time.Second

	// relayRequestSlack is what a job's request needs on a relayed
	// connection beyond its body: headers, and the other requests of the
	// hire that used the same circuit (a signed listing with its schemas, a
	// quote), a few KiB each.
	relayRequestSlack = 16 << 10
)

// agentProtocol is the libp2p protocol of agent streams: go-libp2p's
// HTTP/1.1 over streams.
const agentProtocol = libp2phttp.ProtocolIDForMultistreamSelect

// connRecorderKey is the context key of a *string that records the kind of
// connection (ConnDirect, ConnRelayed) of the agent requests made with the
// context.
type connRecorderKey struct{}

// withConnRecorder returns a context whose agent requests record in *kind
// the kind of connection each used; the last request wins. The caller reads
// *kind after the requests returned.
func withConnRecorder(ctx context.Context, kind *string) context.Context {
	return context.WithValue(ctx, connRecorderKey{}, kind)
}

// connKind names the kind of c.
func connKind(c network.Conn) string {
	if c.Stat().Limited {
		return ConnRelayed
	}
	return ConnDirect
}

// roundTrip sends req to seller over a new agent stream and returns the
// response; its body reads from the stream and closing it closes the
// stream. Relayed (limited) connections are allowed, since a seller behind
// NAT is reachable only through its relay. A job (job set) whose only
// connection is relayed first waits for hole punching (HolePunchWait), and
// is not sent when its body does not fit the relay's data limit: that
// error is a local *StatusError (413), so the hire refunds the lock and
// tries the next seller.
func (c *agentClient) roundTrip(req *http.Request, seller peer.AddrInfo, job bool) (*http.Response, error) {
	ctx := req.Context()
	s, err := c.openStream(ctx, seller)
	if err != nil {
		return nil, err
	}
	if job && s.Conn().Stat().Limited {
		if s, err = c.upgradeOrFit(ctx, s, seller, req.ContentLength); err != nil {
			return nil, err
		}
	}
	if kind, ok := ctx.Value(connRecorderKey{}).(*string); ok {
		*kind = connKind(s.Conn())
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = s.SetDeadline(dl)
	}
	// A cancelled request resets the stream, so that a read or write
	// blocked on a silent seller returns.
	stop := context.AfterFunc(ctx, func() { _ = s.Reset() })
	req.Header.Set("Connection", "close")
	// The request is written while the response is read: a seller may
	// answer (400, 413) before it has read the whole body.
	go func() {
		if err := req.Write(s); err != nil {
			_ = s.Reset()
			return
		}
		_ = s.CloseWrite()
	}()
	resp, err := readResponse(s, req)
	if err != nil {
		stop()
		_ = s.Reset()
		return nil, err
	}
	resp.Body = &streamBody{ReadCloser: resp.Body, s: s, stop: stop}
	return resp, nil
}

// maxResponseHeader caps the status line and headers of a seller's answer,
// as http.Transport's MaxResponseHeaderBytes does: a seller that sends
// headers without end is cut off. Bodies have caps of their own, per call.
const maxResponseHeader = 64 << 10

// readResponse reads an HTTP response from r, its headers capped at
// maxResponseHeader.
func readResponse(r io.Reader, req *http.Request) (*http.Response, error) {
	lr := &io.LimitedReader{R: r, N: maxResponseHeader}
	resp, err := http.ReadResponse(bufio.NewReader(lr), req)
	if err != nil {
		if lr.N <= 0 {
			return nil, fmt.Errorf("seller's response headers are over %d bytes", maxResponseHeader)
		}
		return nil, err
	}
	// The body reads through the same buffer; its callers cap it.
	lr.N = math.MaxInt64
	return resp, nil
}

// openStream opens an agent stream to seller, in the agent's
// resource-manager service.
func (c *agentClient) openStream(ctx context.Context, seller peer.AddrInfo) (network.Stream, error) {
	// When a connection exists the seller's addresses are left out: adding
	// them on every request would rewrite the peerstore, which is on disk.
	if len(seller.Addrs) > 0 && len(c.host.Network().ConnsToPeer(seller.ID)) == 0 {
		c.host.Peerstore().AddAddrs(seller.ID, seller.Addrs, peerstore.TempAddrTTL)
	}
	sctx, cancel := context.WithTimeout(ctx, newStreamTimeout)
	defer cancel()
	sctx = network.WithAllowLimitedConn(sctx, "swarmwage agent")
	s, err := c.host.NewStream(sctx, seller.ID, agentProtocol)
	if err != nil {
		return nil, err
	}
	if err := s.Scope().SetService(ServiceName); err != nil {
		_ = s.Reset()
		return nil, fmt.Errorf("agent stream to %s: %w", seller.ID, err)
	}
	return s, nil
}

// upgradeOrFit is called with a stream s on a relayed connection for a job
// of size bytes. It waits for a direct connection until holePunchWait after
// the relayed one opened and returns a stream on it; else it returns s if
// the job fits the relay's data limit, else a local *StatusError.
func (c *agentClient) upgradeOrFit(ctx context.Context, s network.Stream, seller peer.AddrInfo, size int64) (network.Stream, error) {
	stat := s.Conn().Stat()
	if c.waitDirect(ctx, seller.ID, stat.Opened.Add(c.holePunchWait)) {
		_ = s.Reset()
		return c.openStream(ctx, seller)
	}
	limit, _ := stat.Extra[circuit.StatLimitData].(uint64)
	if limit == 0 || size >= 0 && uint64(size)+relayRequestSlack <= limit {
		return s, nil
	}
	_ = s.Reset()
	return nil, &StatusError{
		Code:  http.StatusRequestEntityTooLarge,
		Local: true,
		Message: fmt.Sprintf("the job's request (%d bytes) does not fit the data limit (%d bytes) of the relay that is the only way to %s, and hole punching made no direct connection",
			size, limit, seller.ID),
	}
}

// waitDirect reports whether a direct (not limited) connection to p exists
// or appears before until.
func (c *agentClient) waitDirect(ctx context.Context, p peer.ID, until time.Time) bool {
	sub, err := c.host.EventBus().Subscribe(new(event.EvtPeerConnectednessChanged))
	if err != nil {
		return false
	}
	defer sub.Close()
	if c.host.Network().Connectedness(p) == network.Connected {
		return true
	}
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	for {
		select {
		case e, ok := <-sub.Out():
			if !ok {
				return false
			}
			if ev := e.(event.EvtPeerConnectednessChanged); ev.Peer == p && ev.Connectedness == network.Connected {
				return true
			}
		case <-t.C:
			return c.host.Network().Connectedness(p) == network.Connected
		case <-ctx.Done():
			return false
		}
	}
}

// streamBody is a response body read from an agent stream.
type streamBody struct {
	io.ReadCloser
	s    network.Stream
	stop func() bool
}

func (b *streamBody) Close() error {
	b.stop()
	err := b.ReadCloser.Close()
	_ = b.s.Close()
	return err
}
