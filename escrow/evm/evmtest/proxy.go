package evmtest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy is a TCP forwarder on 127.0.0.1 in front of an RPC endpoint, for
// tests of a chain that goes down and comes back: Down closes the listener
// and every open connection (clients see "connection refused"), Up listens
// again on the same port. Nodes given Proxy.URL cannot tell it from the
// chain.
type Proxy struct {
	// URL is the proxy's http:// URL.
	URL string

	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// StartProxy forwards a free port on 127.0.0.1 to targetURL's host:port
// (http://127.0.0.1:PORT) until t ends.
func StartProxy(t testing.TB, targetURL string) *Proxy {
	t.Helper()
	var host string
	if _, err := fmt.Sscanf(targetURL, "http://%s", &host); err != nil {
		t.Fatalf("evmtest: proxy target %q: want http://host:port", targetURL)
	}
	p := &Proxy{target: host, conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.URL = "http://" + p.addr
	p.serve(ln)
	t.Cleanup(p.close)
	return p
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go p.forward(c)
		}
	}()
}

func (p *Proxy) forward(c net.Conn) {
	defer p.wg.Done()
	u, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // went down meanwhile
		p.mu.Unlock()
		c.Close()
		u.Close()
		return
	}
	p.conns[c], p.conns[u] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(u, c)
	go pipe(c, u)
	<-done
	c.Close()
	u.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, u)
	p.mu.Unlock()
}

// Down stops forwarding: the port refuses connections and open ones break.
func (p *Proxy) Down() {
	p.mu.Lock()
	ln := p.ln
	p.ln = nil
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
}

// Up forwards again, on the same port.
func (p *Proxy) Up() error {
	p.mu.Lock()
	up := p.ln != nil
	p.mu.Unlock()
	if up {
		return nil
	}
	var ln net.Listener
	var err error
	for range 50 { // the port was just closed; it is free again at once on Linux
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			p.serve(ln)
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.Join(fmt.Errorf("evmtest: proxy listen again on %s", p.addr), err)
}

func (p *Proxy) close() {
	p.Down()
	p.wg.Wait()
}
