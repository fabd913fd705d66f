package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
)

// maxMCPLine caps the line 'mcp' keeps while counting requests and
// answers: a longer message is still served, only not counted.
const maxMCPLine = 8 << 20

// drainingStdio is the stdio of 'swarmwage mcp' for a client that writes
// its requests and closes stdin at once (echo '...' | swarmwage mcp): at
// the end of stdin the reader waits until every request read was answered,
// so the server finishes them instead of dropping them.
type drainingStdio struct {
	ctx context.Context
	in  io.Reader
	out io.Writer

	mu      sync.Mutex
	changed *sync.Cond
	pending int // requests read and not answered yet
	inLine  lineCounter
	outLine lineCounter
}

func newDrainingStdio(ctx context.Context, in io.Reader, out io.Writer) *drainingStdio {
	d := &drainingStdio{ctx: ctx, in: in, out: out}
	d.changed = sync.NewCond(&d.mu)
	context.AfterFunc(ctx, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.changed.Broadcast()
	})
	return d
}

// reader and writer are the two sides, for sdk.IOTransport.
func (d *drainingStdio) reader() io.ReadCloser  { return stdioReader{d} }
func (d *drainingStdio) writer() io.WriteCloser { return stdioWriter{d} }

type stdioReader struct{ d *drainingStdio }

func (r stdioReader) Read(p []byte) (int, error) {
	d := r.d
	n, err := d.in.Read(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inLine.feed(p[:n], func(m rpcMessage) {
		if m.isRequest() {
			d.pending++
		}
	})
	if err == io.EOF {
		for d.pending > 0 && d.ctx.Err() == nil {
			d.changed.Wait()
		}
	}
	return n, err
}

func (stdioReader) Close() error { return nil }

type stdioWriter struct{ d *drainingStdio }

func (w stdioWriter) Write(p []byte) (int, error) {
	d := w.d
	n, err := d.out.Write(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.outLine.feed(p[:n], func(m rpcMessage) {
		if m.isResponse() && d.pending > 0 {
			d.pending--
			d.changed.Broadcast()
		}
	})
	return n, err
}

// Close keeps the transport from closing the command's stdout.
func (stdioWriter) Close() error { return nil }

// rpcMessage is what tells a JSON-RPC request (an ID and a method) from a
// response (an ID, no method) and a notification (no ID).
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (m rpcMessage) isRequest() bool {
	return len(m.ID) > 0 && string(m.ID) != "null" && m.Method != ""
}

func (m rpcMessage) isResponse() bool {
	return len(m.ID) > 0 && string(m.ID) != "null" && m.Method == ""
}

// lineCounter splits a stream of newline-delimited JSON into messages.
type lineCounter struct {
	buf  []byte
	skip bool // the current line is over maxMCPLine
}

func (l *lineCounter) feed(p []byte, each func(rpcMessage)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if !l.skip && len(l.buf)+len(p) <= maxMCPLine {
				l.buf = append(l.buf, p...)
			} else {
				l.skip, l.buf = true, l.buf[:0]
			}
			return
		}
		if !l.skip && len(l.buf)+i <= maxMCPLine {
			line := append(l.buf, p[:i]...)
			var m rpcMessage
			if json.Unmarshal(bytes.TrimSpace(line), &m) == nil {
				each(m)
			}
		}
		l.buf, l.skip = l.buf[:0], false
		p = p[i+1:]
	}
}
