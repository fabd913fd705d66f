package faults

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/internal/gobuild"
)

var (
	soakFlag     = flag.Bool("soak", false, "run the soak (TestSoak); also SWARMWAGE_SOAK=1")
	soakDuration = flag.Duration("soak.duration", 0, "how long the soak runs (default 10m)")
	soakRuns     = flag.Int("soak.runs", 0, "stop the soak after this many runs (0: by duration only)")
)

// bin is the failpoints build of swarmwage, built once by TestMain and
// shared by every test.
var bin *gobuild.Binary

// totals adds up what every test of this run did, for the summary TestMain
// prints.
var totals tally

// tally counts what a run of the suite did and found.
type tally struct {
	mu            sync.Mutex
	runs          int
	faults        int
	divergences   int
	wrongPayments int
}

func (t *tally) add(runs, faults, divergences, wrong int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.runs += runs
	t.faults += faults
	t.divergences += divergences
	t.wrongPayments += wrong
}

func (t *tally) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return fmt.Sprintf("runs %d, faults injected %d, divergences %d, wrong payments %d", t.runs, t.faults, t.divergences, t.wrongPayments)
}

// defaultParallel is how many of the suite's tests run at once when
// -test.parallel is not given. Each test runs its own cluster (its own
// repos, ports, network name, anvil, tmpfs), and the tests spend their
// time waiting on their daemons' timers, deadlines and windows, so more
// than GOMAXPROCS (the default) keeps the cores busy; the test that takes
// longest (TestKill) then decides the suite's wall time.
const defaultParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && runtime.GOMAXPROCS(0) < defaultParallel {
		if err := flag.Set("test.parallel", strconv.Itoa(defaultParallel)); err != nil {
			fmt.Fprintln(os.Stderr, "faults:", err)
			os.Exit(1)
		}
	}
	dir, err := os.MkdirTemp("", "swarmwage-faults-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(1)
	}
	bin, err = build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	fmt.Printf("faults summary: %s\n", &totals)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "faults: goroutines leaked:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// build compiles the swarmwage binary with failpoints into dir.
func build(dir string) (*gobuild.Binary, error) {
	return gobuild.Build("..", "./cmd/swarmwage", filepath.Join(dir, "swarmwage"), "failpoints")
}

// soakEnabled reports whether the soak was asked for.
func soakEnabled() bool { return *soakFlag || os.Getenv("SWARMWAGE_SOAK") == "1" }
