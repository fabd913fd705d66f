package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market/route"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/verify"
)

func findCommand() *cli.Command {
	return &cli.Command{
		Name:      "find",
		Usage:     "find sellers of a capability (or of a domain prefix such as 'text'); needs a running daemon. Exit 3 when the search timed out with no seller found",
		ArgsUsage: "CAP",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "at most this many sellers"},
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "give up after this long"},
			&cli.BoolFlag{Name: "explain", Usage: "rank the sellers as a hire would ([[policy]], QoS) and say why each is chosen, ranked lower or dropped"},
			&cli.StringFlag{Name: "qos", Usage: "with --explain: rank for P0 (fastest) .. P3 (cheapest)"},
			&cli.StringFlag{Name: "rail", Usage: "only sellers paid on this rail: credits or evm (a hire pays only sellers on this node's rail)"},
			&cli.BoolFlag{Name: "refresh", Usage: "ask the DHT now instead of the prefetch cache (a seller listed seconds ago may not be cached yet)"},
			jsonOutFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("find needs exactly one capability ID, as: find text.summarize.short")
			}
			capID := c.Args().First()
			if err := verify.CheckID(capID); err != nil && verify.CheckPrefix(capID) != nil {
				return usageErr(err)
			}
			limit, timeout := c.Int("limit"), c.Duration("timeout")
			if limit < 1 || limit > 200 {
				return usageErrf("--limit %d: want 1 to 200", limit)
			}
			if timeout <= 0 || timeout > 2*time.Minute {
				return usageErrf("--timeout %s: want more than 0 and at most 2m", timeout)
			}
			qos := c.String("qos")
			if qos != "" {
				if _, err := route.ParseQoS(qos); err != nil {
					return usageErrf("--qos: %v", err)
				}
			}
			rail := c.String("rail")
			if rail != "" && rail != node.RailCredits && rail != node.RailEVM {
				return usageErrf("--rail %q: want %s or %s", rail, node.RailCredits, node.RailEVM)
			}
			cl, err := needDaemon(c)
			if err != nil {
				return err
			}
			_, stop := spinner(c, "searching the network for sellers of "+capID)
			info, err := cl.FindQuery(c.Context, controlapi.FindQuery{Capability: capID, Limit: limit, Timeout: timeout, Explain: c.Bool("explain"), QoS: qos, Refresh: c.Bool("refresh")})
			stop()
			if err != nil {
				return apiUsage(err)
			}
			if rail != "" {
				info = onRail(info, rail)
			}
			if c.Bool(jsonFlag) {
				if err := printJSON(c, info); err != nil {
					return err
				}
			} else {
				printFind(c, info)
				if r := info.Routing; r != nil {
					printExplain(c.App.Writer, r.Capability, r.Requested, r.QoS, r.Policy, r.Candidates)
				}
			}
			if info.TimedOut && info.SellerCount == 0 {
				return exitErr(exitNoSeller, fmt.Errorf("the search for %s timed out after %s with no seller found; try a longer --timeout", capID, timeout))
			}
			if info.TimedOut {
				fmt.Fprintf(c.App.ErrWriter, "the search timed out after %s: sellers may be missing; try a longer --timeout\n", timeout)
			}
			return nil
		},
	}
}

// onRail keeps the sellers of info paid on rail.
func onRail(info controlapi.FindInfo, rail string) controlapi.FindInfo {
	kept := []controlapi.SellerInfo{}
	peers := map[string]bool{}
	for _, s := range info.Sellers {
		if s.Rail == rail {
			kept = append(kept, s)
			peers[s.PeerID] = true
		}
	}
	info.Sellers, info.SellerCount = kept, len(peers)
	return info
}

func printFind(c *cli.Context, info controlapi.FindInfo) {
	w := c.App.Writer
	if len(info.Sellers) == 0 {
		fmt.Fprintf(w, "no sellers of %s found", info.Capability)
		if info.DHTPeers == 0 {
			fmt.Fprint(w, "; this node has no DHT peers yet: check 'swarmwage peers' and the bootstrap peers ('daemon --bootstrap')")
		}
	} else {
		tw := newTable(w)
		fmt.Fprintf(tw, "PEER\tCAPABILITY\tPRICE\tRAIL\tRTT\tRATING\tREPUTATION\tADDRESS\n")
		for _, s := range info.Sellers {
			addr, rating, rep := "", "-", "-"
			if len(s.Addrs) > 0 {
				addr = s.Addrs[0]
			}
			if s.Ratings > 0 {
				rating = fmt.Sprintf("%.1f (%d)", s.Rating, s.Ratings)
			}
			if r := s.Reputation; r != nil {
				rep = fmt.Sprintf("%.2f (%d paying, %s on chain)", r.Score, r.PayingBuyers, r.Volume)
			}
			rail := s.Rail
			if !s.Payable {
				rail += " (this node cannot pay it)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1fms\t%s\t%s\t%s\n", s.PeerID, s.Capability, s.Price, rail, s.RTTMS, rating, rep, addr)
		}
		tw.Flush()
		for _, s := range info.Sellers {
			if s.RiskTier >= 3 || len(s.RequiredPermissions) > 0 {
				fmt.Fprintf(w, "%s sells %s as a SkillCard (risk tier %d; needs permissions: %s)\n",
					s.PeerID, s.Capability, s.RiskTier, strings.Join(s.RequiredPermissions, ", "))
			}
		}
		fmt.Fprintf(w, "%d seller(s)", info.SellerCount)
		if n := len(info.Sellers); n != info.SellerCount {
			fmt.Fprintf(w, " with %d listings", n)
		}
	}
	if info.Rejected > 0 {
		fmt.Fprintf(w, "; %d rejected (bad or mismatching signed listing)", info.Rejected)
	}
	fmt.Fprintln(w)
}

// printExplain writes a routing decision as a table: every candidate, its
// rank or why it was dropped.
func printExplain(w io.Writer, capID, requested string, qos route.QoS, pol *route.Policy, cands []route.Decision) {
	head := "routing " + capID
	if requested != "" {
		head += " (asked for " + requested + ", tombstoned)"
	}
	head += " with QoS " + string(qos)
	if pol != nil {
		head += ", policy " + pol.Match
	}
	fmt.Fprintln(w, head)
	if len(cands) == 0 {
		fmt.Fprintln(w, "  no candidates: no seller of it was found")
		return
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "  RANK\tSELLER\tPRICE\tRATING\tLATENCY\tWHY")
	for _, d := range cands {
		rank := "-"
		if d.Rank > 0 {
			rank = fmt.Sprint(d.Rank)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%.1f\t%.0f ms\t%s\n", rank, shortPeer(d.Peer.String()), escrow.FormatAmount(d.Price), d.Rating, d.LatencyMS, d.Reason)
	}
	tw.Flush()
}
