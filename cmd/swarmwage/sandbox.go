package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/sandbox"
)

const (
	fileFlag        = "file"
	codeFlag        = "code"
	stdinFlag       = "stdin"
	languageFlag    = "language"
	timeoutMSFlag   = "timeout-ms"
	benchNFlag      = "n"
	benchJobsFlag   = "jobs"
	benchRoundsFlag = "rounds"
	concurrencyFlag = "concurrency"
)

// sandboxCommand is the `sandbox` group: the code.execute.sandboxed runtime,
// run locally.
func sandboxCommand() *cli.Command {
	return &cli.Command{
		Name:        "sandbox",
		Usage:       "run Python or JavaScript in the code.execute.sandboxed sandbox, locally",
		Subcommands: []*cli.Command{sandboxRunCommand()},
	}
}

func sandboxRunCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run a Python (or JavaScript) program in the sandbox (no daemon needed); exits with the program's exit code",
		Description: "Prints the program's stdout and stderr and exits with its exit code (124 on timeout).\n" +
			"With --json prints the Result document {stdout, stderr, exit_code, duration_ms, truncated} and exits 0.\n" +
			"The compiled interpreter is cached under <repo>/cache/wazero when the repo exists, else in the user cache dir.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: fileFlag, Usage: "read the program from `FILE` ('-' for standard input)"},
			&cli.StringFlag{Name: codeFlag, Usage: "the program text"},
			&cli.StringFlag{Name: stdinFlag, Usage: "what the program reads on its standard input"},
			&cli.StringFlag{Name: languageFlag, Value: sandbox.LanguagePython, Usage: "the program's `LANGUAGE`: python or javascript"},
			&cli.IntFlag{Name: timeoutMSFlag, Value: sandbox.DefaultTimeoutMS, Usage: fmt.Sprintf("wall-clock limit in milliseconds, at most %d", sandbox.MaxTimeoutMS)},
			jsonOutFlag(),
		},
		Action: sandboxRun,
	}
}

func sandboxRun(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrf("sandbox run takes no arguments; pass the program with --file or --code")
	}
	code, err := programText(c)
	if err != nil {
		return err
	}
	req := sandbox.Request{Code: code, Language: c.String(languageFlag), Stdin: c.String(stdinFlag), TimeoutMS: c.Int(timeoutMSFlag)}
	if !slices.Contains(sandbox.Languages(), req.Language) {
		return usageErrf("--%s %q: want one of %s", languageFlag, req.Language, strings.Join(sandbox.Languages(), ", "))
	}
	if req.TimeoutMS <= 0 {
		return usageErrf("--%s %d: want 1 to %d", timeoutMSFlag, req.TimeoutMS, sandbox.MaxTimeoutMS)
	}
	cacheDir, err := sandboxCacheDir(c)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext(c)
	defer cancel()
	// One job: a pool would only start interpreters nobody uses.
	sb, err := sandbox.New(ctx, sandbox.WithCacheDir(cacheDir), sandbox.WithPoolSize(0))
	if err != nil {
		return fmt.Errorf("start sandbox: %w", err)
	}
	res, err := sb.Run(ctx, req)
	err = errors.Join(err, sb.Close(ctx))
	if errors.Is(err, sandbox.ErrInvalidRequest) {
		return usageErr(err)
	}
	if err != nil {
		return fmt.Errorf("sandbox run: %w", err)
	}
	if c.Bool(jsonFlag) {
		return printJSON(c, res)
	}
	fmt.Fprint(c.App.Writer, res.Stdout)
	fmt.Fprint(c.App.ErrWriter, res.Stderr)
	if res.Truncated {
		fmt.Fprintf(c.App.ErrWriter, "swarmwage: output truncated at %d bytes per stream\n", sb.Runtime().Limits.OutputBytes)
	}
	if res.ExitCode == sandbox.TimeoutExitCode {
		fmt.Fprintf(c.App.ErrWriter, "swarmwage: the program was stopped after --%s %d (exit %d)\n", timeoutMSFlag, req.TimeoutMS, res.ExitCode)
	}
	if res.ExitCode != 0 {
		return exitCode(res.ExitCode)
	}
	return nil
}

// programText reads the program from --file or --code, exactly one of them.
func programText(c *cli.Context) (string, error) {
	file, code := c.String(fileFlag), c.String(codeFlag)
	switch {
	case c.IsSet(fileFlag) == c.IsSet(codeFlag):
		return "", usageErrf("give the program with exactly one of --%s FILE or --%s STR", fileFlag, codeFlag)
	case c.IsSet(codeFlag):
		return code, nil
	}
	var r io.Reader = os.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return "", usageErr(fmt.Errorf("--%s: %w", fileFlag, err))
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, sandbox.MaxCodeBytes+1))
	if err != nil {
		return "", usageErr(fmt.Errorf("--%s %s: %w", fileFlag, file, err))
	}
	if len(b) > sandbox.MaxCodeBytes {
		return "", usageErrf("--%s %s: program exceeds %d bytes", fileFlag, file, sandbox.MaxCodeBytes)
	}
	return string(b), nil
}

// sandboxCacheDir is where the compiled interpreter is kept: in the repo
// when there is one, else in the user's cache dir, so a plain `sandbox run`
// compiles once (seconds), not every time.
func sandboxCacheDir(c *cli.Context) (string, error) {
	repo, err := repoDir(c)
	if err == nil {
		if fi, statErr := os.Stat(repo); statErr == nil && fi.IsDir() {
			return filepath.Join(repo, "cache", "wazero"), nil
		}
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find a cache dir for the compiled sandbox (set --repo to an initialised repo): %w", err)
	}
	return filepath.Join(dir, "swarmwage", "wazero"), nil
}

// benchCommand is the `bench` group; each subcommand measures one part of
// the node. Add new ones to the list.
func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure this node's speed",
		Subcommands: []*cli.Command{
			benchSandboxCommand(),
			benchHireCommand(),
			benchFindCommand(),
		},
	}
}

func benchSandboxCommand() *cli.Command {
	return &cli.Command{
		Name:  "sandbox",
		Usage: "measure the sandbox: warm job latency, sustained jobs per second against native python3 processes, cold start, timeouts, memory, CPU-bound speed against native python3",
		Description: "Compiles into a temporary cache (the cold figures need an empty one), so it takes a while.\n" +
			"jobs_per_s: --jobs print(1) jobs submitted at once, --concurrency executing at a time, each in an interpreter no\n" +
			"other job touched and all but the pool's few started (restored from the snapshot) during the round, over the wall time to the last result;\n" +
			"native_jobs_per_s: the same number of `python3 -c 'print(1)'` processes, as many at a time, python3 resolved to\n" +
			"its executable; --rounds rounds alternate the two and the figures are medians (jobs_per_s_vs_native: of each\n" +
			"round's ratio). cpu_ratio_vs_python3: the loop in cpu_loop, fastest of 3 in each, sandbox over native.\n" +
			"--json prints every figure; the native ones are null when no python3 runs.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: benchNFlag, Value: 50, Usage: "jobs timed one by one for latency"},
			&cli.IntFlag{Name: benchJobsFlag, Value: sandbox.DefaultBenchJobs, Usage: "jobs (and native processes) per throughput round"},
			&cli.IntFlag{Name: benchRoundsFlag, Value: 3, Usage: "throughput rounds, sandbox and native alternating; medians are reported"},
			&cli.IntFlag{Name: concurrencyFlag, Value: runtime.GOMAXPROCS(0), Usage: "jobs in flight, and executing at once, for the throughput figures (default GOMAXPROCS)"},
			jsonOutFlag(),
		},
		Action: benchSandbox,
	}
}

func benchSandbox(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrf("bench sandbox takes no arguments")
	}
	n, jobs, rounds, conc := c.Int(benchNFlag), c.Int(benchJobsFlag), c.Int(benchRoundsFlag), c.Int(concurrencyFlag)
	if n < 1 || n > 10000 {
		return usageErrf("--%s %d: want 1 to 10000", benchNFlag, n)
	}
	if jobs < 1 || jobs > 100000 {
		return usageErrf("--%s %d: want 1 to 100000", benchJobsFlag, jobs)
	}
	if rounds < 1 || rounds > 100 {
		return usageErrf("--%s %d: want 1 to 100", benchRoundsFlag, rounds)
	}
	if conc < 1 || conc > 256 {
		return usageErrf("--%s %d: want 1 to 256", concurrencyFlag, conc)
	}
	ctx, cancel := signalContext(c)
	defer cancel()
	res, err := sandbox.Bench(ctx, sandbox.BenchOptions{
		N:           n,
		Jobs:        jobs,
		Rounds:      rounds,
		Concurrency: conc,
		Progress:    func(step string) { fmt.Fprintln(c.App.ErrWriter, "measuring:", step) },
	})
	if err != nil {
		return err
	}
	if c.Bool(jsonFlag) {
		return printJSON(c, res)
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	for _, row := range []struct {
		name string
		v    *float64
		unit string
	}{
		{"warm job latency p50", res.WarmP50MS, "ms"},
		{"warm job latency p95", res.WarmP95MS, "ms"},
		{fmt.Sprintf("sustained throughput (%d jobs x %d rounds, concurrency %d)", res.ThroughputJobs, res.Rounds, res.Concurrency), res.JobsPerS, "jobs/s"},
		{"native python3 -c processes, same run", res.NativeJobsPerS, "jobs/s"},
		{"throughput, times native", res.JobsPerSVsNative, "x"},
		{"cold first job", res.ColdFirstJobMS, "ms"},
		{"cold first job, compile cached", res.ColdFirstJobCachedMS, "ms"},
		{"timeout overshoot p50", res.TimeoutOvershootP50MS, "ms"},
		{"timeout overshoot worst", res.TimeoutOvershootMaxMS, "ms"},
		{"memory per pooled interpreter", res.PoolInstanceRSSMiB, "MiB"},
		{fmt.Sprintf("process RSS, pool of %d full", res.PoolSize), res.RSSPoolFullMiB, "MiB"},
		{"CPU-bound, sandbox", res.CPUSandboxS, "s"},
		{"CPU-bound, native python3", res.CPUNativeS, "s"},
		{"CPU-bound, times native python3", res.CPURatioVsPython3, "x"},
	} {
		if row.v == nil {
			fmt.Fprintf(w, "%s\tnot measured\n", row.name)
			continue
		}
		fmt.Fprintf(w, "%s\t%.2f %s\n", row.name, *row.v, row.unit)
	}
	if res.Python3 != "" {
		fmt.Fprintf(w, "native python3\t%s (%s)\n", res.Python3, res.Python3Version)
	}
	fmt.Fprintf(w, "CPU-bound loop\t%s\n", res.CPULoop)
	return w.Flush()
}
