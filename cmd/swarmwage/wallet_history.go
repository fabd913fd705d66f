package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/node"
)

const (
	daysFlag  = "days"
	sinceFlag = "since"
)

// walletHistoryCommand sums the escrow records per day and per capability.
func walletHistoryCommand() *cli.Command {
	return &cli.Command{
		Name:      "history",
		Usage:     "what this node spent and earned, per day and per capability, from its escrow records",
		ArgsUsage: " ",
		Description: `Sums the escrow records of the jobs bought and sold since a day, by the local
calendar day each job was hired and by capability. Bought: hires, spent (paid
to sellers), held (still locked), refunded. Sold: sales, earned, pending
(released by this node's timer, awaiting the buyer's confirmation).`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: daysFlag, Value: 30, Usage: "the last `N` days, today included (0: all)"},
			&cli.StringFlag{Name: sinceFlag, Usage: "from this local day on, as `YYYY-MM-DD` (instead of --days)"},
			jsonOutFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErrf("wallet history takes no arguments")
			}
			since, err := historySince(c, time.Now())
			if err != nil {
				return err
			}
			h, err := walletHistory(c, since)
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, h)
			}
			printHistory(c, h)
			return nil
		},
	}
}

// historySince is local midnight of the first day asked for; zero for all.
func historySince(c *cli.Context, now time.Time) (time.Time, error) {
	if s := c.String(sinceFlag); s != "" {
		if c.IsSet(daysFlag) {
			return time.Time{}, usageErrf("give --since or --days, not both")
		}
		t, err := time.ParseInLocation(time.DateOnly, s, time.Local)
		if err != nil {
			return time.Time{}, usageErrf("--since %q: want a day as YYYY-MM-DD", s)
		}
		return t, nil
	}
	days := c.Int(daysFlag)
	switch {
	case days < 0:
		return time.Time{}, usageErrf("--days %d: want 0 (all) or more", days)
	case days == 0:
		return time.Time{}, nil
	}
	y, m, d := now.Date()
	return time.Date(y, m, d-(days-1), 0, 0, 0, 0, time.Local), nil
}

func walletHistory(c *cli.Context, since time.Time) (escrow.History, error) {
	var h escrow.History
	err := withWalletRead(c, func(env *node.Env) error {
		var err error
		h, err = env.History(c.Context, since)
		return err
	})
	return h, err
}

func printHistory(c *cli.Context, h escrow.History) {
	w := c.App.Writer
	if h.Total.Hires == 0 && h.Total.Sales == 0 {
		if h.Since.IsZero() {
			fmt.Fprintln(w, "no jobs bought or sold yet")
		} else {
			fmt.Fprintf(w, "no jobs bought or sold since %s\n", h.Since.Format(time.DateOnly))
		}
		return
	}
	table := func(title string, rows []escrow.HistoryRow, name func(escrow.HistoryRow) string) {
		tw := newTableFlags(w, tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\tHIRES\tSPENT\tHELD\tREFUNDED\tSALES\tEARNED\tPENDING\t\n", title)
		for _, r := range append(rows, h.Total) {
			n := name(r)
			if n == "" {
				n = "total"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t\n", n, r.Hires, amt(r.Spent), amt(r.Held), amt(r.Refunded), r.Sales, amt(r.Earned), amt(r.Pending))
		}
		tw.Flush()
	}
	table("DAY", h.Days, func(r escrow.HistoryRow) string { return r.Date })
	fmt.Fprintln(w)
	table("CAPABILITY", h.Capabilities, func(r escrow.HistoryRow) string { return r.Capability })
}

func amt(a escrow.Amount) string { return escrow.FormatAmount(int64(a)) }
