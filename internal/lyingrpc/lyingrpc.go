// Package lyingrpc is a JSON-RPC proxy that lies on command. It sits in
// front of a real EVM node (anvil in the tests of escrow/evm and the fault
// suite), forwards every request to it, and rewrites the answers of the
// methods it is told to lie about: logs reordered, dropped or forged in
// eth_getLogs, eth_call results replaced, block numbers going backwards,
// receipts whose logs differ from the chain's, answers that are huge or
// slow. It plays the compromised or dishonest RPC provider of issue 30;
// a node in front of it must never book an outcome the chain does not
// show, and must converge once the proxy tells the truth again (Truth).
//
// It is test equipment: only tests import it, and the swarmwage binary
// never links it. It does not import package testing, so a test harness
// outside a _test.go file (the fault suite) can use it too.
//
// A Lie rewrites the result of one call; Proxy.Lie installs one for a
// method, and every installed lie of the method is applied in turn to
// each answer. Told counts the answers a lie changed, so a test can check
// the lie was told before it checks that the node did not believe it.
package lyingrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

const (
	// maxRequest bounds a request the proxy forwards: the node's largest
	// are raw transactions of redeem batches.
	maxRequest = 8 << 20
	// maxAnswer bounds an answer the proxy reads from the real node.
	maxAnswer = 64 << 20
	// forwardTimeout bounds one forwarded request.
	forwardTimeout = 60 * time.Second
)

// Request is one JSON-RPC call as the proxy saw it.
type Request struct {
	Method string
	Params []json.RawMessage
}

// Param decodes the i-th parameter into v; false if there is none or it
// does not decode.
func (r Request) Param(i int, v any) bool {
	if i >= len(r.Params) {
		return false
	}
	return json.Unmarshal(r.Params[i], v) == nil
}

// A Lie rewrites the result of one call: it gets the request and the real
// node's result and returns the result to send, and whether it changed
// anything (counted by Told). A Lie is called for successful answers only.
type Lie func(req Request, result json.RawMessage) (json.RawMessage, bool)

// Proxy is a lying JSON-RPC proxy on 127.0.0.1. Safe for concurrent use.
type Proxy struct {
	// URL is the proxy's http:// URL; give it to the node under test.
	URL string

	target string
	client *http.Client
	srv    *http.Server
	ln     net.Listener
	done   chan struct{}

	mu     sync.Mutex
	lies   map[string][]Lie
	told   map[string]int
	slow   time.Duration
	frozen bool
	calls  map[string]int
}

// Start listens on a free port of 127.0.0.1 and forwards to target (the
// real node's http:// URL) until Close.
func Start(target string) (*Proxy, error) {
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		return nil, fmt.Errorf("lyingrpc: target %q: want an http:// URL", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("lyingrpc: listen: %w", err)
	}
	p := &Proxy{
		URL: "http://" + ln.Addr().String(), target: target, ln: ln, done: make(chan struct{}),
		client: &http.Client{Timeout: forwardTimeout},
		lies:   map[string][]Lie{}, told: map[string]int{}, calls: map[string]int{},
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(ln)
	}()
	return p, nil
}

// Close stops the proxy and waits for it.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	<-p.done
	p.client.CloseIdleConnections()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Lie adds a lie to method's answers (applied after those added before).
func (p *Proxy) Lie(method string, l Lie) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lies[method] = append(p.lies[method], l)
}

// Truth removes every lie, the slowness and the freeze: from now on the
// proxy forwards answers unchanged.
func (p *Proxy) Truth() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lies, p.slow, p.frozen = map[string][]Lie{}, 0, false
}

// Told is how many answers of method a lie changed so far.
func (p *Proxy) Told(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.told[method]
}

// Calls is how many calls of method the proxy forwarded so far.
func (p *Proxy) Calls(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[method]
}

// Slow delays every answer by d (0: none), or until the client gives up.
func (p *Proxy) Slow(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.slow = d
}

// Freeze makes the proxy accept requests and never answer them (until
// Truth), as an endpoint that hangs.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frozen = true
}

type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
	if err != nil || len(body) > maxRequest {
		http.Error(w, "lyingrpc: request unreadable or too large", http.StatusRequestEntityTooLarge)
		return
	}
	p.mu.Lock()
	slow, frozen := p.slow, p.frozen
	p.mu.Unlock()
	if frozen {
		<-r.Context().Done()
		return
	}
	reqs, batch, err := decodeMessages(body)
	if err != nil {
		http.Error(w, "lyingrpc: "+err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	for _, q := range reqs {
		p.calls[q.Method]++
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(r.Context(), forwardTimeout)
	defer cancel()
	fr, err := http.NewRequestWithContext(ctx, http.MethodPost, p.target, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fr.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(fr)
	if err != nil {
		http.Error(w, "lyingrpc: forward: "+err.Error(), http.StatusBadGateway)
		return
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	if err != nil {
		http.Error(w, "lyingrpc: read answer: "+err.Error(), http.StatusBadGateway)
		return
	}
	if resp.StatusCode == http.StatusOK {
		if out, ok := p.rewrite(reqs, batch, answer); ok {
			answer = out
		}
	}
	if slow > 0 {
		select {
		case <-time.After(slow):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

func decodeMessages(b []byte) ([]rpcMessage, bool, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var ms []rpcMessage
		err := json.Unmarshal(b, &ms)
		return ms, true, err
	}
	var m rpcMessage
	err := json.Unmarshal(b, &m)
	return []rpcMessage{m}, false, err
}

// rewrite applies the lies to the answers of reqs (matched by ID).
func (p *Proxy) rewrite(reqs []rpcMessage, batch bool, answer []byte) ([]byte, bool) {
	answers, _, err := decodeMessages(answer)
	if err != nil {
		return nil, false
	}
	byID := map[string]rpcMessage{}
	for _, q := range reqs {
		byID[string(q.ID)] = q
	}
	changed := false
	for i, a := range answers {
		q, ok := byID[string(a.ID)]
		if !ok || len(a.Error) > 0 || a.Result == nil {
			continue
		}
		p.mu.Lock()
		lies := append([]Lie(nil), p.lies[q.Method]...)
		p.mu.Unlock()
		if len(lies) == 0 {
			continue
		}
		req := Request{Method: q.Method}
		_ = json.Unmarshal(q.Params, &req.Params)
		res := a.Result
		for _, l := range lies {
			if out, lied := l(req, res); lied {
				res = out
				p.mu.Lock()
				p.told[q.Method]++
				p.mu.Unlock()
			}
		}
		if !bytes.Equal(res, a.Result) {
			answers[i].Result, changed = res, true
		}
	}
	if !changed {
		return nil, false
	}
	var out []byte
	if batch {
		out, err = json.Marshal(answers)
	} else {
		out, err = json.Marshal(answers[0])
	}
	return out, err == nil
}
