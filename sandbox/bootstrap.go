package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarmwage/swarmwage/internal/atomicfile"
	"github.com/tetratelabs/wazero/experimental"
)

//go:embed bootstrap.py
var bootstrap string

const (
	// bootModule is the precompiled bootstrap as the guest imports it.
	bootModule     = "_swarmwage_boot"
	bootModulePath = stdlibLib + "/" + bootModule + ".pyc"
	// maxBootPyc bounds the compiled bootstrap read back from the guest or
	// from the cache dir (about 3 KiB today).
	maxBootPyc = 1 << 20
	// bootCompileTimeout bounds the one-off run that compiles it.
	bootCompileTimeout = time.Minute
	// compileBoot is the program that compiles the bootstrap (on stdin) to
	// marshalled code on stdout.
	compileBoot = "import sys, marshal\n" +
		"sys.stdout.buffer.write(marshal.dumps(compile(sys.stdin.read(), '<bootstrap>', 'exec')))\n"
)

// guestArgs are the interpreter's arguments: import the precompiled
// bootstrap when there is one, else compile its source at every start-up,
// which costs about 12 ms of the ~90 ms; then (-i) wait in the interactive
// loop for the line that runs the job (bootstrap.py, jobLine).
func guestArgs(precompiled bool) []string {
	if precompiled {
		return []string{"python", "-S", "-B", "-i", "-c", "import " + bootModule}
	}
	return []string{"python", "-S", "-B", "-i", "-c", bootstrap}
}

// jobLine is the host's answer to the interactive loop's read: the call
// that reads the job and runs it.
const jobLine = "_swarmwage_run()\n"

// bootstrapPyc returns bootstrap.py compiled by this interpreter, as a .pyc
// file: from cacheDir when an earlier New left it there, else compiled by a
// one-off run of the interpreter (and then stored in cacheDir, if any).
func (s *Sandbox) bootstrapPyc(ctx context.Context, stdlib map[string]*memNode, buildSHA string) ([]byte, error) {
	var ref []byte
	if node, ok := stdlib[stdlibLib+"/os.pyc"]; ok {
		ref, _ = node.bytes()
	}
	if len(ref) < 16 {
		return nil, fmt.Errorf("no os.pyc in the standard library to take the bytecode magic from")
	}
	magic := ref[:4]
	sum := sha256.Sum256([]byte(buildSHA + "\x00" + bootstrap))
	cached := ""
	if s.cfg.cacheDir != "" {
		cached = filepath.Join(s.cfg.cacheDir, "python-bootstrap-"+hex.EncodeToString(sum[:16])+".pyc")
		if b, err := os.ReadFile(cached); err == nil && len(b) <= maxBootPyc && bytes.HasPrefix(b, magic) {
			return b, nil
		}
	}
	code, err := s.compileBootstrap(ctx, newMemFS(stdlib))
	if err != nil {
		return nil, err
	}
	// The header of a sourceless .pyc: magic, flags 0, then 8 bytes only
	// a source-checking loader reads.
	pyc := append(append(append([]byte{}, magic...), make([]byte, 12)...), code...)
	if cached != "" {
		if err := writeCached(cached, pyc); err != nil {
			s.log.Warn("cache the compiled bootstrap", "path", cached, "err", err)
		}
	}
	return pyc, nil
}

// compileBootstrap runs the interpreter once to marshal the bootstrap.
func (s *Sandbox) compileBootstrap(ctx context.Context, stdlib *memFS) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, bootCompileTimeout)
	defer cancel()
	stdout, stderr := newCappedBuffer(maxBootPyc+1), newCappedBuffer(64<<10)
	cfg := guestConfig(stdlib, []string{"python", "-S", "-B", "-c", compileBoot}).
		WithStdin(strings.NewReader(bootstrap)).
		WithStdout(stdout).
		WithStderr(stderr)
	mod, err := s.runtime.InstantiateModule(experimental.WithMemoryAllocator(ctx, s.alloc), s.module, cfg)
	if mod != nil {
		_ = mod.Close(context.Background())
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("compile the bootstrap: %w (stderr: %q)", err, stderr.String())
	case stdout.truncated:
		return nil, fmt.Errorf("compile the bootstrap: output exceeds %d bytes", maxBootPyc)
	case len(stdout.buf) == 0:
		return nil, fmt.Errorf("compile the bootstrap: no output (stderr: %q)", stderr.String())
	}
	return stdout.buf, nil
}

// writeCached writes a cache file atomically, so a concurrent reader never
// sees half of it, making its directory first.
func writeCached(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}
