package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/gateway"
	"github.com/swarmwage/swarmwage/node"
)

const (
	networkFlag   = "network"
	listenFlag    = "listen"
	bootstrapFlag = "bootstrap"
	apiFlag       = "api"

	newIdentityFlag  = "new-identity"
	relayServiceFlag = "relay-service"
	gatewayFlag      = "gateway"
	logFileFlag      = "log-file"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "create a repo: identity key, config.toml and database (and with --settlement evm an evm.key)",
		ArgsUsage: " ",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: networkFlag, Value: node.DefaultNetwork, Usage: "network to join: 'amino' (public) or a private network name"},
			&cli.StringSliceFlag{Name: listenFlag, Usage: "libp2p listen multiaddr (repeatable; default TCP and QUIC on all interfaces, port 4747)"},
			&cli.StringSliceFlag{Name: bootstrapFlag, Usage: "bootstrap peer multiaddr with /p2p/ (repeatable)"},
			&cli.StringFlag{Name: apiFlag, Value: node.DefaultAPIAddr, Usage: "control API address on loopback"},
			&cli.BoolFlag{Name: newIdentityFlag, Usage: "give an existing repo a new identity key and keep its data/ (wallet, escrow, jobs, listings): for a lost identity.key with no backup"},
			jsonOutFlag(),
		}, settlementFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrf("init takes no arguments, got %q", c.Args().First())
			}
			dir, err := repoDir(c)
			if err != nil {
				return err
			}
			if c.Bool(newIdentityFlag) {
				return initNewIdentity(c, dir)
			}
			cfg := node.DefaultConfig(c.String(networkFlag))
			if l := c.StringSlice(listenFlag); len(l) > 0 {
				cfg.Listen = l
			}
			cfg.Bootstrap = c.StringSlice(bootstrapFlag)
			cfg.API = c.String(apiFlag)
			if cfg.Settlement, err = settlementConfig(c); err != nil {
				return err
			}
			if cfg.Settlement.Rail == node.RailEVM {
				if err := checkChain(c, cfg.Settlement); err != nil {
					return err
				}
			}
			repo, err := node.Init(dir, cfg)
			if err != nil {
				return usageErr(err)
			}
			res := struct {
				Repo    string `json:"repo"`
				PeerID  string `json:"peer_id"`
				Network string `json:"network"`
				Rail    string `json:"rail"`
				Address string `json:"address,omitempty"`
			}{dir, repo.ID.String(), cfg.Network, cfg.Settlement.RailName(), ""}
			if cfg.Settlement.Rail == node.RailEVM {
				if res.Address, err = initRailKey(c, repo); err != nil {
					return err
				}
				evmKeyShared(c)
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, res)
			}
			fmt.Fprintf(c.App.Writer, "initialized swarmwage repo at %s\npeer id: %s\nnetwork: %s\n", res.Repo, res.PeerID, res.Network)
			if res.Address != "" {
				fmt.Fprintf(c.App.Writer, "settlement: evm, address %s (send it the token and gas money, then 'swarmwage wallet deposit AMOUNT')\n", res.Address)
			}
			fmt.Fprintln(c.App.Writer, "next: swarmwage daemon")
			return nil
		},
	}
}

// initNewIdentity is 'init --new-identity': a new key for the repo at
// dir, its data kept, and what that means for the jobs still open.
func initNewIdentity(c *cli.Context, dir string) error {
	for _, f := range []string{networkFlag, listenFlag, bootstrapFlag, apiFlag} {
		if c.IsSet(f) {
			return usageErrf("--%s with --new-identity: the repo keeps its config.toml; edit it there", f)
		}
	}
	_, info, err := node.NewIdentity(c.Context, dir)
	var nr node.NoRepoError
	switch {
	case errors.As(err, &nr):
		return usageErr(err)
	case errors.Is(err, node.ErrRepoLocked):
		return exitErr(exitFailure, fmt.Errorf("%w; stop the daemon first, then run init --new-identity", err))
	case err != nil:
		return err
	}
	if c.Bool(jsonFlag) {
		return printJSON(c, info)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "new identity for the repo at %s\npeer id: %s\n", info.Repo, info.PeerID)
	switch {
	case info.PreviousPeerID != "":
		fmt.Fprintf(w, "previous peer id: %s (its key is kept at %s)\n", info.PreviousPeerID, info.OldKeyKept)
	case info.OldKeyKept != "":
		fmt.Fprintf(w, "the unreadable old identity.key is kept at %s\n", info.OldKeyKept)
	default:
		fmt.Fprintln(w, "the old identity.key was missing")
	}
	fmt.Fprintf(w, "kept: %s (wallet, escrow, jobs); %d listing(s) signed again with the new key\n", filepath.Join(info.Repo, "data"), info.Listings)
	open := info.OpenJobs.Bought + info.OpenJobs.Sold
	fmt.Fprintf(w, "open jobs: %d (%d bought, %d sold)\n", open, info.OpenJobs.Bought, info.OpenJobs.Sold)
	if open > 0 {
		fmt.Fprintln(w, "  Their locks and deliveries were signed by the old key, and peers know this node by the old peer ID,")
		fmt.Fprintln(w, "  so this node can no longer sign or receive decisions for them: each settles by its timer when the")
		fmt.Fprintln(w, "  daemon runs (a locked job refunds at its deadline, a delivered one releases when its verification")
		fmt.Fprintln(w, "  window ends).")
	}
	fmt.Fprintln(w, "Peers find this node under the new peer ID from now on: update any --bootstrap entry that names the old one.")
	fmt.Fprintln(w, "next: back up identity.key, then swarmwage daemon")
	return nil
}

func daemonCommand() *cli.Command {
	return &cli.Command{
		Name:      "daemon",
		Usage:     "run the node until SIGINT or SIGTERM",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: networkFlag, Usage: "override the repo's network"},
			&cli.StringSliceFlag{Name: listenFlag, Usage: "libp2p listen multiaddr (repeatable; overrides config)"},
			&cli.StringSliceFlag{Name: bootstrapFlag, Usage: "bootstrap peer multiaddr with /p2p/ (repeatable; overrides config)"},
			&cli.StringFlag{Name: apiFlag, Usage: "control API host:port on loopback (port 0: any free port)"},
			&cli.StringFlag{Name: "agent-http", Usage: "also serve the agent endpoint (listings, schemas) over plain HTTP on host:port"},
			&cli.StringFlag{Name: gatewayFlag, Usage: "serve the A2A and x402 gateway for agents that do not run swarmwage on `ADDR` (host:port; config [gateway] listen)"},
			&cli.BoolFlag{Name: relayServiceFlag, Usage: "run a circuit relay v2 service for nodes behind NAT (config [p2p] relay_service)"},
			&cli.StringFlag{Name: "log-level", Value: "warn", Usage: "debug, info, warn or error (default warn; info with --log-file)"},
			&cli.StringFlag{Name: logFileFlag, Usage: "write the log (and every exec handler's stderr, a line at a time) to `PATH`, appended to, created 0600, instead of stderr; 'swarmwage logs [-f]' prints it"},
			jsonOutFlag(),
		},
		Action: runDaemon,
	}
}

func runDaemon(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrf("daemon takes no arguments, got %q", c.Args().First())
	}
	repo, err := openRepo(c)
	if err != nil {
		return err
	}
	levelText, logOut := c.String("log-level"), c.App.ErrWriter
	var logFile *os.File
	if p := c.String(logFileFlag); p != "" {
		if logFile, err = node.OpenLogFile(p); err != nil {
			return usageErrf("--log-file: %w", err)
		}
		defer logFile.Close()
		logOut = logFile
		if !c.IsSet("log-level") {
			// A file takes more than a terminal: the jobs sold and the
			// handlers' stderr are logged at info.
			levelText = "info"
		}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(levelText)); err != nil {
		return usageErrf("--log-level %q: want debug, info, warn or error", levelText)
	}
	logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	opts := node.Options{
		Network:      c.String(networkFlag),
		Listen:       c.StringSlice(listenFlag),
		Bootstrap:    c.StringSlice(bootstrapFlag),
		API:          c.String(apiFlag),
		AgentHTTP:    c.String("agent-http"),
		RelayService: c.Bool(relayServiceFlag),
		Version:      buildVersion(),
		Logger:       logger,
		Gateway:      c.String(gatewayFlag),
		StartGateway: gateway.StartNode(gateway.WithLogger(logger), gateway.WithVersion(buildVersion())),
	}
	ctx, cancel := signalContext(c)
	defer cancel()
	n, err := node.New(ctx, repo, opts)
	if err != nil {
		var ce *node.ConfigError
		if errors.Is(err, node.ErrRepoLocked) || errors.Is(err, dht.ErrNoNetwork) || errors.As(err, &ce) {
			return usageErr(err)
		}
		return err
	}
	defer n.Close()
	// The node holds the repo now: record where this daemon logs, for
	// 'swarmwage logs' (none: it logs to stderr).
	logPath := ""
	if logFile != nil {
		logPath = logFile.Name()
	}
	if err := node.SetLogFile(repo.Dir, logPath); err != nil {
		return err
	}
	if err := n.Start(ctx); err != nil {
		return err
	}
	info, err := n.ID(ctx)
	if err != nil {
		return err
	}
	// Logged before the ready line, so a script that saw that line finds
	// this one in the log.
	logger.Info("daemon is ready", "peer", info.PeerID, "network", info.Network, "api", n.APIURL(), "version", buildVersion())
	if c.Bool(jsonFlag) {
		// One line of JSON, so scripts can wait for it line by line.
		line, err := json.Marshal(daemonReady{Ready: true, API: n.APIURL(), Gateway: gatewayURL(n), IDInfo: info})
		if err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "%s\n", line)
	} else {
		// One line, so scripts can wait for it.
		gw := ""
		if u := gatewayURL(n); u != "" {
			gw = ", gateway " + u
		}
		fmt.Fprintf(c.App.Writer, "Daemon is ready: peer %s on network %s, control API %s, listening on %s%s\n",
			info.PeerID, info.Network, n.APIURL(), strings.Join(info.Addrs, " "), gw)
	}
	if f, ok := c.App.Writer.(*os.File); ok {
		_ = f.Sync()
	}
	select {
	case <-ctx.Done():
	case <-n.ShutdownRequested(): // 'swarmwage shutdown'
	}
	logger.Info("daemon shutting down")
	fmt.Fprintln(c.App.ErrWriter, "shutting down")
	return n.Close()
}

// gatewayURL is the gateway's base URL, or "" when it is off.
func gatewayURL(n *node.Node) string {
	if a := n.GatewayAddr(); a != "" {
		return "http://" + a
	}
	return ""
}

// daemonReady is the line 'daemon --json' prints on stdout once it serves:
// {"ready":true,"api":"http://127.0.0.1:5747","peer_id":"12D3KooW...",...}
// with the fields of 'id --json'.
type daemonReady struct {
	Ready   bool   `json:"ready"`
	API     string `json:"api"`
	Gateway string `json:"gateway,omitempty"`
	controlapi.IDInfo
}

func idCommand() *cli.Command {
	return &cli.Command{
		Name:      "id",
		Usage:     "show this node's peer ID, addresses, network, reachability and listings",
		ArgsUsage: " ",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErrf("id shows this node only and takes no arguments; to see what another peer sells: 'swarmwage find CAP' (its listings), 'swarmwage peers' (connected peers and their addresses)")
			}
			info, err := nodeID(c)
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, info)
			}
			w := c.App.Writer
			fmt.Fprintf(w, "peer id:  %s\nnetwork:  %s\nonline:   %v\nreach:    %s\n", info.PeerID, info.Network, info.Online, info.Reachability)
			for _, a := range info.Addrs {
				fmt.Fprintf(w, "address:  %s\n", a)
			}
			for _, a := range info.RelayAddrs {
				fmt.Fprintf(w, "relay:    %s\n", a)
			}
			for _, l := range info.Listings {
				fmt.Fprintf(w, "selling:  %s\n", l)
			}
			return nil
		},
	}
}

// nodeID asks the daemon, or describes the repo offline (addresses from the
// config) when none runs.
func nodeID(c *cli.Context) (id controlapi.IDInfo, err error) {
	err = withEnv(c, node.ReadOnly, func(env *node.Env) error {
		id, err = env.ID(c.Context)
		return err
	})
	return id, err
}

func peersCommand() *cli.Command {
	return &cli.Command{
		Name:        "peers",
		Usage:       "list connected peers, or connect to one ('peers connect ADDR'); needs a running daemon",
		ArgsUsage:   " ",
		Flags:       []cli.Flag{jsonOutFlag()},
		Subcommands: []*cli.Command{peersConnectCommand()},
		Action: func(c *cli.Context) error {
			cl, err := needDaemon(c)
			if err != nil {
				return err
			}
			info, err := cl.Peers(c.Context)
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, info)
			}
			tw := newTable(c.App.Writer)
			fmt.Fprintf(tw, "PEER\tADDRESS\n")
			for _, p := range info.Peers {
				fmt.Fprintf(tw, "%s\t%s\n", p.PeerID, strings.Join(p.Addrs, " "))
			}
			fmt.Fprintf(tw, "%d connected, %d in the DHT routing table\n", len(info.Peers), info.RoutingTable)
			return tw.Flush()
		},
	}
}
