package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/p2p"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show the node's health: peers, network, reachability, relay addresses, hole punches, listings, balance, jobs in flight",
		ArgsUsage: " ",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrf("status takes no arguments, got %q", c.Args().First())
			}
			info, err := nodeStatus(c)
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, info)
			}
			printStatus(c, info)
			return nil
		},
	}
}

// nodeStatus asks the daemon, or describes the repo offline when none runs.
func nodeStatus(c *cli.Context) (controlapi.StatusInfo, error) {
	var info controlapi.StatusInfo
	err := withEnv(c, node.ReadOnly, func(env *node.Env) error {
		var err error
		info, err = env.Status(c.Context, buildVersion())
		return err
	})
	return info, err
}

func printStatus(c *cli.Context, s controlapi.StatusInfo) {
	w := c.App.Writer
	state := "online"
	if !s.Online {
		state = "offline (start 'swarmwage daemon')"
	}
	fmt.Fprintf(w, "peer id:       %s\n", s.PeerID)
	if s.Version != "" {
		fmt.Fprintf(w, "version:       %s\n", s.Version)
	}
	fmt.Fprintf(w, "network:       %s, %s\n", s.Network, state)
	fmt.Fprintf(w, "peers:         %d connected, %d in the DHT routing table\n", s.Peers, s.DHTPeers)
	fmt.Fprintf(w, "reachability:  %s%s\n", s.Reachability, reachabilityNote(s))
	for _, a := range s.RelayAddrs {
		fmt.Fprintf(w, "relay address: %s\n", a)
	}
	hp := s.HolePunch
	switch {
	case hp.Last == nil:
		fmt.Fprintf(w, "hole punches:  none yet\n")
	default:
		last := "failed"
		switch {
		case hp.Last.Success:
			last = "worked"
		case hp.Last.Error != "":
			last = "failed: " + hp.Last.Error
		}
		fmt.Fprintf(w, "hole punches:  %d of %d worked; the last (%s, with %s) %s\n", hp.Successes, hp.Attempts, hp.Last.At, hp.Last.Peer, last)
	}
	for _, l := range s.Listings {
		when := "not yet announced"
		if l.LastAnnounced != "" {
			when = "announced " + l.LastAnnounced
		}
		fmt.Fprintf(w, "selling:       %s at %s, %s\n", l.Capability, l.Price, when)
	}
	b := s.Balance
	fmt.Fprintf(w, "balance:       %s available, %s held, %s earned, %s pending\n",
		escrow.FormatAmount(b.Available), escrow.FormatAmount(b.Held), escrow.FormatAmount(b.Earned), escrow.FormatAmount(b.Pending))
	fmt.Fprintf(w, "jobs running:  %d bought, %d sold\n", s.JobsInFlight.Bought, s.JobsInFlight.Sold)
}

// reachabilityNote says what a reachability means for a seller.
func reachabilityNote(s controlapi.StatusInfo) string {
	switch {
	case !s.Online:
		return ""
	case s.Reachability == p2p.ReachabilityPrivate && len(s.RelayAddrs) == 0:
		return " (behind NAT; no relay reservation yet, so buyers cannot reach this node)"
	case s.Reachability == p2p.ReachabilityPrivate:
		return " (behind NAT; buyers reach this node through its relay)"
	case s.Reachability == p2p.ReachabilityUnknown:
		return " (AutoNAT has not decided yet)"
	}
	return ""
}
