package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/market"
)

const (
	rpcFlag       = "rpc"
	keyFileFlag   = "key-file"
	tokenFlag     = "token"
	testTokenFlag = "test-token"
	noticeFlag    = "notice"
	forceFlag     = "force"
)

// deployTimeout bounds chain deploy: two transactions and their receipts.
const deployTimeout = 5 * time.Minute

// chainCommand groups the commands that act on an EVM chain directly,
// without a repo (package escrow/evm).
func chainCommand() *cli.Command {
	return &cli.Command{
		Name:        "chain",
		Usage:       "act on an EVM chain for the evm settlement rail (deploy the escrow contract)",
		Subcommands: []*cli.Command{chainDeployCommand(), chainMintCommand()},
	}
}

func chainDeployCommand() *cli.Command {
	return &cli.Command{
		Name:  "deploy",
		Usage: "deploy the escrow contract (and with --test-token a 6-decimal test stablecoin) once per chain; share its address",
		Description: "Deploys SwarmwageEscrow for one ERC-20 token, paying gas from the key in --key-file (hex, as\n" +
			"wallets export it). The contract has no owner: nothing about it can change after deployment.\n" +
			"--notice is how long a buyer's withdrawal of a seller's line waits (default 7d). A seller accepts\n" +
			"locks whose deadline plus window fit in half of it, so a notice too short for the default hire\n" +
			"deadline plus window is refused unless --force. With --test-token the key's address may mint the token.",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: rpcFlag, Usage: "the chain's JSON-RPC `URL`"},
			&cli.StringFlag{Name: keyFileFlag, Usage: "`FILE` with the deployer's secp256k1 private key (hex); it pays the gas"},
			&cli.StringFlag{Name: tokenFlag, Usage: "the ERC-20 `ADDR` the escrow holds (USDC on Base: 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913)"},
			&cli.BoolFlag{Name: testTokenFlag, Usage: "deploy a test stablecoin (6 decimals, the deployer may mint) and use it"},
			&cli.StringFlag{Name: noticeFlag, Usage: "withdrawal notice `DURATION` (Go duration or days: 60s, 168h, 7d); at least " + minNotice().String() + " so that a hire with the default deadline and window fits (sellers accept locks within half of it)", Value: "7d"},
			&cli.BoolFlag{Name: forceFlag, Usage: "deploy even with a --notice too short for the default deadline plus window (a warning says what then fails)"},
			jsonOutFlag(),
		},
		Action: chainDeployAction,
	}
}

// chainDeployResult is what chain deploy --json prints.
type chainDeployResult struct {
	ChainID int64  `json:"chain_id"`
	Escrow  string `json:"escrow"`
	Token   string `json:"token"`
}

func chainDeployAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrf("chain deploy takes no arguments, got %q", c.Args().First())
	}
	rpc := c.String(rpcFlag)
	if rpc == "" {
		return usageErrf("--rpc URL is required (for a local anvil: --rpc http://127.0.0.1:8545)")
	}
	keyFile := c.String(keyFileFlag)
	if keyFile == "" {
		return usageErrf("--key-file FILE is required: the deployer's private key, which pays the gas")
	}
	opts := evm.DeployOptions{TestToken: c.Bool(testTokenFlag), Logger: slog.New(slog.DiscardHandler)}
	if tok := c.String(tokenFlag); tok != "" {
		if !common.IsHexAddress(tok) {
			return usageErrf("--token %q is not an address (0x and 40 hex digits)", tok)
		}
		opts.Token = common.HexToAddress(tok)
	}
	if opts.TestToken == (opts.Token != common.Address{}) {
		return usageErrf("give exactly one of --token ADDR and --test-token")
	}
	notice, err := parseNotice(c.String(noticeFlag))
	if err != nil {
		return usageErr(err)
	}
	opts.Notice = notice
	if min := minNotice(); notice < min {
		msg := fmt.Sprintf("--notice %s is too short for the default terms: a seller accepts a lock only while the job's deadline plus its verification window (plus %s of grace and clock margin) fit in half the notice, and the default hire deadline %s plus the default window %s need a notice of at least %s; on this escrow every such hire would be refused",
			notice, -market.AcceptHorizonOf(0), market.DefaultHireTimeout, market.DefaultWindow, min)
		if !c.Bool(forceFlag) {
			return usageErrf("%s. Pass a longer --notice, or --force to deploy anyway", msg)
		}
		fmt.Fprintf(c.App.ErrWriter, "Warning: %s. Deploying anyway (--force): sellers need a [market] verification_window and hires a --timeout that fit in %s.\n",
			msg, max(market.AcceptHorizonOf(notice/2), 0))
	}
	key, shared, err := evm.ReadKeyFile(keyFile)
	if err != nil {
		return usageErr(err)
	}
	if shared {
		fmt.Fprintf(c.App.ErrWriter, "Warning: %s can be read by other users; it holds a key that pays gas (chmod 600 %s)\n", keyFile, keyFile)
	}
	ctx, cancel := context.WithTimeout(c.Context, deployTimeout)
	defer cancel()
	dep, err := evm.Deploy(ctx, rpc, key, opts)
	if err != nil {
		if errors.Is(err, evm.ErrUsage) {
			return usageErr(err)
		}
		return exitErr(exitFailure, fmt.Errorf("deploy on %s: %w", rpc, err))
	}
	res := chainDeployResult{ChainID: dep.ChainID, Escrow: dep.Escrow.Hex(), Token: dep.Token.Hex()}
	if c.Bool(jsonFlag) {
		return printJSON(c, res)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "escrow  %s\ntoken   %s\nchain   %d (deployed in block %d, notice %s)\n", res.Escrow, res.Token, res.ChainID, dep.Block, notice)
	fmt.Fprintf(w, "Nodes use it with: swarmwage init --settlement evm --rpc %s --escrow %s --token %s\n", rpc, res.Escrow, res.Token)
	return nil
}

// minNotice is the shortest escrow notice on which a hire with the default
// deadline (market.DefaultHireTimeout) and a seller's default verification
// window (market.DefaultWindow) fit: a seller on the evm rail accepts a
// lock only if its not-before lies within half the notice
// (evm.Rail.AcceptHorizon), and states that less the settle grace and a
// clock margin (market.AcceptHorizonOf).
func minNotice() time.Duration {
	return 2 * (market.DefaultHireTimeout + market.DefaultWindow - market.AcceptHorizonOf(0))
}

// parseNotice reads a notice: a Go duration (60s, 168h) or whole days (7d),
// in whole seconds.
func parseNotice(s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 16)
		if err != nil {
			return 0, fmt.Errorf("--notice %q: want a duration such as 60s, 168h or 7d", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("--notice %q: want a duration such as 60s, 168h or 7d", s)
		}
	}
	if d < time.Second || d%time.Second != 0 {
		return 0, fmt.Errorf("--notice %q: want whole seconds, at least 1s", s)
	}
	return d, nil
}

// chainMintCommand mints a test stablecoin ('chain deploy --test-token') on
// a dev chain: its deployer may mint.
func chainMintCommand() *cli.Command {
	return &cli.Command{
		Name:      "mint",
		Usage:     "mint the test stablecoin of 'chain deploy --test-token' to an address (dev chains; the deployer's key)",
		ArgsUsage: "ADDR AMOUNT",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: rpcFlag, Usage: "the chain's JSON-RPC `URL`"},
			&cli.StringFlag{Name: keyFileFlag, Usage: "`FILE` with the token deployer's key (hex)"},
			&cli.StringFlag{Name: tokenFlag, Usage: "the test token's `ADDR`"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usageErrf("chain mint needs an address and an amount, as: chain mint --rpc URL --key-file FILE --token ADDR 0xTO 10")
			}
			to, tok := c.Args().Get(0), c.String(tokenFlag)
			if !common.IsHexAddress(to) || !common.IsHexAddress(tok) {
				return usageErrf("chain mint: the address and --token must be 0x and 40 hex digits")
			}
			amount, err := escrow.ParseAmount(c.Args().Get(1))
			if err != nil || amount <= 0 {
				return usageErrf("chain mint: amount %q: want a positive decimal such as 10", c.Args().Get(1))
			}
			if c.String(rpcFlag) == "" || c.String(keyFileFlag) == "" {
				return usageErrf("chain mint needs --rpc URL and --key-file FILE")
			}
			key, _, err := evm.ReadKeyFile(c.String(keyFileFlag))
			if err != nil {
				return usageErr(err)
			}
			ctx, cancel := context.WithTimeout(c.Context, deployTimeout)
			defer cancel()
			if err := evm.MintTest(ctx, c.String(rpcFlag), key, common.HexToAddress(tok), common.HexToAddress(to), amount); err != nil {
				return exitErr(exitFailure, fmt.Errorf("mint on %s: %w", c.String(rpcFlag), err))
			}
			fmt.Fprintf(c.App.Writer, "minted %s to %s\n", escrow.FormatAmount(amount), common.HexToAddress(to).Hex())
			return nil
		},
	}
}
