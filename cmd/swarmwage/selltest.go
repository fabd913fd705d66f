package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/verify"
)

// sellTestCommand runs a listing's handler on this machine and verifies its
// output as a buyer would: a seller's check before announcing, with no
// network and no escrow.
func sellTestCommand() *cli.Command {
	return &cli.Command{
		Name:      "test",
		Usage:     "run a listing's handler locally on an input and verify its output as a buyer would (no network, no escrow)",
		ArgsUsage: "CAP",
		Description: `Runs the handler of this node's listing of CAP on the input, as a job would
run it (input checked against the listing's input schema, the same handler and
environment), then verifies the output as a buyer does: the capability's checks,
or the listing's output schema for a custom capability. The output JSON goes to
stdout, the checks to stderr; --json prints one document with both.
Through the daemon when one runs, else on the repo directly.
Exit codes: 0 the output passed every check, 1 the handler failed or a check
failed, 2 usage (unknown listing, an input that does not fit).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "input", Usage: "input JSON file, or - for stdin"},
			&cli.StringFlag{Name: "input-json", Usage: "input JSON given inline"},
			&cli.DurationFlag{Name: "timeout", Value: controlapi.DefaultTestTimeout, Usage: "stop the handler after this long"},
			jsonOutFlag(),
		},
		Action: runSellTest,
	}
}

func runSellTest(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrf("sell test needs exactly one capability ID, as: sell test --input-json '{\"data\":[1,2]}' compute.statistics.mean")
	}
	capID := c.Args().First()
	if err := verify.CheckID(capID); err != nil {
		return usageErr(err)
	}
	input, err := readInput(c)
	if err != nil {
		return err
	}
	if c.Duration("timeout") <= 0 {
		return usageErrf("--timeout %s: want a positive duration such as 30s", c.Duration("timeout"))
	}
	req := controlapi.TestListingRequest{Capability: capID, Input: input, TimeoutMS: c.Duration("timeout").Milliseconds()}
	res, err := testListing(c, req)
	var ae *controlapi.APIError
	switch {
	case errors.Is(err, market.ErrNotListed) || errors.As(err, &ae) && ae.Status == 404:
		return usageErrf("this node does not sell %s ('swarmwage sell list' shows what it sells)", capID)
	case err != nil:
		return apiUsage(err)
	}
	if c.Bool(jsonFlag) {
		if err := printJSON(c, res); err != nil {
			return err
		}
	} else {
		printSellTest(c, res)
	}
	if !res.Passed {
		return exitCode(exitFailure)
	}
	return nil
}

func testListing(c *cli.Context, req controlapi.TestListingRequest) (res market.TestResult, err error) {
	err = withEnv(c, node.ReadOnly, func(env *node.Env) error {
		res, err = env.TestListing(c.Context, req)
		return err
	})
	return res, err
}

// printSellTest prints the output on stdout and what happened on stderr.
func printSellTest(c *cli.Context, res market.TestResult) {
	w := c.App.ErrWriter
	printAttempts(w, res)
	if res.Error != "" && res.Output == nil {
		fmt.Fprintf(w, "the handler failed after %d ms: %s\n", res.DurationMS, res.Error)
		fmt.Fprintf(w, "a buyer would see %q and be refunded\n", publicClass(res.Error))
		return
	}
	out, _ := json.MarshalIndent(res.Output, "", "  ")
	fmt.Fprintln(c.App.Writer, string(out))
	tw := newTable(w)
	for _, ch := range res.Verification.Checks {
		state := "passed"
		if !ch.Passed {
			state = "FAILED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", state, ch.Name, ch.Detail)
	}
	tw.Flush()
	_, stdErr := verify.OutputSchema(res.Capability)
	switch {
	case res.Passed && stdErr == nil:
		fmt.Fprintf(w, "verification passed (%d checks) in %d ms: a buyer would pay for this output\n", len(res.Verification.Checks), res.DurationMS)
	case res.Passed:
		// No standard verifier: the buyer cannot judge the output itself.
		fmt.Fprintf(w, "the output fits the listing's output schema (%d checks) in %d ms; %s has no standard verifier, so a buyer's hire ends 'delivered' and is paid when the verification window ends, unless the buyer refunds it first ('escrow refund')\n",
			len(res.Verification.Checks), res.DurationMS, res.Capability)
	case res.Error != "":
		fmt.Fprintf(w, "no attempt passed the checks: %s\nthe job would fail before delivery; a buyer would see %q and be refunded\n", res.Error, publicClass(res.Error))
	default:
		fmt.Fprintf(w, "verification failed: a buyer would be refunded\n")
	}
}

// printAttempts prints the tries of an openai or mcp handler: the checks
// each failed before it was retried, and the tokens used.
func printAttempts(w io.Writer, res market.TestResult) {
	if len(res.Attempts) < 2 && (res.Usage == nil || res.Usage.TotalTokens == 0) {
		return
	}
	for _, a := range res.Attempts {
		switch {
		case a.Passed:
			fmt.Fprintf(w, "attempt %d: passed the checks\n", a.Number)
		case a.Error != "":
			fmt.Fprintf(w, "attempt %d: %s\n", a.Number, a.Error)
		default:
			for _, ch := range a.Failed {
				fmt.Fprintf(w, "attempt %d: FAILED %s: %s\n", a.Number, ch.Name, ch.Detail)
			}
		}
	}
	if u := res.Usage; u != nil {
		fmt.Fprintf(w, "tokens: %d prompt + %d completion = %d, in %d requests\n", u.PromptTokens, u.CompletionTokens, u.TotalTokens, u.Requests)
	}
}

// publicClass is the part of a handler error a buyer learns: up to the
// first ": " after the class.
func publicClass(msg string) string {
	for i := 0; i+1 < len(msg); i++ {
		if msg[i] == ':' && msg[i+1] == ' ' {
			return msg[:i]
		}
	}
	return msg
}
