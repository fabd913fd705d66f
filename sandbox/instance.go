package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// Cancellation causes of an instance, told apart once it has stopped.
var (
	errTimeout    = errors.New("job timed out")
	errCallerGone = errors.New("caller gave up on the job")
	errDiscarded  = errors.New("interpreter discarded")
)

// guestConfig is the part of the module config every instance shares. The
// guest gets no host directory (only the in-memory standard library, read
// only), no environment but PYTHONHOME (which the bootstrap removes), no
// sockets (none are configured), the real wall clock and real entropy
// (wazero's defaults are fake and deterministic).
func guestConfig(stdlib fs.FS, args []string) wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithName(""). // anonymous: many instances of one module at once
		WithArgs(args...).
		WithEnv("PYTHONHOME", stdlibHome).
		WithFSConfig(wazero.NewFSConfig().WithFSMount(stdlib, stdlibHome)).
		WithRandSource(rand.Reader).
		WithSysWalltime().
		WithStartFunctions("_start")
}

// instance is one interpreter, started ahead of its job and used once.
type instance struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	stdin  *jobReader
	stdout *cappedBuffer
	stderr *cappedBuffer
	clock  jobClock

	done chan struct{} // closed when the guest has exited
	err  error         // the guest's exit, valid after done
	// stopped is why the host cancelled the instance before the guest
	// exited (nil when the guest exited on its own), valid after done.
	stopped error
}

// start launches a Python interpreter and returns once it waits for its
// job (or has failed, or ctx ended).
func (s *Sandbox) start(ctx context.Context) (*instance, error) {
	return s.launch(ctx, s.module, s.alloc, s.guest, s.snap != nil)
}

// startJS launches a QuickJS instance, as start does a Python one.
func (s *Sandbox) startJS(ctx context.Context, e *jsEngine) (*instance, error) {
	return s.launch(ctx, e.module, e.alloc, jsGuestConfig(), false)
}

// launch starts an instance of module with its memory from alloc, from
// the snapshot when fromSnap is set.
func (s *Sandbox) launch(ctx context.Context, module wazero.CompiledModule, alloc memoryAllocator, guest wazero.ModuleConfig, fromSnap bool) (*instance, error) {
	ictx, cancel := context.WithCancelCause(s.ctx)
	inst := &instance{
		ctx:    ictx,
		cancel: cancel,
		stdin:  newJobReader(ictx.Done()),
		stdout: newCappedBuffer(s.cfg.outputLimit),
		stderr: newCappedBuffer(s.cfg.outputLimit),
		clock:  newJobClock(),
		done:   make(chan struct{}),
	}
	cfg := guest.
		WithStdin(inst.stdin).
		WithStdout(inst.stdout).
		WithStderr(inst.stderr).
		WithNanotime(inst.clock.nanotime, 1).
		WithNanosleep(inst.nanosleep).
		WithOsyield(inst.yield)
	mctx := experimental.WithMemoryAllocator(ictx, alloc)
	if fromSnap {
		mctx = experimental.WithMemoryAllocator(ictx, s.snapAlloc)
		cfg = cfg.WithStartFunctions()
	}

	s.mu.RLock()
	if s.ctx.Err() != nil {
		s.mu.RUnlock()
		cancel(errDiscarded)
		return nil, ErrClosed
	}
	s.wg.Add(1)
	s.mu.RUnlock()
	go func() {
		defer s.wg.Done()
		mod, err := s.runtime.InstantiateModule(mctx, module, cfg)
		if err == nil && fromSnap {
			err = s.resume(ictx, mod, inst.stdin)
		}
		if mod != nil {
			_ = mod.Close(context.Background())
		}
		inst.err = err
		// Read before cancel(nil) below, which would set a cause of its
		// own: only a cancellation that came first can have ended the guest.
		inst.stopped = context.Cause(ictx)
		close(inst.done)
		cancel(nil)
	}()

	select {
	case <-inst.stdin.waiting:
		return inst, nil
	case <-inst.done:
		return nil, fmt.Errorf("start interpreter: exited before reading its job: %w (stderr: %q)", inst.err, inst.stderr.String())
	case <-ctx.Done():
		inst.discard()
		return nil, ctx.Err()
	}
}

// resume runs an instance restored from the snapshot: it rewinds into the
// interpreter's first read of stdin (the interactive loop's), which waits
// for the job as in an interpreter that started CPython itself.
func (s *Sandbox) resume(ctx context.Context, mod api.Module, stdin *jobReader) error {
	stop := mod.ExportedFunction(asyncifyStopRewind)
	stdin.resume = func() error {
		if _, err := stop.Call(ctx); err != nil {
			return err
		}
		// Still before the job: the pool pays for the pages it will write.
		if whole, ok := mod.Memory().Read(0, mod.Memory().Size()); ok {
			s.snapAlloc.prefault(whole)
		}
		return nil
	}
	if err := restore(ctx, mod, s.snap, s.globals); err != nil {
		return err
	}
	_, err := mod.ExportedFunction("_start").Call(ctx)
	return err
}

// discard stops an interpreter that will get no job.
func (inst *instance) discard() {
	inst.cancel(errDiscarded)
}

// run hands the job to the waiting interpreter and collects its result.
func (inst *instance) run(ctx context.Context, payload jobInput, timeout time.Duration) (Result, error) {
	inst.clock.begin()
	begin := time.Now()
	timer := time.AfterFunc(timeout, func() { inst.cancel(errTimeout) })
	stop := context.AfterFunc(ctx, func() { inst.cancel(errCallerGone) })
	inst.stdin.feed(payload)
	<-inst.done
	elapsed := time.Since(begin)
	timer.Stop()
	stop()

	res := Result{
		DurationMS: elapsed.Milliseconds(),
		Stdout:     inst.stdout.String(),
		Stderr:     inst.stderr.String(),
		Truncated:  inst.stdout.truncated || inst.stderr.truncated,
	}
	code, err := inst.exitCode()
	if errors.Is(err, errCallerGone) {
		return Result{}, ctx.Err()
	}
	if err != nil {
		return Result{}, err
	}
	if code < 0 {
		// A trap (the interpreter crashed, not the program): report it the
		// way an uncaught exception is reported, without wazero's stack trace.
		msg, _, _ := strings.Cut(inst.err.Error(), "\n")
		res.Stderr += fmt.Sprintf("\nsandbox: the interpreter stopped: %.200s\n", msg)
		code = 1
	}
	res.ExitCode = code
	return res, nil
}

// exitCode maps how the guest stopped to the job's exit code: -1 for a
// trap, an error when the job was not the one that ended it.
//
// wazero reports a module closed by its context with the exit codes
// 0xffffffff and 0xefffffff, which a guest can also pass to proc_exit
// (os._exit(-1) is 0xffffffff). So those codes mean a cancellation only
// when the host did cancel before the guest exited; otherwise they are the
// guest's own. A guest's code is reduced to 0..255 as a POSIX shell reports
// it (code & 0xff): os._exit(300) is 44, os._exit(-1) is 255.
//
// A job whose timeout fired before its guest exited is 124 however the
// guest then ended: the countdown of instrumentLoops lets it run up to a
// check period past the deadline, and what it did there is past its time.
func (inst *instance) exitCode() (int, error) {
	if errors.Is(inst.stopped, errTimeout) {
		return TimeoutExitCode, nil
	}
	if inst.err == nil {
		return 0, nil
	}
	var exit *sys.ExitError
	if !errors.As(inst.err, &exit) {
		return -1, nil
	}
	code := exit.ExitCode()
	if inst.stopped != nil && (code == sys.ExitCodeContextCanceled || code == sys.ExitCodeDeadlineExceeded) {
		switch {
		case errors.Is(inst.stopped, errCallerGone):
			return 0, errCallerGone
		default:
			return 0, ErrClosed
		}
	}
	return guestExitCode(code), nil
}

// guestExitCode is the exit status of a guest that called proc_exit(code),
// as a POSIX shell reports a process's: the low 8 bits.
func guestExitCode(code uint32) int { return int(code & 0xff) }

// nanosleep is the guest's sleep: a host timer that also ends when the job
// is cancelled, so time.sleep(60) cannot outlive the timeout.
func (inst *instance) nanosleep(ns int64) {
	if ns <= 0 {
		return
	}
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-t.C:
	case <-inst.ctx.Done():
		inst.stop()
	}
}

// yield is the guest's sched_yield, which the countdown of instrumentLoops
// also calls: it ends the guest once the instance is cancelled (timeout,
// caller gone, Close), the way proc_exit does, with the code wazero gives a
// module closed by its context, which exitCode maps.
func (inst *instance) yield() {
	if inst.ctx.Err() != nil {
		inst.stop()
	}
	runtime.Gosched()
}

// stop ends the guest from inside one of its host calls, as proc_exit does:
// wazero unwinds the guest and returns this error from its call.
func (inst *instance) stop() {
	panic(sys.NewExitError(sys.ExitCodeContextCanceled))
}

// jobInput is what the guest's stdin serves for a job: data, of which the
// first read after the feed takes at most first bytes (0: no limit).
type jobInput struct {
	data  []byte
	first int
}

// jobPayload encodes req the way its runtime reads it: for QuickJS
// (javascript/main.c), 8 bytes of little-endian code length, the code and
// the job's stdin; for CPython the same after jobLine, which the
// interactive loop's read gets alone (it reads through a C stdio buffer,
// which must not take the bytes bootstrap.py reads itself).
func jobPayload(req Request) jobInput {
	var in jobInput
	in.data = make([]byte, 0, len(jobLine)+8+len(req.Code)+len(req.Stdin))
	if req.Language != LanguageJavaScript {
		in.data = append(in.data, jobLine...)
		in.first = len(jobLine)
	}
	in.data = binary.LittleEndian.AppendUint64(in.data, uint64(len(req.Code)))
	in.data = append(in.data, req.Code...)
	in.data = append(in.data, req.Stdin...)
	return in
}

// jobReader is the guest's stdin. Its first Read blocks until the job is fed
// (that is how a pre-started interpreter waits), then it serves the job's
// input and EOF.
type jobReader struct {
	waiting  chan struct{} // closed at the first Read: the interpreter is ready
	waitOnce sync.Once
	jobs     chan jobInput
	gone     <-chan struct{} // the instance's ctx.Done
	buf      []byte
	fed      bool
	first    int // the limit of the next read, 0 for none (jobInput.first)
	// resume, when set, is called at the first Read: it ends the rewind of
	// an instance restored from a snapshot (Read is where it rewinds to).
	resume func() error
}

func newJobReader(gone <-chan struct{}) *jobReader {
	return &jobReader{waiting: make(chan struct{}), jobs: make(chan jobInput, 1), gone: gone}
}

func (r *jobReader) feed(in jobInput) { r.jobs <- in }

// Read implements io.Reader; only the guest's goroutine calls it.
func (r *jobReader) Read(p []byte) (int, error) {
	if r.resume != nil {
		resume := r.resume
		r.resume = nil
		if err := resume(); err != nil {
			return 0, fmt.Errorf("resume from the snapshot: %w", err)
		}
	}
	if !r.fed {
		r.waitOnce.Do(func() { close(r.waiting) })
		select {
		case in := <-r.jobs:
			r.buf, r.first, r.fed = in.data, in.first, true
		case <-r.gone:
			return 0, io.EOF
		}
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	if r.first > 0 {
		p = p[:min(len(p), r.first)]
		r.first = 0
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// cappedBuffer keeps the first limit bytes written to it and drops the
// rest, growing its storage no further than limit. Only the guest's
// goroutine writes; String is called after the guest has exited.
type cappedBuffer struct {
	buf       []byte
	limit     int
	truncated bool
}

func newCappedBuffer(limit int) *cappedBuffer { return &cappedBuffer{limit: limit} }

// Write implements io.Writer. It never fails, so a program that prints
// past the cap keeps running, as it would with a closed pipe ignored.
func (b *cappedBuffer) Write(p []byte) (int, error) {
	room := b.limit - len(b.buf)
	if len(p) > room {
		b.truncated = true
	}
	keep := p[:min(len(p), room)]
	if len(keep) == 0 {
		return len(p), nil
	}
	if need := len(b.buf) + len(keep); need > cap(b.buf) {
		grown := make([]byte, len(b.buf), min(b.limit, max(need, 2*cap(b.buf), 512)))
		copy(grown, b.buf)
		b.buf = grown
	}
	b.buf = append(b.buf, keep...)
	return len(p), nil
}

// String returns the kept output; when it was cut, a multi-byte character
// split by the cut is dropped so the result stays valid UTF-8.
func (b *cappedBuffer) String() string {
	out := b.buf
	if b.truncated {
		for i := 1; i < utf8.UTFMax && i <= len(out); i++ {
			if r := out[len(out)-i]; utf8.RuneStart(r) {
				if !utf8.FullRune(out[len(out)-i:]) {
					out = out[:len(out)-i]
				}
				break
			}
		}
	}
	return string(out)
}

// jobClock is the guest's monotonic clock: it reads zero until the job
// begins and then the time since, so a job learns neither the host's uptime
// nor how long its interpreter waited in the pool.
type jobClock struct {
	base  time.Time
	start *atomic.Int64 // ns since base at which the job began; -1 before
}

func newJobClock() jobClock {
	c := jobClock{base: time.Now(), start: new(atomic.Int64)}
	c.start.Store(-1)
	return c
}

func (c jobClock) begin() { c.start.Store(int64(time.Since(c.base))) }

func (c jobClock) nanotime() int64 {
	start := c.start.Load()
	if start < 0 {
		return 0
	}
	return int64(time.Since(c.base)) - start
}
