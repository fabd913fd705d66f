//go:build failpoints

package failpoint

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Enabled reports whether this binary was built with failpoints.
const Enabled = true

// registry is the process's parsed SWARMWAGE_FAILPOINTS with a hit counter
// per point.
type registry struct {
	actions map[string]Action
	hits    map[string]*atomic.Int64
}

var loadRegistry = sync.OnceValue(func() *registry {
	actions, err := Parse(os.Getenv(EnvVar))
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %s: %v\n", EnvVar, err)
		os.Exit(2)
	}
	r := &registry{actions: actions, hits: make(map[string]*atomic.Int64, len(actions))}
	for name := range actions {
		r.hits[name] = new(atomic.Int64)
	}
	return r
})

func init() {
	// Parse at start-up: a malformed spec stops the process before it
	// does anything, not at the first hit in the middle of a job.
	loadRegistry()
}

// Inject runs the action configured for name in SWARMWAGE_FAILPOINTS, if
// any.
func Inject(name string) {
	r := loadRegistry()
	a, ok := r.actions[name]
	if !ok {
		return
	}
	hit := r.hits[name].Add(1)
	switch a.Kind {
	case Kill:
		if hit != int64(a.At) {
			return
		}
		fmt.Fprintf(os.Stderr, "failpoint: %s: %s (hit %d)\n", name, a, hit)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		// SIGKILL to oneself is delivered at once; never go on running
		// past a kill point.
		select {}
	case Sleep:
		fmt.Fprintf(os.Stderr, "failpoint: %s: %s (hit %d)\n", name, a, hit)
		time.Sleep(a.Sleep)
	}
}

// Value returns the value set(N) gives name in SWARMWAGE_FAILPOINTS, and
// whether it gives one; each hit that returns one writes its line to stderr
// as Inject does.
func Value(name string) (int64, bool) {
	r := loadRegistry()
	a, ok := r.actions[name]
	if !ok || a.Kind != Set {
		return 0, false
	}
	hit := r.hits[name].Add(1)
	fmt.Fprintf(os.Stderr, "failpoint: %s: %s (hit %d)\n", name, a, hit)
	return a.Value, true
}
