package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
)

// Profiles of 'bench hire --profile DIR'. Both nodes of the bench run in
// this process, so one CPU profile holds both; every goroutine a node
// starts (its listeners, and so the streams it serves) carries the pprof
// label node=seller or node=buyer, as do the goroutines that hire, and
//
//	go tool pprof -tagfocus node=buyer DIR/cpu.pprof
//
// shows one node's share. allocs.pprof is the allocation profile of the
// measured hires only (the warm-up's allocations are subtracted by
// pprof's -base, see profileFiles).
const (
	cpuProfileFile        = "cpu.pprof"
	allocsProfileFile     = "allocs.pprof"
	allocsBaseProfileFile = "allocs-base.pprof"
	nodeLabel             = "node"
)

// Option changes how Hire runs.
type Option func(*benchConfig)

type benchConfig struct {
	profileDir string
}

// WithProfile writes CPU and allocation profiles of the measured hires
// (not the warm-up) to dir, which is created if need be.
func WithProfile(dir string) Option {
	return func(c *benchConfig) { c.profileDir = dir }
}

// benchRoles names the nodes of a two-node bench, by index.
var benchRoles = [...]string{"seller", "buyer"}

// withNodeLabel runs f with the pprof label of node i of a bench, so the
// goroutines f starts carry it.
func withNodeLabel(ctx context.Context, i int, f func(context.Context)) {
	role := fmt.Sprintf("node%d", i)
	if i < len(benchRoles) {
		role = benchRoles[i]
	}
	pprof.Do(ctx, pprof.Labels(nodeLabel, role), f)
}

// profiler records the profiles of one measured stretch.
type profiler struct {
	dir string
	cpu *os.File
}

// startProfile starts the CPU profile and writes the allocation baseline;
// a nil profiler (no dir) does nothing.
func startProfile(dir string) (*profiler, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bench: profile directory: %w", err)
	}
	runtime.GC()
	if err := writeProfile(filepath.Join(dir, allocsBaseProfileFile), "allocs"); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, cpuProfileFile))
	if err != nil {
		return nil, fmt.Errorf("bench: cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: cpu profile: %w", err)
	}
	return &profiler{dir: dir, cpu: f}, nil
}

// stop ends the CPU profile and writes the allocation profile.
func (p *profiler) stop() error {
	if p == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := p.cpu.Close()
	runtime.GC()
	return errors.Join(err, writeProfile(filepath.Join(p.dir, allocsProfileFile), "allocs"))
}

func writeProfile(path, name string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("bench: %s profile: %w", name, err)
	}
	err = pprof.Lookup(name).WriteTo(f, 0)
	return errors.Join(err, f.Close())
}

// ProfileFiles names the files WithProfile writes in dir, and the commands
// that read them, for the CLI to print.
func ProfileFiles(dir string) []string {
	cpu, allocs, base := filepath.Join(dir, cpuProfileFile), filepath.Join(dir, allocsProfileFile), filepath.Join(dir, allocsBaseProfileFile)
	return []string{
		"go tool pprof -top -tagfocus node=buyer " + cpu,
		"go tool pprof -top -tagfocus node=seller " + cpu,
		"go tool pprof -top -sample_index=alloc_space -base " + base + " " + allocs,
	}
}
