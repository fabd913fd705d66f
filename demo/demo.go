// Package demo runs the whole swarmwage market in one process, for a
// newcomer's first minute and for CI: a seller and a buyer node on loopback,
// on a private network, with temporary repos. The seller lists built-in
// capabilities, the buyer deposits test credits and hires each one; every
// hire is found through the DHT, quoted, locked in escrow, run, verified on
// the buyer's side and settled, exactly as between two machines (see
// DESIGN.md, "A hire, end to end").
//
// Nothing is written outside the temporary directory except the chart PNG
// the demo hires, which goes to Options.OutDir. The sandbox compiles CPython
// into the temporary seller repo, so every run starts with a cold compile
// cache.
package demo

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/builtin"
	"github.com/swarmwage/swarmwage/node"
)

const (
	// Network is the private network the demo nodes join. Both listen on
	// 127.0.0.1 only and the buyer bootstraps from the seller, so nothing
	// dials out and two demos on one machine do not meet.
	Network = "swarmwage-demo"
	// ChartFile is the name of the chart PNG written to Options.OutDir.
	ChartFile = "swarmwage-demo-chart.png"
	// deposit is what the buyer deposits: test credits, more than the sum
	// of all prices.
	deposit = "10"
	// readyTimeout bounds the wait for the two nodes to find each other in
	// the DHT and for the seller's announcements to land.
	readyTimeout = 30 * time.Second
	// hireTimeout bounds one hire. The first code.execute.sandboxed job may
	// wait for the CPython compile (tens of seconds on a busy 2-core box).
	hireTimeout = 2 * time.Minute
	// settleTimeout bounds the wait for the seller to receive every release.
	settleTimeout = 15 * time.Second
)

var (
	// ErrHireFailed is returned by Run when a hire did not end verified and
	// released; the Result says which.
	ErrHireFailed = errors.New("not every hire was verified and released")
)

// Options configure a demo run.
type Options struct {
	// OutDir is where the chart PNG goes. Defaults to the current directory.
	OutDir string
	// TempDir is where the temporary repos are created (and removed).
	// Defaults to os.TempDir().
	TempDir string
	// Logger receives the nodes' logs. Defaults to a logger that drops
	// everything below Error.
	Logger *slog.Logger
	// Step, when set, is called with a short description of each step as
	// it starts, for a progress display.
	Step func(msg string)
	// Capabilities limits the run to these capabilities (in the order of
	// Jobs()). Empty: all of them.
	Capabilities []string
}

// Job is one hire the demo makes.
type Job struct {
	Capability string
	// Price is what the seller asks, in credits.
	Price string
	Input json.RawMessage
}

// HireRow is one hire in the result: the table the CLI prints.
type HireRow struct {
	Capability string `json:"capability"`
	JobID      string `json:"job_id"`
	Seller     string `json:"seller"`
	Price      string `json:"price"`
	// Verification is "passed" or "failed"; ChecksPassed of Checks checks
	// passed.
	Verification string `json:"verification"`
	ChecksPassed int    `json:"checks_passed"`
	Checks       int    `json:"checks"`
	// Escrow is the escrow's state once the hire returned ("released").
	Escrow     string `json:"escrow"`
	Outcome    string `json:"outcome"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
}

// Balance is one node's ledger after the demo, in credits.
type Balance struct {
	Available string `json:"available"`
	Held      string `json:"held"`
	Paid      string `json:"paid"`
	Earned    string `json:"earned"`
}

// Result is what a demo run did; `swarmwage demo --json` prints it.
type Result struct {
	Network       string    `json:"network"`
	Seller        string    `json:"seller"`
	Buyer         string    `json:"buyer"`
	Hires         []HireRow `json:"hires"`
	ChartPath     string    `json:"chart_path,omitempty"`
	BuyerBalance  Balance   `json:"buyer_balance"`
	SellerBalance Balance   `json:"seller_balance"`
	// OK is true when every hire was verified and released and the seller
	// was credited for each.
	OK         bool  `json:"ok"`
	DurationMS int64 `json:"duration_ms"`
}

// Jobs lists the demo's hires, in order. code.execute.sandboxed comes last:
// the seller compiles the sandbox in the background from the start, so the
// other hires run while it compiles.
func Jobs() []Job {
	return []Job{
		{builtin.CapStatsMean, "0.01", json.RawMessage(`{"data":[3,1,4,1,5,9,2,6]}`)},
		{builtin.CapMathNumeric, "0.01", json.RawMessage(`{"expression":"sqrt(2) * pi + x^2","vars":{"x":3},"precision":6}`)},
		{builtin.CapChart, "0.02", json.RawMessage(`{"title":"Jobs sold per day","data":[{"x":"Mon","y":12},{"x":"Tue","y":19},{"x":"Wed","y":7},{"x":"Thu","y":23},{"x":"Fri","y":15}],"chart_type":"bar","width":640,"height":400,"x_label":"day","y_label":"jobs"}`)},
		{builtin.CapSummarizeShort, "0.02", mustJSON(map[string]string{"text": summaryText})},
		{builtin.CapSentiment, "0.01", json.RawMessage(`{"text":"I love how quickly this market settles. The demo was great and the refunds are fair."}`)},
		{builtin.CapUpscale2x, "0.03", mustJSON(map[string]string{"image_b64": base64.StdEncoding.EncodeToString(testImage())})},
		{builtin.CapCodeSandboxed, "0.05", json.RawMessage(`{"code":"import statistics\nprint('mean of squares:', statistics.mean(i * i for i in range(10)))","language":"python","timeout_ms":10000}`)},
	}
}

const summaryText = "Swarmwage is a market where software agents hire each other. " +
	"A seller lists a capability, such as summarizing text or drawing a chart, at a price in credits. " +
	"A buyer finds sellers through a distributed hash table, asks the cheapest one for a signed quote, and locks the price in escrow. " +
	"The seller runs the job and returns the output with a signed delivery. " +
	"The buyer checks the output locally against the capability's schema and verification rules. " +
	"If the checks pass, the buyer releases the escrow and the seller is paid; if they fail, the buyer gets the credits back. " +
	"Every step is signed, so both sides keep evidence of what happened. " +
	"Today the credits are test credits: there is no settlement on a blockchain yet."

// Run runs the demo. It returns the result and ErrHireFailed (wrapped) when
// a hire did not end verified and released; other errors mean the demo
// could not run at all.
func Run(ctx context.Context, opts Options) (res Result, err error) {
	start := time.Now()
	opts = opts.withDefaults()
	res = Result{Network: Network, Hires: []HireRow{}}
	jobs, err := selectJobs(opts.Capabilities)
	if err != nil {
		return res, err
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "swarmwage-demo-*")
	if err != nil {
		return res, fmt.Errorf("create temporary repos: %w", err)
	}
	defer func() { err = errors.Join(err, os.RemoveAll(tmp)) }()

	opts.Step("starting a seller node on 127.0.0.1 (private network " + Network + ")")
	seller, err := startSeller(ctx, filepath.Join(tmp, "seller"), jobs, opts.Logger)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, seller.Close()) }()
	opts.Step("starting a buyer node and joining through the seller")
	buyer, err := startNode(ctx, filepath.Join(tmp, "buyer"), sellerAddrs(seller), opts.Logger)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, buyer.Close()) }()
	res.Seller, res.Buyer = seller.Repo.ID.String(), buyer.Repo.ID.String()

	amount, _ := escrow.ParseAmount(deposit)
	if err := buyer.Escrow.Deposit(ctx, amount, "demo test credits"); err != nil {
		return res, fmt.Errorf("deposit test credits: %w", err)
	}
	opts.Step("waiting for the seller's listings to be announced in the DHT")
	if err := waitReady(ctx, seller, buyer); err != nil {
		return res, err
	}

	var owed int64
	for _, job := range jobs {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("demo interrupted: %w", err)
		}
		if job.Capability == builtin.CapCodeSandboxed {
			opts.Step("hiring " + job.Capability + " (a cold seller compiles its Python sandbox first: a few seconds)")
		} else {
			opts.Step("hiring " + job.Capability)
		}
		row, output := hire(ctx, buyer, job)
		res.Hires = append(res.Hires, row)
		if row.Outcome != controlapi.OutcomeReleased {
			continue
		}
		p, _ := escrow.ParseAmount(row.Price)
		owed += p
		if job.Capability == builtin.CapChart {
			path, err := writeChart(opts.OutDir, output)
			if err != nil {
				return res, err
			}
			res.ChartPath = path
		}
	}

	opts.Step("waiting for the seller to receive every release")
	settled := waitEarned(ctx, seller, owed)
	// The ledgers are local: read them even when the demo was interrupted.
	res.BuyerBalance, res.SellerBalance = balanceOf(context.WithoutCancel(ctx), buyer), balanceOf(context.WithoutCancel(ctx), seller)
	res.DurationMS = time.Since(start).Milliseconds()
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("demo interrupted: %w", err)
	}
	res.OK = settled && allReleased(res.Hires)
	if !res.OK {
		return res, fmt.Errorf("%w: %s", ErrHireFailed, failures(res.Hires, settled))
	}
	if err := errors.Join(buyer.Escrow.CheckInvariant(ctx), seller.Escrow.CheckInvariant(ctx)); err != nil {
		res.OK = false
		return res, fmt.Errorf("ledger check after the demo: %w", err)
	}
	return res, nil
}

func (o Options) withDefaults() Options {
	if o.OutDir == "" {
		o.OutDir = "."
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	if o.Step == nil {
		o.Step = func(string) {}
	}
	return o
}

// selectJobs keeps the jobs named in only (all when empty).
func selectJobs(only []string) ([]Job, error) {
	all := Jobs()
	if len(only) == 0 {
		return all, nil
	}
	var out []Job
	for _, capID := range only {
		found := false
		for _, j := range all {
			if j.Capability == capID {
				out, found = append(out, j), true
			}
		}
		if !found {
			return nil, fmt.Errorf("the demo does not hire %q; it hires %s", capID, jobNames(all))
		}
	}
	return out, nil
}

func jobNames(jobs []Job) string {
	var b bytes.Buffer
	for i, j := range jobs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(j.Capability)
	}
	return b.String()
}

// newRepo creates a loopback-only repo on the demo network.
func newRepo(dir string, bootstrap []string) (*node.Repo, error) {
	cfg := node.DefaultConfig(Network)
	cfg.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.API = "127.0.0.1:0"
	cfg.Bootstrap = bootstrap
	repo, err := node.Init(dir, cfg)
	if err != nil {
		return nil, fmt.Errorf("create repo %s: %w", dir, err)
	}
	return repo, nil
}

// startSeller creates the seller's repo, lists the jobs' capabilities
// offline (as 'swarmwage sell add' does without a daemon) and starts the
// node, which announces them and starts compiling the sandbox.
func startSeller(ctx context.Context, dir string, jobs []Job, log *slog.Logger) (*node.Node, error) {
	repo, err := newRepo(dir, nil)
	if err != nil {
		return nil, err
	}
	l, err := node.OpenLocal(repo)
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if _, err := node.AddListingLocal(ctx, l.Store, controlapi.AddListingRequest{Capability: j.Capability, Price: j.Price, Handler: market.HandlerBuiltin}); err != nil {
			return nil, errors.Join(fmt.Errorf("list %s: %w", j.Capability, err), l.Close())
		}
	}
	if err := l.Close(); err != nil {
		return nil, err
	}
	return start(ctx, repo, log)
}

func startNode(ctx context.Context, dir string, bootstrap []string, log *slog.Logger) (*node.Node, error) {
	repo, err := newRepo(dir, bootstrap)
	if err != nil {
		return nil, err
	}
	return start(ctx, repo, log)
}

func start(ctx context.Context, repo *node.Repo, log *slog.Logger) (*node.Node, error) {
	n, err := node.New(ctx, repo, node.Options{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("start node: %w", err)
	}
	if err := n.Start(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("start node: %w", err), n.Close())
	}
	return n, nil
}

// sellerAddrs are the seller's full multiaddrs, the buyer's bootstrap peers.
func sellerAddrs(n *node.Node) []string {
	var out []string
	for _, a := range n.Host.Addrs() {
		out = append(out, a.String()+"/p2p/"+n.Host.ID().String())
	}
	return out
}

// waitReady polls until the buyer has the seller in its routing table and
// the seller has provided every listing.
func waitReady(ctx context.Context, seller, buyer *node.Node) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	kicked := false
	for {
		connected := buyer.Routing.RoutingTableSize() > 0 && seller.Routing.RoutingTableSize() > 0
		if connected && seller.Routing.Pending() == 0 {
			return nil
		}
		if connected && !kicked {
			// The seller's first provide ran before the buyer joined and
			// failed (no peers); announcing again retries now instead of at
			// the next retry tick, seconds later.
			if announced := seller.Routing.Announced(); len(announced) > 0 {
				if err := seller.Routing.Announce(ctx, announced[0]); err != nil {
					return fmt.Errorf("announce the seller's listings: %w", err)
				}
			}
			kicked = true
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return fmt.Errorf("demo interrupted: %w", ctx.Err())
			}
			return fmt.Errorf("the seller's listings were not announced within %s (routing table: buyer %d, seller %d peers; %d pending): %w",
				readyTimeout, buyer.Routing.RoutingTableSize(), seller.Routing.RoutingTableSize(), seller.Routing.Pending(), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// hire runs one job and returns its row and output.
func hire(ctx context.Context, buyer *node.Node, job Job) (HireRow, json.RawMessage) {
	maxPrice, _ := escrow.ParseAmount(job.Price)
	info := buyer.Hire(ctx, market.HireRequest{
		Capability: job.Capability,
		Input:      job.Input,
		MaxPrice:   maxPrice,
		Timeout:    hireTimeout,
	})
	row := HireRow{
		Capability: job.Capability,
		JobID:      info.JobID,
		Seller:     info.Seller,
		Price:      info.Price,
		Checks:     len(info.Verification.Checks),
		Escrow:     info.Escrow.State,
		Outcome:    info.Outcome,
		DurationMS: info.DurationMS,
		Error:      info.Error,
	}
	for _, c := range info.Verification.Checks {
		if c.Passed {
			row.ChecksPassed++
		}
	}
	row.Verification = "failed"
	if info.Verification.Passed {
		row.Verification = "passed"
	}
	if row.Escrow == "" {
		row.Escrow = "none"
	}
	return row, info.Output
}

// writeChart decodes the chart's PNG and writes it to dir.
func writeChart(dir string, output json.RawMessage) (string, error) {
	var out struct {
		ImageB64 string `json:"image_b64"`
	}
	if err := json.Unmarshal(output, &out); err != nil {
		return "", fmt.Errorf("read the chart output: %w", err)
	}
	img, err := base64.StdEncoding.DecodeString(out.ImageB64)
	if err != nil {
		return "", fmt.Errorf("decode the chart PNG: %w", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, ChartFile))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, img, 0o644); err != nil {
		return "", fmt.Errorf("write the chart (choose another directory with --out): %w", err)
	}
	return path, nil
}

// waitEarned polls until the seller has been credited owed micro-credits:
// the buyer sends its release right after verifying, the seller books it
// when it arrives.
func waitEarned(ctx context.Context, seller *node.Node, owed int64) bool {
	deadline := time.Now().Add(settleTimeout)
	for {
		b, err := seller.Escrow.Balance(ctx)
		if err == nil && b.Earned >= owed {
			return b.Earned == owed
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func balanceOf(ctx context.Context, n *node.Node) Balance {
	b, err := n.Escrow.Balance(ctx)
	if err != nil {
		return Balance{}
	}
	return Balance{
		Available: escrow.FormatAmount(b.Available),
		Held:      escrow.FormatAmount(b.Held),
		Paid:      escrow.FormatAmount(b.Paid),
		Earned:    escrow.FormatAmount(b.Earned),
	}
}

func allReleased(rows []HireRow) bool {
	for _, r := range rows {
		if r.Outcome != controlapi.OutcomeReleased {
			return false
		}
	}
	return len(rows) > 0
}

func failures(rows []HireRow, settled bool) string {
	var b bytes.Buffer
	for _, r := range rows {
		if r.Outcome == controlapi.OutcomeReleased {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %s", r.Capability, r.Outcome)
		if r.Error != "" {
			fmt.Fprintf(&b, " (%s)", r.Error)
		}
	}
	if !settled {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "the seller was not credited for every release within %s", settleTimeout)
	}
	return b.String()
}

// testImage is a small gradient PNG for image.upscale.2x.
func testImage() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 48, 32))
	for y := range 32 {
		for x := range 48 {
			img.Set(x, y, color.RGBA{R: uint8(x * 5), G: uint8(y * 7), B: 160, A: 255})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // encoding an in-memory RGBA image does not fail
	return buf.Bytes()
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called on string maps
	}
	return b
}
