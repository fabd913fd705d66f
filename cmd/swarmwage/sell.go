package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/skillcard"
	"github.com/swarmwage/swarmwage/verify"
)

func sellCommand() *cli.Command {
	return &cli.Command{
		Name:  "sell",
		Usage: "manage what this node sells",
		Subcommands: []*cli.Command{
			sellAddCommand(),
			sellListCommand(),
			sellRemoveCommand(),
			sellApplyCommand(),
			sellTestCommand(),
		},
	}
}

func sellAddCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "list a capability for sale (announced at once when a daemon runs, else when it starts)",
		ArgsUsage: "CAP",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "price", Usage: "price per job in credits (tokens on evm), e.g. 0.05 (required)"},
			&cli.StringFlag{Name: "handler", Value: market.HandlerBuiltin, Usage: "what runs the jobs: builtin, exec:CMD or http:URL"},
			&cli.StringFlag{Name: "input-schema", Usage: "JSON Schema file of the input (capabilities outside the taxonomy only)"},
			&cli.StringFlag{Name: "output-schema", Usage: "JSON Schema file of the output (capabilities outside the taxonomy only)"},
			&cli.StringFlag{Name: "skillcard", Usage: "sell this SkillCard file, run by its binding (CAP optional: default custom.<publisher>.<slug>)"},
			&cli.StringSliceFlag{Name: "env", Usage: "pass the daemon's environment variable `NAME` to an exec handler or SkillCard cli binding, which otherwise get only PATH, HOME, TMPDIR and LANG (repeatable)"},
			jsonOutFlag(),
		}, runnerFlags()...),
		Action: func(c *cli.Context) error {
			if c.IsSet("from-mcp") {
				return sellFromMCP(c)
			}
			req, err := addListingRequest(c)
			if err != nil {
				return err
			}
			info, err := addListing(c, req)
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, info)
			}
			fmt.Fprintf(c.App.Writer, "selling %s at %s %s (handler %s)\n", info.Capability, info.Price, railUnit(c), info.Handler)
			return nil
		},
	}
}

// orPlaceholder is s, or placeholder when s is empty.
func orPlaceholder(s, placeholder string) string {
	if s == "" {
		return placeholder
	}
	return s
}

// addListingRequest checks the flags and argument of 'sell add'.
func addListingRequest(c *cli.Context) (controlapi.AddListingRequest, error) {
	card := c.String("skillcard")
	if c.NArg() > 1 || (c.NArg() == 0 && card == "") {
		return controlapi.AddListingRequest{}, usageErrf("sell add needs exactly one capability ID, as: sell add --price 0.05 CAP")
	}
	req := controlapi.AddListingRequest{Capability: c.Args().First(), Price: c.String("price"), Handler: c.String("handler"), Env: c.StringSlice("env")}
	if err := market.CheckEnvNames(req.Env); err != nil {
		return req, usageErrf("--%v", err)
	}
	if card != "" {
		if c.IsSet("handler") || c.IsSet("input-schema") || c.IsSet("output-schema") {
			return req, usageErrf("--skillcard brings its own handler and schemas: drop --handler, --input-schema and --output-schema")
		}
		if err := readSkillCard(card, &req); err != nil {
			return req, err
		}
	}
	if req.Capability != "" {
		if err := verify.CheckKnown(req.Capability); err != nil {
			return req, usageErr(err)
		}
	}
	if !c.IsSet("price") {
		return req, usageErrf("sell add needs --price, the price of one job in %s, as: sell add --price 0.05 %s", railUnit(c), orPlaceholder(req.Capability, "CAP"))
	}
	if _, err := parseAmountFlag("price", req.Price, railUnit(c)); err != nil {
		return req, err
	}
	if card == "" {
		if err := resolveHandler(&req); err != nil {
			return req, err
		}
	}
	if err := addRunnerFields(c, &req); err != nil {
		return req, err
	}
	for _, f := range []struct {
		flag string
		dst  *[]byte
	}{{"input-schema", &req.InputSchema}, {"output-schema", &req.OutputSchema}} {
		if path := c.String(f.flag); path != "" {
			data, err := os.ReadFile(path)
			if err != nil {
				return req, usageErrf("--%s: %v", f.flag, err)
			}
			*f.dst = data
		}
	}
	return req, nil
}

func addListing(c *cli.Context, req controlapi.AddListingRequest) (info controlapi.ListingInfo, err error) {
	err = withEnv(c, node.ReadWrite, func(env *node.Env) error {
		info, err = env.AddListing(c.Context, req)
		return apiUsage(err)
	})
	return info, err
}

// apiUsage maps a 400 answer of the control API to a usage error.
func apiUsage(err error) error {
	var ae *controlapi.APIError
	if errors.As(err, &ae) && ae.Status == 400 {
		return usageErr(err)
	}
	if errors.Is(err, verify.ErrInvalidID) || errors.Is(err, controlapi.ErrBadRequest) {
		return usageErr(err)
	}
	return err
}

func sellListCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list what this node sells",
		ArgsUsage: " ",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			info, err := listings(c)
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, info)
			}
			if len(info.Listings) == 0 {
				fmt.Fprintln(c.App.Writer, "nothing listed; add one with: swarmwage sell add --price 0.05 compute.statistics.mean")
				return nil
			}
			tw := newTable(c.App.Writer)
			fmt.Fprintf(tw, "CAPABILITY\tPRICE\tHANDLER\n")
			for _, l := range info.Listings {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", l.Capability, l.Price, l.Handler)
			}
			return tw.Flush()
		},
	}
}

func listings(c *cli.Context) (info controlapi.ListingsInfo, err error) {
	err = withEnv(c, node.ReadOnly, func(env *node.Env) error {
		info, err = env.Listings(c.Context)
		return err
	})
	return info, err
}

func sellRemoveCommand() *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Usage:     "stop selling a capability",
		ArgsUsage: "CAP",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("sell remove needs exactly one capability ID")
			}
			capID := c.Args().First()
			if err := verify.CheckID(capID); err != nil {
				return usageErr(err)
			}
			if err := removeListing(c, capID); err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, map[string]string{"removed": capID})
			}
			fmt.Fprintf(c.App.Writer, "no longer selling %s\n", capID)
			return nil
		},
	}
}

func removeListing(c *cli.Context, capID string) error {
	return withEnv(c, node.ReadWrite, func(env *node.Env) error {
		return env.RemoveListing(c.Context, capID)
	})
}

// resolveHandler checks --handler and, for an exec handler, that its
// program exists: it is sent as an absolute path (found in this shell's
// PATH, or relative to the working directory), with the working directory,
// where the handler will run, so a daemon started elsewhere runs the same.
func resolveHandler(req *controlapi.AddListingRequest) error {
	h, err := market.ParseHandler(req.Handler)
	if err != nil {
		return usageErrf("--handler: %v", err)
	}
	if h.Kind != market.HandlerExec {
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if h, err = market.ResolveExec(h, wd); err != nil {
		return usageErrf("--handler %s: %v", req.Handler, err)
	}
	req.Handler, req.Dir = h.String(), wd
	return nil
}

// readSkillCard reads and checks a SkillCard file for 'sell add'.
func readSkillCard(path string, req *controlapi.AddListingRequest) error {
	card, err := skillcard.ParseFile(path)
	if err != nil {
		return usageErrf("--skillcard %s: %v", path, err)
	}
	if err := card.Err(); err != nil {
		return usageErrf("--skillcard %s is not a valid SkillCard (run 'swarmwage skillcard validate %s'): %v", path, path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	req.SkillCard, req.SkillCardDir, req.Handler = card.Canonical(), dir, market.HandlerSkillCard
	return nil
}
