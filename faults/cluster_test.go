package faults

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
)

// Terms of every cluster: short, so that deadlines and windows pass within
// a test.
const (
	// window is the sellers' verification window ([market]).
	window = 2 * time.Second
	// evmWindow is the window on the evm rail. A refund there is final
	// only once the buyer's cancel is mined before the lock's not-before
	// (deadline + window + grace); past it the refund stays pending by
	// design and the ledgers never meet the chain. On a loaded machine,
	// behind a lying or reorging endpoint, a cancel took 22 s: 2 s of
	// window left too little.
	evmWindow = 30 * time.Second
	// maxDuration is the sellers' longest job ([market]).
	maxDuration = 5 * time.Second
	// settleGrace is how long a seller waits past the buyer's deadline or
	// window before it settles on its own. It has no config key.
	settleGrace = escrow.DefaultSettleGrace
	// hireTimeout is the hires' --timeout, and so their deadline.
	hireTimeout = 3 * time.Second

	capStddev = "compute.statistics.stddev"
	capMean   = "compute.statistics.mean"
	// price is what each seller asks for each capability.
	price = "0.01"
	// buyerDeposit is what the buyer starts with.
	buyerDeposit = "100"
	// defaultLiarPad is how many bytes of padding the dishonest seller adds
	// to each wrong answer.
	defaultLiarPad = 64 << 10
)

// stddevInput is the input of every stddev hire: the population standard
// deviation is 2, the sample one 2.138...; the dishonest seller says 1e6.
const stddevInput = `{"data":[2,4,4,4,5,5,7,9]}`

// liarScript is the dishonest seller's exec: handler of
// compute.statistics.stddev. It ignores the input, counts its runs (one
// line per run in the file $2) and answers a wrong value padded with $1
// bytes. Absolute paths: an exec handler may get a minimal environment.
const liarScript = `#!/bin/sh
/bin/cat >/dev/null
echo run >>"$2"
printf '{"result":1000000,"pad":"'
/usr/bin/head -c "$1" /dev/zero | /usr/bin/tr '\000' x
printf '"}\n'
`

// clusterConfig says which daemons a cluster runs and how.
type clusterConfig struct {
	// honest and liar select the sellers; the first selected one is the
	// bootstrap node.
	honest, liar bool
	// liarPad is the dishonest seller's padding; 0 means defaultLiarPad.
	liarPad int
	// sellerMarket are extra [market] keys of the sellers' config.toml.
	sellerMarket string
	// window is the sellers' verification window; 0 means window (evmWindow on the evm rail).
	window time.Duration
	// dirs maps a daemon name ("buyer", "honest", "liar") to the repo
	// directory to use instead of a temp dir (a tmpfs, say).
	dirs map[string]string
	// failpoints maps a daemon name to the failpoints of its first start.
	failpoints map[string]string
	// sum, when set, also counts the cluster's runs (a test's summary).
	sum *tally
	// evm, when set, settles on the evm rail of a real anvil instead of
	// credits (evm_test.go).
	evm *evmConfig
	// daemonArgs maps a daemon name to more flags of its 'daemon'.
	daemonArgs map[string][]string
}

// cluster is a private network of real daemons on 127.0.0.1: sellers and
// one buyer.
type cluster struct {
	t       testing.TB
	network string
	buyer   *daemon
	honest  *daemon // nil when not selected
	liar    *daemon // nil when not selected
	sellers []*daemon
	// liarRuns has one line per run of the dishonest handler.
	liarRuns string
	// chain is the evm rail's anvil; nil on credits.
	chain *chain

	sum *tally

	mu     sync.Mutex
	hires  []hireResult
	faults int // faults injected into this cluster
	// faultsChecked and reported are what earlier checks counted and
	// reported, so that a long-lived cluster counts each once.
	faultsChecked int
	reported      map[string]bool
	checks        int
}

// newCluster sets up and starts a cluster; its daemons are killed when the
// test ends.
func newCluster(t testing.TB, cfg clusterConfig) *cluster {
	t.Helper()
	c := &cluster{t: t, network: "fx-" + randHex(6), sum: cfg.sum}
	logs := t.TempDir()
	mk := func(name string) *daemon {
		dir := cfg.dirs[name]
		if dir == "" {
			dir = filepath.Join(t.TempDir(), name)
		}
		return &daemon{name: name, repo: dir, port: freePort(t), log: filepath.Join(logs, name+".log"), args: cfg.daemonArgs[name]}
	}
	if cfg.honest {
		c.honest = mk("honest")
		c.sellers = append(c.sellers, c.honest)
	}
	if cfg.liar {
		c.liar = mk("liar")
		c.sellers = append(c.sellers, c.liar)
	}
	if len(c.sellers) == 0 {
		t.Fatal("a cluster needs a seller")
	}
	c.buyer = mk("buyer")
	t.Cleanup(func() {
		for _, d := range c.all() {
			d.kill()
		}
		if t.Failed() {
			for _, d := range c.all() {
				t.Log(d.tail(40))
			}
		}
	})

	if cfg.evm != nil {
		c.chain = startChain(t)
	}
	boot := c.sellers[0]
	c.initRepo(cfg, boot)
	for _, s := range c.sellers[1:] {
		c.initRepo(cfg, s, boot)
	}
	c.initRepo(cfg, c.buyer, c.sellers...)
	w := cfg.window
	switch {
	case w == 0 && cfg.evm != nil:
		w = evmWindow
	case w == 0:
		w = window
	}
	market := fmt.Sprintf("\n[market]\nverification_window = %q\nmax_job_duration = %q\n%s\n", w, maxDuration, cfg.sellerMarket)
	for _, s := range c.sellers {
		appendFile(t, filepath.Join(s.repo, "config.toml"), market)
	}
	if c.honest != nil {
		c.honest.cli(t, "sell", "add", "--price", price, capMean)
		c.honest.cli(t, "sell", "add", "--price", price, capStddev)
	}
	if c.liar != nil {
		pad := cfg.liarPad
		if pad == 0 {
			pad = defaultLiarPad
		}
		for _, p := range []string{"/bin/sh", "/bin/cat", "/usr/bin/head", "/usr/bin/tr"} {
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("the dishonest seller's handler needs %s: %v", p, err)
			}
		}
		dir := t.TempDir()
		script := filepath.Join(dir, "liar.sh")
		c.liarRuns = filepath.Join(dir, "runs")
		if err := os.WriteFile(script, []byte(liarScript), 0o700); err != nil {
			t.Fatal(err)
		}
		c.liar.cli(t, "sell", "add", "--price", price, "--handler",
			fmt.Sprintf("exec:/bin/sh %s %d %s", script, pad, c.liarRuns), capStddev)
	}
	if c.chain != nil {
		c.chain.fund(t, c.buyer, buyerDeposit)
	}
	c.buyer.cli(t, "wallet", "deposit", buyerDeposit)

	for _, s := range c.sellers {
		s.start(t, cfg.failpoints[s.name])
	}
	c.buyer.start(t, cfg.failpoints[c.buyer.name])
	c.waitConnected(t)
	return c
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

func appendFile(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// initRepo creates d's repo on the cluster's network and rail,
// bootstrapping from boot.
func (c *cluster) initRepo(cfg clusterConfig, d *daemon, boot ...*daemon) {
	c.t.Helper()
	args := []string{"init", "--json", "--network", c.network,
		"--listen", fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", d.port), "--api", "127.0.0.1:0"}
	for _, b := range boot {
		args = append(args, "--bootstrap", b.addr())
	}
	if c.chain != nil {
		args = append(args, c.chain.initArgs(c.t, cfg.evm, d)...)
		defer c.chain.joined(c.t, cfg.evm, d)
	}
	var res struct {
		PeerID string `json:"peer_id"`
	}
	if err := json.Unmarshal(d.cli(c.t, args...), &res); err != nil || res.PeerID == "" {
		c.t.Fatalf("init %s: peer ID not in the output: %v", d.name, err)
	}
	d.id = res.PeerID
}

func (c *cluster) all() []*daemon { return append(slices.Clone(c.sellers), c.buyer) }

// byName returns the cluster's daemon called name.
func (c *cluster) byName(name string) *daemon {
	for _, d := range c.all() {
		if d.name == name {
			return d
		}
	}
	c.t.Fatalf("no daemon %q in the cluster", name)
	return nil
}

// waitConnected polls until the buyer is connected to every seller.
func (c *cluster) waitConnected(t testing.TB) {
	t.Helper()
	if !c.connected(30 * time.Second) {
		t.Fatalf("the buyer is not connected to every seller after 30 s")
	}
}

// connected polls up to timeout until the buyer is connected to every
// seller and reports whether it is.
func (c *cluster) connected(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		r := c.buyer.run(cliTimeout, "peers", "--json")
		var info controlapi.PeersInfo
		if r.ok() && json.Unmarshal(r.stdout, &info) == nil {
			missing := 0
			for _, s := range c.sellers {
				if !slices.ContainsFunc(info.Peers, func(p controlapi.PeerInfo) bool { return p.PeerID == s.id }) {
					missing++
				}
			}
			if missing == 0 {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checked is how many runs check has counted.
func (c *cluster) checked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checks
}

// reconnect makes sure the buyer is connected to every seller before the
// next hires, for tests that go on after a fault: a buyer that dialed a
// dead seller keeps a dial backoff for it for up to minutes, and a clean
// restart of the buyer (not a fault) drops it.
func (c *cluster) reconnect(t testing.TB) {
	t.Helper()
	if c.connected(5 * time.Second) {
		return
	}
	t.Logf("the buyer does not reach every seller (dial backoff after a fault); restarting it cleanly")
	if err := c.buyer.stop(); err != nil {
		t.Logf("stop the buyer: %v", err)
	}
	c.buyer.start(t, c.buyer.failpoints())
	c.waitConnected(t)
}

// injected counts n faults injected into the cluster.
func (c *cluster) injected(n int) {
	c.mu.Lock()
	c.faults += n
	c.mu.Unlock()
}

// hireResult is one 'swarmwage hire --json' and what it said.
type hireResult struct {
	seller *daemon
	start  time.Time
	res    cliResult
	// info is the parsed JSON result; parsed says whether there was one.
	info   controlapi.HireInfo
	parsed bool
}

func (h hireResult) String() string {
	var failed []string
	for _, c := range h.info.Verification.Checks {
		if !c.Passed {
			failed = append(failed, c.Name+": "+c.Detail)
		}
	}
	return fmt.Sprintf("hire of %s: exit %d, outcome %q, job %q, escrow %q (reason %q), failed checks %q, error %q %s",
		h.seller.name, h.res.code, h.info.Outcome, h.info.JobID, h.info.Escrow.State, h.info.Escrow.Reason, failed, h.info.Error,
		strings.TrimSpace(string(h.res.stderr)))
}

// hire runs one hire of capStddev from seller with the given timeout and
// records what it reported.
func (c *cluster) hire(seller *daemon, timeout time.Duration) hireResult {
	h := hireResult{seller: seller, start: time.Now()}
	h.res = c.buyer.run(timeout+cliTimeout, "hire", "--json", "--seller", seller.id,
		"--timeout", timeout.String(), "--input-json", stddevInput, capStddev)
	h.parsed = json.Unmarshal(h.res.stdout, &h.info) == nil
	c.mu.Lock()
	c.hires = append(c.hires, h)
	c.mu.Unlock()
	return h
}

// connect has from dial to and waits for the connection, so that a
// hire's short timeout goes to the hire, not to the first contact.
func (c *cluster) connect(t *testing.T, from, to *daemon) {
	t.Helper()
	addr := fmt.Sprintf("/ip4/127.0.0.1/tcp/%d/p2p/%s", to.port, to.id)
	if r := from.run(cliTimeout, "peers", "connect", addr); r.code != 0 || r.err != nil {
		t.Fatalf("%s: peers connect %s: exit %d (%v): %s", from.name, addr, r.code, r.err, r.stderr)
	}
}

// hireAsync starts a hire and returns where its result arrives.
func (c *cluster) hireAsync(seller *daemon, timeout time.Duration) <-chan hireResult {
	ch := make(chan hireResult, 1)
	go func() { ch <- c.hire(seller, timeout) }()
	return ch
}

// decisions are the buyer escrow states hires reported as final, by job.
func (c *cluster) decisions() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string)
	for _, h := range c.hires {
		st := h.info.Escrow.State
		if h.parsed && h.info.JobID != "" && (st == string(escrow.StateReleased) || st == string(escrow.StateRefunded)) {
			out[h.info.JobID] = st
		}
	}
	return out
}

// liarRunCount is how often the dishonest handler ran.
func (c *cluster) liarRunCount(t testing.TB) int {
	t.Helper()
	data, err := os.ReadFile(c.liarRuns)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// restart starts a stopped daemon again; with failpoints that must kill
// it, it waits for that, then starts it without.
func (c *cluster) restart(t testing.TB, d *daemon, failpoints string) {
	t.Helper()
	if failpoints == "" {
		d.start(t, "")
		return
	}
	// The failpoint may kill it before it is ready (a timer due at
	// start-up fires at once).
	if err := d.tryStart(failpoints); err != nil && (d.running() || !killedBy(d.err(), sigKill)) {
		t.Fatalf("start daemon %s with %s: %v\n%s", d.name, failpoints, err, d.tail(30))
	}
	c.expectKill(t, d, failpoints, 45*time.Second)
	d.start(t, "")
}

// expectKill waits for d to be SIGKILLed by the failpoint in spec.
func (c *cluster) expectKill(t testing.TB, d *daemon, spec string, timeout time.Duration) {
	t.Helper()
	name, _, _ := strings.Cut(spec, "=")
	exited, err := d.waitExit(timeout)
	if !exited {
		t.Fatalf("failpoint %s of %s did not fire within %s (is failpoint.Inject(%q) still in the code path?)", name, d.name, timeout, name)
	}
	if !killedBy(err, sigKill) || !d.fired(name) {
		t.Fatalf("%s ended with %s, not by its failpoint %s", d.name, describeExit(err), name)
	}
	c.injected(1)
}

const sigKill = syscall.SIGKILL
