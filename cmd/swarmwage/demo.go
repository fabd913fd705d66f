package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/swarmwage/swarmwage/demo"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:      "demo",
		Usage:     "see the whole market work in one process: a seller and a buyer on loopback, hire, verify, settle",
		ArgsUsage: " ",
		Description: `Starts a seller and a buyer node in this process, on 127.0.0.1 and the private
network '` + demo.Network + `', with temporary repos (removed at the end; nothing is
written to ~/.swarmwage). The seller lists built-in capabilities, the buyer
deposits test credits and hires each one: find in the DHT, signed quote, escrow
lock, job, local verification, release. Prints one row per hire and writes the
chart it bought to --out/` + demo.ChartFile + `.

Exit codes: 0 every hire was verified and released; 1 otherwise.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Value: ".", Usage: "directory for the chart PNG (created when missing)"},
			&cli.StringSliceFlag{Name: "only", Usage: "hire only this capability (repeatable)"},
			jsonOutFlag(),
		},
		Action: runDemo,
	}
}

func runDemo(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrf("demo takes no arguments, got %q", c.Args().First())
	}
	out := c.String("out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return usageErrf("--out %s: cannot create the directory: %v", out, err)
	}
	for _, capID := range c.StringSlice("only") {
		if !demoHires(capID) {
			return usageErrf("--only %s: the demo does not hire %q; it hires %s", capID, capID, demoCapabilities())
		}
	}
	ctx, cancel := signalContext(c)
	defer cancel()
	opts := demo.Options{
		OutDir:       out,
		Capabilities: c.StringSlice("only"),
		Logger:       slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: slog.LevelError})),
		Step:         demoSteps(c),
	}
	res, err := demo.Run(ctx, opts)
	if err != nil && !errors.Is(err, demo.ErrHireFailed) && len(res.Hires) == 0 {
		// The demo could not start: no table to show, only the reason.
		return exitErr(exitFailure, fmt.Errorf("demo: %w", err))
	}
	if c.Bool(jsonFlag) {
		if perr := printJSON(c, res); perr != nil {
			return perr
		}
	} else if len(res.Hires) > 0 {
		printDemo(c, res)
	}
	if err != nil {
		return exitErr(exitFailure, err)
	}
	return nil
}

func demoHires(capID string) bool {
	for _, j := range demo.Jobs() {
		if j.Capability == capID {
			return true
		}
	}
	return false
}

func demoCapabilities() string {
	var names []string
	for _, j := range demo.Jobs() {
		names = append(names, j.Capability)
	}
	return strings.Join(names, ", ")
}

// demoSteps prints each step on stderr when it is a terminal, with the time
// since the start, and nothing when piped.
func demoSteps(c *cli.Context) func(string) {
	f, ok := c.App.ErrWriter.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	start := time.Now()
	return func(msg string) {
		fmt.Fprintf(f, "[%5.1fs] %s\n", time.Since(start).Seconds(), msg)
	}
}

func printDemo(c *cli.Context, res demo.Result) {
	w := c.App.Writer
	fmt.Fprintf(w, "seller %s\nbuyer  %s\nnetwork %s (private, loopback only)\n\n", res.Seller, res.Buyer, res.Network)
	tw := newTable(w)
	fmt.Fprintf(tw, "CAPABILITY\tSELLER\tPRICE\tVERIFICATION\tESCROW\tTIME\n")
	for _, h := range res.Hires {
		verdict := fmt.Sprintf("%s %d/%d", h.Verification, h.ChecksPassed, h.Checks)
		if h.Checks == 0 {
			verdict = "-"
		}
		price := h.Price
		if price == "" {
			price = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", h.Capability, shortPeer(h.Seller), price, verdict, h.Escrow, fmtMS(h.DurationMS))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, h := range res.Hires {
		if h.Error != "" {
			fmt.Fprintf(w, "%s failed (%s): %s\n", h.Capability, h.Outcome, h.Error)
		}
	}
	if res.BuyerBalance.Available != "" {
		fmt.Fprintf(w, "buyer:  available %s, paid %s (test credits)\n", res.BuyerBalance.Available, res.BuyerBalance.Paid)
		fmt.Fprintf(w, "seller: earned %s\n", res.SellerBalance.Earned)
	}
	if res.ChartPath != "" {
		fmt.Fprintf(w, "chart:  %s (the PNG the buyer hired and verified)\n", res.ChartPath)
	}
	fmt.Fprintf(w, "took %s\n", fmtMS(res.DurationMS))
	if res.OK {
		fmt.Fprintln(w, "\nnext: run your own seller and buyer, see README.md \"Run a seller\" and \"Hire\"")
	}
}

// shortPeer abbreviates a peer ID for a table: 12D3Koo…last6.
func shortPeer(id string) string {
	if len(id) <= 16 {
		if id == "" {
			return "-"
		}
		return id
	}
	return id[:7] + "…" + id[len(id)-6:]
}

func fmtMS(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}
