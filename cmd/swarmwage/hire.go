package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/safetext"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/route"
	"github.com/swarmwage/swarmwage/verify"
)

// Exit codes of 'hire' beyond the shared ones (README, "Exit codes").
const (
	exitNoSeller           = 3
	exitJobFailed          = 4
	exitVerificationFailed = 5
	exitTimedOut           = 6
	// exitInsufficientFunds: the balance does not cover the price; nothing
	// was locked.
	exitInsufficientFunds = 7
	// exitInterrupted is the shell's code for a command ended by SIGINT.
	exitInterrupted = 130
)

// maxInputFile caps an input document read from a file or stdin.
const maxInputFile = verify.MaxInputSize

func hireCommand() *cli.Command {
	return &cli.Command{
		Name:      "hire",
		Usage:     "buy one job of a capability: find, quote, lock, run, verify locally, then pay or refund",
		ArgsUsage: "CAP",
		Description: `Exit codes: 0 delivered, verified and released (or delivered and awaiting the
verification window for capabilities without a standard verifier); 1 other
error; 2 usage or invalid input; 3 no seller within the price limit (--max-price, else [market] max_price) within
the timeout; 4 the job failed at the seller (refunded); 5 verification
failed (refunded); 6 no result within --timeout while the seller was still
working (refunded); 7 insufficient funds: the available balance (on evm the
escrow on chain) does not cover the price, nothing was locked.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "input", Usage: "input JSON file, or - for stdin"},
			&cli.StringFlag{Name: "input-json", Usage: "input JSON given inline"},
			&cli.StringFlag{Name: "max-price", Usage: "pay at most this much, e.g. 0.05, in the rail's unit; may be above [market] max_price (default: [market] max_price, \"1\" unless set, or a [[policy]] max_price)"},
			&cli.StringFlag{Name: "seller", Usage: "hire only this peer ID"},
			&cli.DurationFlag{Name: "timeout", Value: market.DefaultHireTimeout, Usage: "give up (and refund) after this long"},
			&cli.BoolFlag{Name: "confirm", Usage: "allow hiring a risk tier 3 capability, or one a [[policy]] holds for confirmation (without it, on a terminal, hire asks: confirm? [y/N])"},
			&cli.StringFlag{Name: "qos", Usage: "P0 fastest seller (this node's job history), P3 cheapest, P1 and P2 between (default: the policy's, else P2)"},
			&cli.BoolFlag{Name: "explain", Usage: "show every seller considered and why it was chosen, ranked lower or dropped (JSON: candidates, policy)"},
			&cli.BoolFlag{Name: "detach", Usage: "return as soon as a seller accepted the job; it runs on in the daemon ('jobs watch JOB', 'jobs cancel JOB')"},
			jsonOutFlag(),
		},
		Action: runHire,
	}
}

func runHire(c *cli.Context) error {
	req, err := hireRequest(c)
	if err != nil {
		return err
	}
	cl, err := needDaemon(c)
	if err != nil {
		return err
	}
	if c.Bool("detach") {
		info, err := cl.Detach(c.Context, req)
		if err != nil {
			return apiUsage(err)
		}
		if confirmed(c, &req, info) {
			if info, err = cl.Detach(c.Context, req); err != nil {
				return apiUsage(err)
			}
		}
		if c.Bool(jsonFlag) {
			return printJSON(c, info)
		}
		if info.Outcome == controlapi.OutcomeRunning && info.JobID != "" {
			fmt.Fprintf(c.App.Writer, "%s\n", info.JobID)
			fmt.Fprintf(c.App.ErrWriter, "job %s runs in the daemon: 'swarmwage jobs watch %s' follows it, 'swarmwage jobs cancel %s' stops it\n", info.JobID, info.JobID, info.JobID)
			return nil
		}
		return hireDone(c, info)
	}
	run := func(ctx context.Context, progress func(market.Event)) (controlapi.HireInfo, error) {
		return cl.Hire(ctx, req, progress)
	}
	info, err := followInterruptible(c, cl, run)
	if err != nil {
		return err
	}
	if confirmed(c, &req, info) {
		if info, err = followInterruptible(c, cl, run); err != nil {
			return err
		}
	}
	return hireDone(c, info)
}

// maxAnswer caps the line read as the answer to a confirmation prompt.
const maxAnswer = 256

// confirmed asks the person at the terminal to confirm a hire the daemon
// held for confirmation (a [[policy]] require_confirmation, or a risk tier
// 3 capability) and, on yes, sets req.Confirm for the hire to be sent
// again. Nothing was locked for a held hire, so sending it again is safe.
// It asks only when stdin and stderr are both terminals: a script or an
// agent piping "y" confirms nothing, and gets the hold's error as before.
// Anything but y or yes, and EOF, is no.
func confirmed(c *cli.Context, req *controlapi.HireRequest, info controlapi.HireInfo) bool {
	if info.Outcome != controlapi.OutcomeNeedsConfirm || req.Confirm {
		return false
	}
	in, ok := c.App.Reader.(*os.File)
	errOut, ok2 := c.App.ErrWriter.(*os.File)
	if !ok || !ok2 || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(errOut.Fd())) {
		return false
	}
	what := fmt.Sprintf("%s is risk tier 3 (its SkillCard asks a person to confirm each hire)", info.Capability)
	if info.PolicyHold != "" {
		what = fmt.Sprintf("[[policy]] %s holds every hire of %s until a person confirms it", info.PolicyHold, info.Capability)
	}
	fmt.Fprintf(errOut, "%s; nothing is paid yet. Hire %s, confirm? [y/N] ", safetext.Escape(what), safetext.Escape(info.Capability))
	line, err := bufio.NewReaderSize(io.LimitReader(in, maxAnswer), maxAnswer).ReadString('\n')
	if err != nil && !strings.HasSuffix(line, "\n") {
		fmt.Fprintln(errOut) // EOF (^D) ends the prompt's line
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		req.Confirm = true
		return true
	}
	return false
}

// followInterruptible runs a hire (or a watch) with the job's progress on
// the terminal. On SIGINT it cancels the job if it is not delivered yet
// (refunded), says what became of it, and exits 130.
func followInterruptible(c *cli.Context, cl *controlapi.Client, run func(context.Context, func(market.Event)) (controlapi.HireInfo, error)) (controlapi.HireInfo, error) {
	show, stop := hireProgress(c)
	var (
		mu    sync.Mutex
		jobID string
	)
	progress := func(ev market.Event) {
		mu.Lock()
		if ev.JobID != "" {
			jobID = ev.JobID
		}
		mu.Unlock()
		if show != nil {
			show(ev)
		}
	}
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	type result struct {
		info controlapi.HireInfo
		err  error
	}
	done := make(chan result, 1)
	go func() {
		info, err := run(ctx, progress)
		done <- result{info, err}
	}()
	select {
	case r := <-done:
		stop()
		if r.err != nil {
			return r.info, apiUsage(r.err)
		}
		return r.info, nil
	case <-sig:
		stop()
		mu.Lock()
		id := jobID
		mu.Unlock()
		return controlapi.HireInfo{}, interrupted(c, cl, id, cancel)
	}
}

// interrupted says what became of a job when its hire was interrupted.
func interrupted(c *cli.Context, cl *controlapi.Client, jobID string, cancel context.CancelFunc) error {
	if jobID == "" {
		cancel() // the daemon stops a hire whose client left; nothing was accepted yet
		return exitErr(exitInterrupted, errors.New("interrupted before a seller accepted the job: nothing is paid (a hold made meanwhile is refunded)"))
	}
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	rec, err := cl.CancelJob(ctx, jobID)
	cancel()
	switch {
	case err == nil:
		return exitErr(exitInterrupted, fmt.Errorf("interrupted: job %s stopped; escrow %s", jobID, rec.State))
	case errors.Is(err, escrow.ErrBadState):
		return exitErr(exitInterrupted, fmt.Errorf("interrupted: job %s was delivered and goes on (it is verified, then paid or refunded): see 'swarmwage jobs show %s'", jobID, jobID))
	default:
		return exitErr(exitInterrupted, fmt.Errorf("interrupted: job %s: %v; see 'swarmwage escrow show %s'", jobID, err, jobID))
	}
}

// hireDone prints a hire's result and returns its exit code.
func hireDone(c *cli.Context, info controlapi.HireInfo) error {
	code := hireExitCode(info.Outcome)
	if c.Bool("explain") && !c.Bool(jsonFlag) {
		printExplain(c.App.ErrWriter, info.Capability, info.Requested, route.QoS(info.QoS), info.Policy, info.Candidates)
	}
	if c.Bool(jsonFlag) {
		if err := printJSON(c, info); err != nil {
			return err
		}
		if code != exitOK && info.Error != "" {
			fmt.Fprintf(c.App.ErrWriter, "Error: %s\n", safetext.Escape(info.Error))
		}
		return exitCode(code)
	}
	if info.Output != nil && string(info.Output) != "null" && code == exitOK {
		var v any
		_ = json.Unmarshal(info.Output, &v)
		if err := printJSON(c, v); err != nil {
			return err
		}
	}
	if code != exitOK {
		msg := info.Error
		for _, ch := range info.Verification.Checks {
			if !ch.Passed {
				msg += fmt.Sprintf("\n  check %s failed: %s", ch.Name, ch.Detail)
			}
		}
		if info.JobID != "" {
			msg += fmt.Sprintf("\n  job %s, escrow %s", info.JobID, info.Escrow.State)
		}
		return exitErr(code, errors.New(msg))
	}
	return nil
}

// hireRequest checks the flags and reads the input.
func hireRequest(c *cli.Context) (controlapi.HireRequest, error) {
	if c.NArg() != 1 {
		return controlapi.HireRequest{}, usageErrf("hire needs exactly one capability ID, as: hire --input-json '{\"data\":[1,2]}' compute.statistics.mean")
	}
	capID := c.Args().First()
	if err := verify.CheckKnown(capID); err != nil {
		return controlapi.HireRequest{}, usageErr(err)
	}
	input, err := readInput(c)
	if err != nil {
		return controlapi.HireRequest{}, err
	}
	if _, err := verify.InputSchema(capID); err == nil {
		if err := verify.ValidateInput(capID, input); err != nil {
			return controlapi.HireRequest{}, usageErr(err)
		}
	}
	req := controlapi.HireRequest{Capability: capID, Input: input, Seller: c.String("seller"), Confirm: c.Bool("confirm"), Explain: c.Bool("explain")}
	if q := c.String("qos"); q != "" {
		parsed, err := route.ParseQoS(q)
		if err != nil {
			return req, usageErrf("--qos: %v", err)
		}
		req.QoS = string(parsed)
	}
	if req.Seller != "" {
		if _, err := peer.Decode(req.Seller); err != nil {
			return req, usageErrf("--seller %q is not a peer ID: %v", req.Seller, err)
		}
	}
	if p := c.String("max-price"); p != "" {
		// 0 would read as "no limit" further down: refused here.
		if _, err := parseAmountFlag("max-price", p, railUnit(c)); err != nil {
			return req, usageErrf("%v (leave --max-price out for [market] max_price, default 1)", err)
		}
		req.MaxPrice = p
	}
	if t := c.Duration("timeout"); t <= 0 || t > 30*time.Minute {
		return req, usageErrf("--timeout %s: want more than 0 and at most 30m", t)
	} else {
		req.Timeout = t.String()
	}
	return req, nil
}

// readInput reads the job input from --input FILE, --input - (stdin) or
// --input-json; it must be one JSON document.
func readInput(c *cli.Context) (json.RawMessage, error) {
	file, inline := c.String("input"), c.String("input-json")
	var (
		data []byte
		err  error
		from string
	)
	switch {
	case file != "" && inline != "":
		return nil, usageErrf("give the input once: --input or --input-json, not both")
	case inline != "":
		data, from = []byte(inline), "--input-json"
	case file == "-":
		data, err = io.ReadAll(io.LimitReader(os.Stdin, maxInputFile+1))
		from = "stdin"
	case file != "":
		var f *os.File
		if f, err = os.Open(file); err == nil {
			data, err = io.ReadAll(io.LimitReader(f, maxInputFile+1))
			f.Close()
		}
		from = file
	default:
		return nil, usageErrf("%s needs an input: --input FILE, --input - (stdin) or --input-json JSON", commandPath(c))
	}
	if err != nil {
		return nil, usageErrf("read input from %s: %v", from, err)
	}
	if len(data) > maxInputFile {
		return nil, usageErrf("input from %s is over %d bytes", from, maxInputFile)
	}
	if !json.Valid(data) {
		return nil, usageErrf("input from %s is not valid JSON", from)
	}
	return json.RawMessage(data), nil
}

func hireExitCode(outcome string) int {
	switch outcome {
	case controlapi.OutcomeReleased, controlapi.OutcomeDelivered:
		return exitOK
	case controlapi.OutcomeInvalidInput, controlapi.OutcomeNeedsConfirm:
		return exitUsage
	case controlapi.OutcomeNoSeller:
		return exitNoSeller
	case controlapi.OutcomeJobFailed:
		return exitJobFailed
	case controlapi.OutcomeVerificationFailed:
		return exitVerificationFailed
	case controlapi.OutcomeTimedOut:
		return exitTimedOut
	case controlapi.OutcomeInsufficientFunds:
		return exitInsufficientFunds
	case controlapi.OutcomeRunning:
		return exitOK
	default:
		return exitFailure
	}
}

// hireProgress shows a spinner with the job's events on stderr when stderr
// is a terminal, and nothing when it is piped.
func hireProgress(c *cli.Context) (func(market.Event), func()) {
	describe, stop := spinner(c, "finding a seller")
	if describe == nil {
		return nil, stop
	}
	progress := func(ev market.Event) {
		desc := ev.Type
		switch ev.Type {
		case market.EventLocked:
			desc = "price held in escrow; sending job " + ev.JobID
		case market.EventAccepted:
			desc = "job " + ev.JobID + " accepted"
		case market.EventProgress:
			desc = fmt.Sprintf("job %s running (%.1fs)", ev.JobID, float64(ev.ElapsedMS)/1000)
		case market.EventResult:
			desc = "verifying the output"
		case market.EventError:
			desc = "job failed: " + ev.Message
		}
		describe(desc)
	}
	return progress, stop
}

// spinner shows a spinner with a description on stderr while a long
// operation runs, when stderr is a terminal; piped, it shows nothing and
// describe is nil. stop clears it.
func spinner(c *cli.Context, desc string) (describe func(string), stop func()) {
	f, ok := c.App.ErrWriter.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	bar := progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(50*time.Millisecond),
	)
	_ = bar.RenderBlank()
	done := make(chan struct{})
	finished := make(chan struct{})
	// Keep it turning while nothing is reported.
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = bar.Add(1)
			}
		}
	}()
	describe = func(d string) { bar.Describe(d); _ = bar.Add(1) }
	stop = func() {
		close(done)
		<-finished
		_ = bar.Finish()
		_ = bar.Clear()
	}
	return describe, stop
}
