package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/sellerfile"
)

const (
	diffFlag  = "diff"
	pruneFlag = "prune"
)

// sellApplyCommand applies a seller file (examples/seller.toml): its node
// keys to config.toml and its [[listing]] tables to the listings; see
// sellerfile.File for the format.
func sellApplyCommand() *cli.Command {
	return &cli.Command{
		Name:      "apply",
		Usage:     "apply a seller file (examples/seller.toml): its node keys to config.toml, its listings to what this node sells; run it while no daemon runs",
		ArgsUsage: "FILE",
		Description: `Reads a seller file: the keys of config.toml plus [[listing]] tables
(capability, price, handler or skillcard). Everything is checked before anything
changes. The node keys the file sets are written to the repo's config.toml
(atomically; keys it leaves out keep their values), and every listing is stored,
replacing the listing of the same capability. Listings the file does not have
are kept, or removed with --prune. --diff shows what would change and changes
nothing. The daemon announces the listings when it starts.
Exit codes: 0 ok, 1 failure, 2 bad file or a daemon is running.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: diffFlag, Usage: "show what would change in config.toml and the listings; change nothing"},
			&cli.BoolFlag{Name: pruneFlag, Usage: "also remove the listings the file does not have"},
			jsonOutFlag(),
		},
		Action: runSellApply,
	}
}

func runSellApply(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrf("sell apply needs exactly one seller file, as: sell apply examples/seller.toml")
	}
	sf, params, err := sellerfile.Load(c.Args().First())
	if err != nil {
		return usageErr(err)
	}
	access := node.ReadWrite
	if c.Bool(diffFlag) {
		access = node.ReadOnly
	}
	var res sellerfile.Result
	err = withEnv(c, access, func(env *node.Env) error {
		if env.Online() {
			return usageErrf("a daemon runs on %s: stop it, run 'sell apply' again, then start it (it reads config.toml and announces the listings when it starts)", env.Repo.Dir)
		}
		res, err = applySellerFile(c, env.Local(), sf, params)
		return apiUsage(err)
	})
	if err != nil {
		return err
	}
	if c.Bool(jsonFlag) {
		return printJSON(c, res)
	}
	printSellApply(c, res)
	return nil
}

// applySellerFile plans the file against the repo and, without --diff,
// applies it. A file that does not fit the repo is a usage error.
func applySellerFile(c *cli.Context, l *node.Local, sf sellerfile.File, params []market.ListingParams) (sellerfile.Result, error) {
	plan, err := sellerfile.PlanApply(c.Context, l.Store, sf, params, l.Repo.Config, c.Bool(pruneFlag))
	if err != nil {
		return sellerfile.Result{}, usageErr(err)
	}
	if c.Bool(diffFlag) {
		return plan.Result(), nil
	}
	return plan.Apply(c.Context, l.Store, l.Repo)
}

func printSellApply(c *cli.Context, res sellerfile.Result) {
	w := c.App.Writer
	tw := newTable(w)
	fmt.Fprintf(tw, "CAPABILITY\tCHANGE\tPRICE\tHANDLER\n")
	counts := map[string]int{}
	for _, ch := range res.Changes {
		counts[ch.Action]++
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ch.Capability, ch.Action, ch.Price, ch.Handler)
		if ch.Was != "" {
			fmt.Fprintf(tw, "\twas\t%s\t\n", ch.Was)
		}
	}
	tw.Flush()
	verb := "written to"
	if !res.Applied {
		verb = "would be written to"
	}
	for _, n := range res.ConfigNotes {
		fmt.Fprintf(w, "config.toml: %s (%s config.toml)\n", n, verb)
	}
	if counts[sellerfile.ListingKeep] > 0 {
		fmt.Fprintf(w, "%d listing(s) not in the file are kept; --prune removes them\n", counts[sellerfile.ListingKeep])
	}
	summary := fmt.Sprintf("%d added, %d updated, %d unchanged, %d removed; %d config key(s)",
		counts[sellerfile.ListingAdd], counts[sellerfile.ListingUpdate], counts[sellerfile.ListingUnchanged], counts[sellerfile.ListingRemove], len(res.ConfigChanges))
	if !res.Applied {
		fmt.Fprintf(w, "would apply: %s (--diff: nothing changed)\n", summary)
		return
	}
	fmt.Fprintf(w, "applied: %s; start 'swarmwage daemon' to announce the listings\n", summary)
}
