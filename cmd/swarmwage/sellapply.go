package main

import (
	"errors"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/demo"
	"github.com/swarmwage/swarmwage/node"
)

// sellApplyCommand stores every [[listing]] of a seller file
// (examples/seller.toml); see demo.SellerFile for the format.
func sellApplyCommand() *cli.Command {
	return &cli.Command{
		Name:      "apply",
		Usage:     "list everything a seller file sells (examples/seller.toml); run it while no daemon runs",
		ArgsUsage: "FILE",
		Description: `Reads a seller file: the keys of config.toml plus [[listing]] tables
(capability, price, handler or skillcard). Every listing is checked before any
is stored; listings of the same capabilities are replaced. The node keys are
compared with the repo's config.toml and differences are reported: the repo's
config is what the daemon uses. The daemon announces the listings when it
starts. Exit codes: 0 ok, 1 failure, 2 bad file or a daemon is running.`,
		Flags: []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("sell apply needs exactly one seller file, as: sell apply examples/seller.toml")
			}
			sf, params, err := demo.LoadSellerFile(c.Args().First())
			if err != nil {
				return usageErr(err)
			}
			repo, err := openRepo(c)
			if err != nil {
				return err
			}
			if node.DaemonRunning(repo.Dir) {
				return usageErrf("a daemon runs on %s: stop it, run 'sell apply' again, then start it (it announces the listings when it starts)", repo.Dir)
			}
			l, err := openLocal(c)
			if err != nil {
				return err
			}
			offers, err := demo.ApplyListings(c.Context, l.Store, params)
			err = errors.Join(err, l.Close())
			if err != nil {
				return apiUsage(err)
			}
			res := node.ListingsInfo{Listings: []node.ListingInfo{}}
			for _, o := range offers {
				res.Listings = append(res.Listings, node.ListingInfo{
					Capability: o.Signed.Listing.Capability, Price: o.Signed.Listing.Price.String(),
					Handler: o.Handler.String(), SkillCardHash: o.Signed.Listing.SkillCardHash,
				})
			}
			notes := configNotes(sf.Config, repo.Config)
			if c.Bool(jsonFlag) {
				return printJSON(c, struct {
					node.ListingsInfo
					ConfigNotes []string `json:"config_notes"`
				}{res, notes})
			}
			tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "CAPABILITY\tPRICE\tHANDLER\n")
			for _, li := range res.Listings {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", li.Capability, li.Price, li.Handler)
			}
			tw.Flush()
			for _, n := range notes {
				fmt.Fprintf(c.App.ErrWriter, "note: %s\n", n)
			}
			fmt.Fprintf(c.App.Writer, "%d listing(s) stored; start 'swarmwage daemon' to announce them\n", len(res.Listings))
			return nil
		},
	}
}

// configNotes names the node keys where the seller file and the repo's
// config differ.
func configNotes(file, repo node.Config) []string {
	notes := []string{}
	diff := func(key string, same bool, fileVal, repoVal any) {
		if !same {
			notes = append(notes, fmt.Sprintf("%s: the seller file says %v, the repo's config.toml has %v; the repo's config is used (edit it to change)", key, fileVal, repoVal))
		}
	}
	diff("network", file.Network == repo.Network, file.Network, repo.Network)
	diff("listen", slices.Equal(file.Listen, repo.Listen), file.Listen, repo.Listen)
	diff("bootstrap", slices.Equal(file.Bootstrap, repo.Bootstrap), file.Bootstrap, repo.Bootstrap)
	diff("api", file.API == repo.API, file.API, repo.API)
	diff("market", file.Market == repo.Market, file.Market, repo.Market)
	return notes
}
