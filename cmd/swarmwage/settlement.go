package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/node"
)

// The settlement rail on the command line: init --settlement evm, wallet
// address, wallet withdraw, and the evm side of wallet balance and deposit.

const (
	settlementFlag    = "settlement"
	escrowAddrFlag    = "escrow"
	evmKeyFileFlag    = "evm-key-file"
	confirmationsFlag = "confirmations"
)

// initCheckTimeout bounds init's look at the chain.
const initCheckTimeout = 10 * time.Second

// settlementFlags are init's flags for the rail.
func settlementFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: settlementFlag, Value: node.RailCredits, Usage: "settlement rail: 'credits' (test credits in each node's ledger) or 'evm' (a stablecoin through the escrow contract on an EVM chain)"},
		&cli.StringFlag{Name: rpcFlag, Usage: "evm: the chain's JSON-RPC `URL`"},
		&cli.StringFlag{Name: escrowAddrFlag, Usage: "evm: the escrow contract's `ADDR` (from 'swarmwage chain deploy')"},
		&cli.StringFlag{Name: tokenFlag, Usage: "evm: the token's `ADDR` (USDC on Base: 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913)"},
		&cli.StringFlag{Name: evmKeyFileFlag, Usage: "evm: import this secp256k1 private key (hex) as the node's evm.key instead of creating one"},
		&cli.IntFlag{Name: confirmationsFlag, Value: node.DefaultConfirmations, Usage: "evm: blocks before the node trusts chain state (1 on dev chains and Base)"},
	}
}

// settlementConfig reads init's rail flags.
func settlementConfig(c *cli.Context) (node.SettlementConfig, error) {
	rail := c.String(settlementFlag)
	switch rail {
	case node.RailCredits:
		for _, f := range []string{rpcFlag, escrowAddrFlag, tokenFlag, evmKeyFileFlag, confirmationsFlag} {
			if c.IsSet(f) {
				return node.SettlementConfig{}, usageErrf("--%s is for --settlement evm", f)
			}
		}
		return node.SettlementConfig{}, nil
	case node.RailEVM:
	default:
		return node.SettlementConfig{}, usageErrf("--settlement %q: want %q or %q", rail, node.RailCredits, node.RailEVM)
	}
	st := node.SettlementConfig{Rail: node.RailEVM, RPC: c.String(rpcFlag), Confirmations: c.Int(confirmationsFlag)}
	for _, a := range []struct {
		flag string
		dst  *string
	}{{escrowAddrFlag, &st.Escrow}, {tokenFlag, &st.Token}} {
		v := c.String(a.flag)
		if !common.IsHexAddress(v) {
			return st, usageErrf("--settlement evm needs --%s ADDR (0x and 40 hex digits), got %q", a.flag, v)
		}
		*a.dst = common.HexToAddress(v).Hex()
	}
	if st.RPC == "" {
		return st, usageErrf("--settlement evm needs --rpc URL (for a local anvil: --rpc http://127.0.0.1:8545)")
	}
	if st.Confirmations < 1 {
		return st, usageErrf("--confirmations %d: want at least 1", st.Confirmations)
	}
	return st, nil
}

// checkChain looks at the chain once before a repo is made for it: a
// wrong escrow or token address is a usage error; a chain that does not
// answer only a warning (the node reaches it when it runs).
func checkChain(c *cli.Context, st node.SettlementConfig) error {
	ctx, cancel := context.WithTimeout(c.Context, initCheckTimeout)
	defer cancel()
	k, err := evm.GenerateKey()
	if err != nil {
		return err
	}
	r, err := evm.Open(ctx, evm.Config{RPC: st.RPC, Escrow: common.HexToAddress(st.Escrow), Token: common.HexToAddress(st.Token), Logger: slog.New(slog.DiscardHandler)}, k)
	switch {
	case errors.Is(err, evm.ErrWrongChain):
		return usageErr(fmt.Errorf("init --settlement evm: %w", err))
	case err != nil:
		fmt.Fprintf(c.App.ErrWriter, "Warning: cannot check the escrow on %s now (%v); the node will when it runs\n", st.RPC, err)
		return nil
	}
	r.Close()
	return nil
}

// initRailKey creates or imports the node's evm.key in repo and returns
// its address.
func initRailKey(c *cli.Context, repo *node.Repo) (string, error) {
	path := node.EVMKeyPath(repo)
	if src := c.String(evmKeyFileFlag); src != "" {
		k, err := evm.ImportKey(path, src)
		if err != nil {
			return "", usageErr(err)
		}
		return k.Address().Hex(), nil
	}
	k, _, err := evm.LoadOrCreateKey(path)
	if err != nil {
		return "", err
	}
	return k.Address().Hex(), nil
}

func walletAddressCommand() *cli.Command {
	return &cli.Command{
		Name:      "address",
		Usage:     "show the node's address on the evm rail (fund it with the token and gas money)",
		ArgsUsage: " ",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErrf("wallet address takes no arguments")
			}
			repo, err := openRepo(c)
			if err != nil {
				return err
			}
			if repo.Config.Settlement.RailName() != node.RailEVM {
				return usageErr(node.ErrNoRailAddress)
			}
			k, err := evm.LoadKey(node.EVMKeyPath(repo))
			if err != nil {
				return err
			}
			res := controlapi.AddressInfo{Address: k.Address().Hex()}
			if c.Bool(jsonFlag) {
				return printJSON(c, res)
			}
			fmt.Fprintln(c.App.Writer, res.Address)
			return nil
		},
	}
}

func walletWithdrawCommand() *cli.Command {
	return &cli.Command{
		Name:  "withdraw",
		Usage: "pay out to the node's address what it may take now (evm): released earnings, the free deposit, line money after the notice",
		Description: "A seller's released vouchers are redeemed in one batch; a buyer's deposit not held by open jobs\n" +
			"leaves at once, the part allocated to sellers' lines after the escrow's notice: the first call asks\n" +
			"for it (pending), a call after the notice takes it.",
		ArgsUsage: " ",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErrf("wallet withdraw takes no arguments")
			}
			repo, err := openRepo(c)
			if err != nil {
				return err
			}
			if repo.Config.Settlement.RailName() != node.RailEVM {
				return usageErr(node.ErrNoRailAddress)
			}
			var res controlapi.WithdrawInfo
			err = withWallet(c, func(w *node.Env) error {
				var err error
				res, err = w.Withdraw(c.Context)
				return err
			})
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, res)
			}
			fmt.Fprintf(c.App.Writer, "withdrawn %s to the node's address; %s pending the escrow's notice\n", res.Withdrawn, res.Pending)
			return nil
		},
	}
}

// printWallet renders the balance of an evm node: the ledger, then the
// chain.
func printWallet(c *cli.Context, w controlapi.WalletInfo) {
	printLedger(c, w.Balance, w.Withdrawing, "moved into the escrow contract")
	out := c.App.Writer
	fmt.Fprintf(out, "\nrail: %s, address %s\n", w.Rail, w.Address)
	if w.Chain == nil {
		fmt.Fprintf(out, "chain: not reachable now: %s\n", w.ChainError)
		return
	}
	ch := w.Chain
	tw := newTable(out)
	for _, row := range [][3]string{
		{"token", ch.Token, "in the node's address"},
		{"gas", ch.Gas, "native currency for gas"},
		{"deposit", ch.Deposit, fmt.Sprintf("in the escrow: %s free, %s in sellers' lines (%s asked back)", ch.Free, ch.Lines, ch.Withdrawing)},
		{"held", ch.Held, "backing jobs the chain has not settled"},
		{"redeemable", ch.Redeemable, "earned, to be redeemed to the node's address"},
		{"provisional", ch.Provisional, "of the deposits, not yet deep enough on chain: a reorg would undo them"},
	} {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", row[0], row[1], row[2])
	}
	fmt.Fprintf(tw, "chain\t%d\tat block %d\n", ch.ChainID, ch.Block)
	tw.Flush()
}

// evmKeyShared warns about a key file others may read, given to init.
func evmKeyShared(c *cli.Context) {
	src := c.String(evmKeyFileFlag)
	if src == "" {
		return
	}
	if st, err := os.Stat(src); err == nil && st.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(c.App.ErrWriter, "Warning: %s can be read by other users; the node's copy is 0600, consider deleting this one\n", src)
	}
}

// isEVM reports whether the repo of the command settles on evm.
func isEVM(c *cli.Context) bool {
	repo, err := openRepo(c)
	return err == nil && strings.EqualFold(repo.Config.Settlement.RailName(), node.RailEVM)
}
