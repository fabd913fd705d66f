package node

import (
	"context"
	"sync"

	"github.com/swarmwage/swarmwage/sandbox"
)

// lazySandbox starts the WASM sandbox on first use: compiling CPython and
// pre-starting interpreters costs seconds of CPU and tens of MB, which a
// node that does not sell code.execute.sandboxed should not pay.
type lazySandbox struct {
	opts []sandbox.Option

	once sync.Once
	sb   *sandbox.Sandbox
	err  error
}

func (l *lazySandbox) get() (*sandbox.Sandbox, error) {
	l.once.Do(func() {
		l.sb, l.err = sandbox.New(context.Background(), l.opts...)
	})
	return l.sb, l.err
}

// Run runs one job, starting the sandbox if needed.
func (l *lazySandbox) Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error) {
	sb, err := l.get()
	if err != nil {
		return sandbox.Result{}, err
	}
	return sb.Run(ctx, req)
}

// Runtime describes the sandbox, starting it if needed.
func (l *lazySandbox) Runtime() sandbox.Runtime {
	sb, err := l.get()
	if err != nil {
		return sandbox.Runtime{}
	}
	return sb.Runtime()
}

// warm starts the sandbox in the background.
func (l *lazySandbox) warm() { go l.get() }

// close closes the sandbox if it was started.
func (l *lazySandbox) close() error {
	started := false
	l.once.Do(func() { l.err = sandbox.ErrClosed }) // never start it after this
	if l.sb != nil {
		started = true
	}
	if !started {
		return nil
	}
	return l.sb.Close(context.Background())
}
