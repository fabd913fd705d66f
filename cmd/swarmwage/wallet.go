package main

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/node"
)

const (
	testCreditsFlag = "test-credits"
	memoFlag        = "memo"
)

// withWallet runs fn with the node's wallet: the daemon's when one runs,
// else the repo's (node.Env decides).
func withWallet(c *cli.Context, fn func(w *node.Env) error) error {
	return withEnv(c, node.ReadWrite, fn)
}

// withWalletRead is withWallet for commands that only read: offline the
// repo is opened read-only, so they work on a full disk.
func withWalletRead(c *cli.Context, fn func(w *node.Env) error) error {
	return withEnv(c, node.ReadOnly, fn)
}

func walletCommand() *cli.Command {
	return &cli.Command{
		Name:  "wallet",
		Usage: "show the balance, deposit (test credits, or the token on evm), withdraw and the evm address",
		Subcommands: []*cli.Command{
			walletBalanceCommand(),
			walletDepositCommand(),
			walletAddressCommand(),
			walletWithdrawCommand(),
			walletHistoryCommand(),
		},
	}
}

func walletBalanceCommand() *cli.Command {
	return &cli.Command{
		Name:      "balance",
		Usage:     "show available, held, paid, earned and deposited credits (on evm also the token, gas and escrow figures on chain)",
		ArgsUsage: " ",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErrf("wallet balance takes no arguments")
			}
			return withWalletRead(c, func(w *node.Env) error {
				b, err := w.Wallet(c.Context)
				if err != nil {
					return err
				}
				if c.Bool(jsonFlag) {
					return printJSON(c, b)
				}
				if b.Rail == node.RailEVM {
					printWallet(c, b)
					return nil
				}
				printBalance(c, b.Balance)
				return nil
			})
		},
	}
}

func printBalance(c *cli.Context, b escrow.Balance) { printLedger(c, b, 0, "test credits") }

// printLedger prints the ledger, with what "deposited" means on the rail;
// withdrawing (evm) is line money asked back, already out of available.
func printLedger(c *cli.Context, b escrow.Balance, withdrawing int64, deposited string) {
	tw := newTable(c.App.Writer)
	type row struct {
		name string
		v    int64
		note string
	}
	rows := []row{{"available", b.Available, "free to spend"}}
	if withdrawing != 0 {
		rows = append(rows, row{"withdrawing", withdrawing, "asked back by 'wallet withdraw', leaves after the escrow's notice"})
	}
	rows = append(rows,
		row{"held", b.Held, "locked for open hires"},
		row{"paid", b.Paid, "released to sellers"},
		row{"earned", b.Earned, "credited for jobs sold"},
		row{"pending", b.Pending, "released by this node's timers, awaiting the buyers' confirmation"},
		row{"deposited", b.Deposited, deposited})
	if b.Withdrawn != 0 {
		rows = append(rows, row{"withdrawn", b.Withdrawn, "paid out to the node's address"})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.name, escrow.FormatAmount(r.v), r.note)
	}
	tw.Flush()
}

// depositResult is what `wallet deposit --json` prints.
type depositResult struct {
	Deposited string         `json:"deposited"`
	Balance   escrow.Balance `json:"balance"`
}

func walletDepositCommand() *cli.Command {
	return &cli.Command{
		Name:      "deposit",
		Usage:     "add test credits to the available balance (on 'amino' only with --test-credits)",
		ArgsUsage: "AMOUNT",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: testCreditsFlag, Usage: "say that these are test credits with no value (required on the public 'amino' network)"},
			&cli.StringFlag{Name: memoFlag, Usage: "a note kept with the deposit"},
			jsonOutFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("wallet deposit needs exactly one amount in credits, as: wallet deposit 10")
			}
			arg := c.Args().First()
			amount, err := escrow.ParseAmount(arg)
			if strings.HasPrefix(arg, "-") || err == nil && amount <= 0 {
				return usageErrf("wallet deposit %s: the amount must be positive, as: wallet deposit 10", arg)
			}
			if err != nil {
				return usageErr(err)
			}
			onEVM := isEVM(c)
			return withWallet(c, func(w *node.Env) error {
				network, err := w.Network(c.Context)
				if err != nil {
					return err
				}
				if network == dht.Amino && !c.Bool(testCreditsFlag) && !onEVM {
					return usageErrf("this node is on the public %q network: deposits are test credits with no value; add --test-credits to say so", dht.Amino)
				}
				memo := c.String(memoFlag)
				if memo == "" {
					memo = "test credits"
				}
				b, err := w.Deposit(c.Context, amount, memo)
				if err != nil {
					return err
				}
				if c.Bool(jsonFlag) {
					return printJSON(c, depositResult{Deposited: escrow.FormatAmount(amount), Balance: b})
				}
				if onEVM {
					fmt.Fprintf(c.App.Writer, "deposited %s of the token into the escrow; available %s\n", escrow.FormatAmount(amount), escrow.FormatAmount(b.Available))
					return nil
				}
				fmt.Fprintf(c.App.Writer, "deposited %s test credits; available %s\n", escrow.FormatAmount(amount), escrow.FormatAmount(b.Available))
				return nil
			})
		},
	}
}

func escrowCommand() *cli.Command {
	return &cli.Command{
		Name:  "escrow",
		Usage: "list and show the escrow of jobs bought and sold; refund a delivered job",
		Subcommands: []*cli.Command{
			escrowListCommand(),
			escrowShowCommand(),
			escrowRefundCommand(),
			escrowEvidenceCommand(),
		},
	}
}

// escrowListResult is what `escrow list --json` prints.
type escrowListResult struct {
	Escrows []escrow.Record `json:"escrows"`
}

func escrowListCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list escrows, newest first",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "role", Usage: "only 'buyer' or 'seller' escrows"},
			&cli.StringFlag{Name: "state", Usage: "only escrows in this state (locked, delivered, released, refunded, disputed, failed)"},
			&cli.IntFlag{Name: "limit", Value: 100, Usage: "at most this many (0: all)"},
			jsonOutFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErrf("escrow list takes no arguments; to show one escrow: escrow show ID")
			}
			f, err := escrowFilter(c)
			if err != nil {
				return err
			}
			return withWalletRead(c, func(w *node.Env) error {
				recs, err := w.EscrowList(c.Context, f)
				if err != nil {
					return err
				}
				if recs == nil {
					recs = []escrow.Record{}
				}
				if c.Bool(jsonFlag) {
					return printJSON(c, escrowListResult{Escrows: recs})
				}
				printEscrowList(c, recs)
				return nil
			})
		},
	}
}

func escrowFilter(c *cli.Context) (escrow.Filter, error) {
	f := escrow.Filter{Role: escrow.Role(c.String("role")), State: escrow.State(c.String("state")), Limit: c.Int("limit")}
	switch f.Role {
	case "", escrow.RoleBuyer, escrow.RoleSeller:
	default:
		return f, usageErrf("--role %q: want buyer or seller", f.Role)
	}
	switch f.State {
	case "", escrow.StateLocked, escrow.StateDelivered, escrow.StateReleased, escrow.StateRefunded, escrow.StateDisputed, escrow.StateFailed:
	default:
		return f, usageErrf("--state %q: want locked, delivered, released, refunded, disputed or failed", f.State)
	}
	if f.Limit < 0 {
		return f, usageErrf("--limit %d: want 0 (all) or more", f.Limit)
	}
	return f, nil
}

func printEscrowList(c *cli.Context, recs []escrow.Record) {
	w := c.App.Writer
	if len(recs) == 0 {
		fmt.Fprintln(w, "no escrows")
		return
	}
	tw := newTable(w)
	fmt.Fprintf(tw, "JOB\tROLE\tSTATE\tAMOUNT\tCAPABILITY\tCOUNTERPARTY\tUPDATED\n")
	for _, r := range recs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.JobID, r.Role, r.State, escrow.FormatAmount(r.Amount),
			orDash(r.Capability), r.Counterparty, r.UpdatedAt.UTC().Format(time.RFC3339))
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func escrowShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one escrow with its signed lock, delivery and settle",
		ArgsUsage: "ID",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("escrow show needs exactly one job ID, as: escrow show JOB_ID (see 'escrow list')")
			}
			id := c.Args().First()
			return withWalletRead(c, func(w *node.Env) error {
				r, err := w.EscrowGet(c.Context, id)
				if errors.Is(err, escrow.ErrNotFound) {
					return exitErr(exitFailure, fmt.Errorf("no escrow for job %q on this node (see 'swarmwage escrow list')", id))
				}
				if err != nil {
					return err
				}
				if c.Bool(jsonFlag) {
					return printJSON(c, r)
				}
				printEscrow(c, r)
				return nil
			})
		},
	}
}

func printEscrow(c *cli.Context, r escrow.Record) {
	tw := newTable(c.App.Writer)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	ts := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}
	row("job", r.JobID)
	row("role", string(r.Role))
	row("state", string(r.State))
	row("amount", escrow.FormatAmount(r.Amount))
	row("capability", r.Capability)
	row("quote", r.QuoteID)
	row("buyer", r.Buyer.String())
	row("seller", r.Seller.String())
	row("deadline", ts(r.Deadline))
	row("window", r.Window.String())
	row("created", ts(r.CreatedAt))
	row("delivered", ts(r.DeliveredAt))
	row("settled", ts(r.SettledAt))
	row("output sha256", r.OutputHash)
	row("reason", r.Reason)
	for _, fc := range r.FailedChecks {
		row("failed check", fc)
	}
	evidence := "lock"
	if r.Delivery != nil {
		evidence += ", delivery"
	}
	if r.Settle != nil {
		evidence += ", " + r.Settle.Decision
	}
	row("signed evidence", evidence+" (escrow show --json prints it)")
	tw.Flush()
}

// escrowEvidenceCommand prints the dispute evidence of a job this node
// sold: the signed lock, delivery and settle with the input and output.
func escrowEvidenceCommand() *cli.Command {
	return &cli.Command{
		Name:      "evidence",
		Usage:     "print the signed receipt of a job this node sold, with its input and output: evidence anyone can check with 'swarmwage verify --evidence FILE'",
		ArgsUsage: "JOB",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("escrow evidence needs exactly one job ID, as: escrow evidence JOB_ID > evidence.json")
			}
			id := c.Args().First()
			return withWallet(c, func(w *node.Env) error {
				rc, err := w.Evidence(c.Context, id)
				var ae *controlapi.APIError
				if errors.Is(err, escrow.ErrNotFound) || errors.As(err, &ae) && ae.Status == http.StatusNotFound {
					return exitErr(exitUsage, fmt.Errorf("no sold job %q on this node (see 'swarmwage escrow list --role seller')", id))
				}
				if errors.Is(err, escrow.ErrBadState) || errors.As(err, &ae) && ae.Status/100 == 4 {
					return exitErr(exitUsage, err)
				}
				if err != nil {
					return err
				}
				return printJSON(c, rc)
			})
		},
	}
}

// escrowRefundCommand refunds a bought job whose output was delivered but
// not released: capabilities without a standard verifier auto-release at
// the end of the verification window unless the buyer refunds first.
func escrowRefundCommand() *cli.Command {
	return &cli.Command{
		Name:      "refund",
		Usage:     "refund a delivered job before its verification window ends (needs a running daemon)",
		ArgsUsage: "JOB",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Required: true, Usage: "why the output is not acceptable (kept as evidence, sent to the seller)"},
			jsonOutFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("escrow refund needs one job ID, as: escrow refund --reason \"wrong language\" JOB")
			}
			cl, err := needDaemon(c)
			if err != nil {
				return err
			}
			if prev, err := cl.EscrowGet(c.Context, c.Args().First()); err == nil && prev.Role == escrow.RoleBuyer && prev.State == escrow.StateRefunded {
				// Refund is idempotent: say that nothing changed.
				if c.Bool(jsonFlag) {
					return printJSON(c, prev)
				}
				fmt.Fprintf(c.App.Writer, "job %s was already refunded (at %s): nothing changed\n", prev.JobID, prev.SettledAt.UTC().Format(time.RFC3339))
				return nil
			}
			rec, err := cl.EscrowRefund(c.Context, c.Args().First(), c.String("reason"))
			var ae *controlapi.APIError
			if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
				return usageErrf("no bought job %q on this node (see 'swarmwage escrow list --role buyer')", c.Args().First())
			}
			if err != nil {
				return apiUsage(err)
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, rec)
			}
			fmt.Fprintf(c.App.Writer, "refunded job %s: %s %s back to available\n", rec.JobID, escrow.FormatAmount(rec.Amount), railUnit(c))
			return nil
		},
	}
}
