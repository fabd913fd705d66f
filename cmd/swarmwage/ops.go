package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/node"
)

// Operating a running daemon without a restart: 'peers connect ADDR' and
// 'shutdown'.

// shutdownWait bounds how long 'shutdown' waits for the daemon to be gone.
const shutdownWait = 30 * time.Second

func peersConnectCommand() *cli.Command {
	return &cli.Command{
		Name:      "connect",
		Usage:     "connect the running daemon to a peer now, without a restart (ADDR ends in /p2p/<peer-id>, as 'swarmwage id' prints it)",
		ArgsUsage: "ADDR",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("peers connect needs one multiaddr ending in /p2p/<peer-id>, as: peers connect /ip4/192.0.2.1/tcp/4747/p2p/12D3KooW...")
			}
			if _, err := node.ParseBootstrap([]string{c.Args().First()}); err != nil {
				return usageErr(err)
			}
			cl, err := needDaemon(c)
			if err != nil {
				return err
			}
			info, err := cl.Connect(c.Context, c.Args().First())
			if err != nil {
				return apiUsage(err)
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, info)
			}
			fmt.Fprintf(c.App.Writer, "connected to %s\n", info.PeerID)
			return nil
		},
	}
}

func shutdownCommand() *cli.Command {
	return &cli.Command{
		Name:      "shutdown",
		Usage:     "stop the running daemon through its control API, and wait until it is gone",
		ArgsUsage: " ",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErrf("shutdown takes no arguments")
			}
			dir, err := repoDir(c)
			if err != nil {
				return err
			}
			cl, err := needDaemon(c)
			if err != nil {
				return err
			}
			info, err := cl.Shutdown(c.Context)
			if err != nil {
				return err
			}
			deadline := time.Now().Add(shutdownWait)
			for node.DaemonRunning(dir) {
				if time.Now().After(deadline) {
					return errors.New("the daemon was asked to stop and is still running after 30s; see its log")
				}
				time.Sleep(100 * time.Millisecond)
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, info)
			}
			fmt.Fprintln(c.App.Writer, "daemon stopped")
			return nil
		},
	}
}
