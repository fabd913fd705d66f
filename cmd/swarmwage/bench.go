package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/escrow/evm/devchain"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/bench"
)

// anvilFlag names the anvil binary 'bench hire --settlement evm' starts.
const anvilFlag = "anvil"

func benchHireCommand() *cli.Command {
	return &cli.Command{
		Name:      "hire",
		Usage:     "measure hires: two nodes on loopback, N hires of compute.statistics.mean",
		ArgsUsage: " ",
		Description: "--json prints {p50_ms, p95_ms, hires_per_s, n, concurrency, failed, gomaxprocs}.\n" +
			"With --settlement evm it runs the credits hires first, then the same hires on the evm rail on a\n" +
			"fresh escrow and test token, and adds settlement, credits_hires_per_s, ratio_to_credits and\n" +
			"chain {txs, gas, txs_per_hire, gas_per_hire, by_kind, redeemed, batches, release_to_paid}.\n" +
			"Without --rpc it starts anvil on loopback: --anvil PATH, else anvil on PATH, else the one pinned in\n" +
			"contracts/ when run inside a source checkout ('npm ci' run there).",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "n", Value: 1000, Usage: "number of hires"},
			&cli.IntFlag{Name: "concurrency", Value: 32, Usage: "hires in flight at once"},
			&cli.StringFlag{Name: settlementFlag, Value: node.RailCredits, Usage: "'credits' or 'evm' (evm also runs credits, to compare)"},
			&cli.StringFlag{Name: rpcFlag, Usage: "evm: a dev chain's JSON-RPC `URL` (default: start anvil)"},
			&cli.StringFlag{Name: anvilFlag, Usage: "evm without --rpc: the anvil binary to start (default: anvil on PATH, else contracts/node_modules of the checkout the working directory is in)"},
			&cli.StringFlag{Name: keyFileFlag, Usage: "evm with --rpc: `FILE` with a funded key (hex) that deploys and pays the nodes' gas"},
			&cli.DurationFlag{Name: "redeem-interval", Value: time.Second, Usage: "evm: the seller's redeem interval"},
			&cli.StringFlag{Name: "profile", Usage: "credits: write CPU and allocation profiles of the measured hires (both nodes, labelled node=buyer|seller) to `DIR`"},
			jsonOutFlag(),
		},
		Action: func(c *cli.Context) error {
			n, conc := c.Int("n"), c.Int("concurrency")
			if n < 1 || conc < 1 || conc > 1024 {
				return usageErrf("--n must be at least 1 and --concurrency 1 to 1024")
			}
			var res bench.HireResult
			var err error
			switch c.String(settlementFlag) {
			case node.RailCredits:
				var opts []bench.Option
				if dir := c.String("profile"); dir != "" {
					opts = append(opts, bench.WithProfile(dir))
				}
				res, err = bench.Hire(c.Context, n, conc, opts...)
			case node.RailEVM:
				if c.String("profile") != "" {
					return usageErrf("--profile is for --settlement credits")
				}
				res, err = benchHireEVM(c, n, conc)
			default:
				return usageErrf("--settlement %q: want credits or evm", c.String(settlementFlag))
			}
			if err != nil {
				return err
			}
			if dir := c.String("profile"); dir != "" {
				fmt.Fprintf(c.App.ErrWriter, "profiles in %s; read them with:\n  %s\n", dir, strings.Join(bench.ProfileFiles(dir), "\n  "))
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, res)
			}
			fmt.Fprintf(c.App.Writer, "hires: %d at concurrency %d (%d failed)\nlatency: p50 %.2f ms, p95 %.2f ms\nthroughput: %.0f hires/s\n",
				res.N, res.Concurrency, res.Failed, res.P50MS, res.P95MS, res.HiresPerSec)
			if ch := res.Chain; ch != nil {
				fmt.Fprintf(c.App.Writer, "credits, same run: %.0f hires/s (evm is %.2f of it)\non chain: %d transactions, %d gas: %.4f transactions and %.0f gas a hire (%v)\n"+
					"redeemed %d vouchers in %d batches; release to money in the seller's address: p50 %.0f ms, p95 %.0f ms (redeem interval %d ms)\n",
					*res.CreditsHiresPerSec, *res.RatioToCredits, ch.Txs, ch.Gas, ch.TxsPerHire, ch.GasPerHire, ch.ByKind,
					ch.Redeemed, ch.Batches, ch.ReleaseToPaid.P50MS, ch.ReleaseToPaid.P95MS, ch.RedeemIntervalMS)
			}
			return nil
		},
	}
}

// benchFindResult adds the idle daemon's memory to the search figures.
type benchFindResult struct {
	bench.FindResult
	IdleDaemonRSSMB *float64 `json:"idle_daemon_rss_mb"`
}

func benchFindCommand() *cli.Command {
	return &cli.Command{
		Name:        "find",
		Usage:       "measure find: cold (DHT) and warm (prefetch cache) latency on a loopback network, and an idle daemon's memory",
		ArgsUsage:   " ",
		Description: "--json prints {nodes, cold: {p50_ms, p95_ms, n}, warm: {...}, idle_daemon_rss_mb}.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "nodes", Value: 30, Usage: "nodes in the network"},
			&cli.IntFlag{Name: "caps", Value: 10, Usage: "capabilities sold (each node sells one)"},
			&cli.IntFlag{Name: "rounds", Value: 5, Usage: "searches per capability"},
			jsonOutFlag(),
		},
		Action: func(c *cli.Context) error {
			nodes, caps, rounds := c.Int("nodes"), c.Int("caps"), c.Int("rounds")
			if nodes < 2 || nodes > 200 || caps < 1 || rounds < 1 {
				return usageErrf("--nodes 2 to 200, --caps and --rounds at least 1")
			}
			res, err := bench.Find(c.Context, nodes, caps, rounds)
			if err != nil {
				return err
			}
			out := benchFindResult{FindResult: res}
			if rss, err := idleDaemonRSS(c.Context); err == nil {
				out.IdleDaemonRSSMB = &rss
			} else {
				fmt.Fprintf(c.App.ErrWriter, "idle daemon RSS not measured: %v\n", err)
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, out)
			}
			fmt.Fprintf(c.App.Writer, "network: %d nodes on loopback\ncold find: p50 %.2f ms, p95 %.2f ms (%d searches)\nwarm find: p50 %.2f ms, p95 %.2f ms (%d searches)\n",
				res.Nodes, res.Cold.P50MS, res.Cold.P95MS, res.Cold.N, res.Warm.P50MS, res.Warm.P95MS, res.Warm.N)
			if out.IdleDaemonRSSMB != nil {
				fmt.Fprintf(c.App.Writer, "idle daemon RSS: %.1f MB\n", *out.IdleDaemonRSSMB)
			}
			return nil
		},
	}
}

// idleDaemonRSS starts this binary as a daemon on a fresh private repo,
// lets it idle, and reads its resident memory.
func idleDaemonRSS(ctx context.Context) (float64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "swarmwage-rss")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	repo := filepath.Join(dir, "repo")
	init := exec.CommandContext(ctx, exe, "--repo", repo, "init", "--network", "benchrss", "--listen", "/ip4/127.0.0.1/tcp/0", "--api", "127.0.0.1:0")
	if out, err := init.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("init: %v: %s", err, out)
	}
	d := exec.CommandContext(ctx, exe, "--repo", repo, "daemon")
	stdout, err := d.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := d.Start(); err != nil {
		return 0, err
	}
	defer func() {
		_ = d.Process.Signal(os.Interrupt)
		_ = d.Wait()
	}()
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "Daemon is ready") {
				ready <- true
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		return 0, fmt.Errorf("daemon not ready")
	}
	time.Sleep(5 * time.Second) // idle
	return vmRSS(d.Process.Pid)
}

// vmRSS reads a process's resident set size in MB from /proc.
func vmRSS(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// benchHireEVM runs the evm bench on --rpc with --key-file, or on an anvil
// it starts.
func benchHireEVM(c *cli.Context, n, conc int) (bench.HireResult, error) {
	o := bench.EVMOptions{RPC: c.String(rpcFlag), RedeemInterval: c.Duration("redeem-interval")}
	if o.RPC != "" {
		if c.String(keyFileFlag) == "" {
			return bench.HireResult{}, usageErrf("--rpc needs --key-file FILE: a funded key that deploys and pays the nodes' gas")
		}
		k, _, err := evm.ReadKeyFile(c.String(keyFileFlag))
		if err != nil {
			return bench.HireResult{}, usageErr(err)
		}
		o.Deployer = k
		return bench.HireEVM(c.Context, n, conc, o)
	}
	bin, err := devchain.FindAnvil(c.String(anvilFlag))
	if err != nil && c.String(anvilFlag) != "" {
		return bench.HireResult{}, usageErrf("--%s: %v", anvilFlag, err)
	}
	if err != nil {
		return bench.HireResult{}, fmt.Errorf("%w; give --%s PATH (Foundry's anvil), or a chain with --%s URL and --%s FILE", err, anvilFlag, rpcFlag, keyFileFlag)
	}
	a, stop, err := devchain.Start(c.Context, bin, 31337)
	if err != nil {
		return bench.HireResult{}, fmt.Errorf("start anvil %s (or give --%s and --%s): %w", bin, rpcFlag, keyFileFlag, err)
	}
	defer stop()
	if o.Deployer, err = evm.ParseKey(a.Keys[0]); err != nil {
		return bench.HireResult{}, err
	}
	o.RPC = a.URL
	return bench.HireEVM(c.Context, n, conc, o)
}
