package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

func jobsCommand() *cli.Command {
	return &cli.Command{
		Name:  "jobs",
		Usage: "the jobs this node bought and sold",
		Subcommands: []*cli.Command{
			{
				Name:      "list",
				Usage:     "list jobs, newest first, with each job's state (running, delivered, released, refunded, disputed, failed: README, \"Job states\")",
				ArgsUsage: " ",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "role", Usage: "only 'buyer' or 'seller' jobs"},
					&cli.IntFlag{Name: "limit", Value: controlapi.DefaultListLimit, Usage: "at most this many (0: all)"},
					jsonOutFlag(),
				},
				Action: func(c *cli.Context) error {
					role := c.String("role")
					if role != "" && role != market.RoleBuyer && role != market.RoleSeller {
						return usageErrf("--role %q: want buyer or seller", role)
					}
					limit := c.Int("limit")
					if limit < 0 {
						return usageErrf("--limit %d: want 0 (all) or more", limit)
					}
					info, err := listJobs(c, role, limit)
					if err != nil {
						return err
					}
					if c.Bool(jsonFlag) {
						return printJSON(c, info)
					}
					tw := newTable(c.App.Writer)
					fmt.Fprintf(tw, "JOB\tROLE\tCAPABILITY\tPRICE\tSTATE\tCREATED\n")
					for _, j := range info.Jobs {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", j.JobID, j.Role, j.Capability, j.Price, orDash(j.State), j.CreatedAt.Format("2006-01-02 15:04:05"))
					}
					if info.NextCursor != "" {
						fmt.Fprintf(tw, "(the newest %d; --limit 0 lists all)\n", len(info.Jobs))
					}
					return tw.Flush()
				},
			},
			{
				Name:      "show",
				Usage:     "show one job with its input, output and checks",
				ArgsUsage: "ID",
				Flags:     []cli.Flag{jsonOutFlag()},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrf("jobs show needs a job ID")
					}
					job, err := showJob(c, c.Args().First())
					if err != nil {
						return err
					}
					return printJSON(c, job)
				},
			},
			jobsWatchCommand(),
			jobsCancelCommand(),
		},
	}
}

// jobsWatchCommand follows a bought job's events to the end.
func jobsWatchCommand() *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Usage:     "follow a bought job's events to its end (a job started with 'hire --detach'); exit codes as hire's",
		ArgsUsage: "JOB",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("jobs watch needs a job ID, as: jobs watch JOB")
			}
			id := c.Args().First()
			cl, err := needDaemon(c)
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				// NDJSON: each event as it comes, the last line the result.
				enc := json.NewEncoder(c.App.Writer)
				enc.SetEscapeHTML(false)
				info, err := cl.WatchJob(c.Context, id, func(ev market.Event) { _ = enc.Encode(ev) })
				if err != nil {
					return watchErr(id, err)
				}
				if err := enc.Encode(info); err != nil {
					return err
				}
				return exitCode(hireExitCode(info.Outcome))
			}
			var lines eventLines
			info, err := followInterruptible(c, cl, func(ctx context.Context, progress func(market.Event)) (controlapi.HireInfo, error) {
				return cl.WatchJob(ctx, id, func(ev market.Event) {
					progress(ev)
					if line := lines.describe(ev); line != "" {
						fmt.Fprintf(c.App.ErrWriter, "%s %s\n", time.Now().Format("15:04:05"), line)
					}
				})
			})
			if err != nil {
				return watchErr(id, err)
			}
			return hireDone(c, info)
		},
	}
}

// eventLines turns a job's events into the lines 'jobs watch' prints: one
// line per step, in words. A running job reports progress every second;
// only the first says so, the next ones would fill a log.
type eventLines struct {
	running bool
}

func (l *eventLines) describe(ev market.Event) string {
	switch ev.Type {
	case market.EventLocked:
		return "price held in escrow; job sent to the seller"
	case market.EventAccepted:
		return "the seller accepted the job"
	case market.EventProgress:
		if l.running {
			return ""
		}
		l.running = true
		return "the seller is running the job"
	case market.EventResult:
		return "output received; verifying it"
	case market.EventError:
		return "job failed: " + ev.Message
	}
	if ev.Message == "" {
		return ev.Type
	}
	return ev.Type + ": " + ev.Message
}

func watchErr(id string, err error) error {
	var ae *controlapi.APIError
	if errors.As(err, &ae) && ae.Status == 404 {
		return usageErrf("no job %q here; 'swarmwage jobs list' shows them", id)
	}
	return err
}

// jobsCancelCommand stops a bought job that is not delivered yet.
func jobsCancelCommand() *cli.Command {
	return &cli.Command{
		Name:      "cancel",
		Usage:     "stop a bought job that is not delivered yet and refund it (the seller is told and stops)",
		ArgsUsage: "JOB",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("jobs cancel needs a job ID, as: jobs cancel JOB")
			}
			id := c.Args().First()
			cl, err := needDaemon(c)
			if err != nil {
				return err
			}
			rec, err := cl.CancelJob(c.Context, id)
			var ae *controlapi.APIError
			if errors.As(err, &ae) && ae.Status == 404 {
				return usageErrf("no bought job %q on this node ('swarmwage jobs list --role buyer' shows them)", id)
			}
			if errors.As(err, &ae) && ae.Status/100 == 4 {
				return usageErr(err)
			}
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, map[string]string{"job_id": id, "state": string(rec.State), "reason": rec.Reason})
			}
			fmt.Fprintf(c.App.Writer, "job %s: escrow %s (%s)\n", id, rec.State, rec.Reason)
			return nil
		},
	}
}

// listJobs lists at most limit job summaries (0: all), newest first.
func listJobs(c *cli.Context, role string, limit int) (info controlapi.JobsInfo, err error) {
	err = withEnv(c, node.ReadOnly, func(env *node.Env) error {
		info, err = env.Jobs(c.Context, role, limit)
		return err
	})
	return info, err
}

func showJob(c *cli.Context, id string) (job market.JobRecord, err error) {
	err = withEnv(c, node.ReadOnly, func(env *node.Env) error {
		job, err = env.Job(c.Context, id)
		return err
	})
	var ae *controlapi.APIError
	if errors.Is(err, market.ErrJobNotFound) || (errors.As(err, &ae) && ae.Status == 404) {
		return job, usageErrf("no job %q here; 'swarmwage jobs list' shows them", id)
	}
	return job, err
}

func rateCommand() *cli.Command {
	return &cli.Command{
		Name:      "rate",
		Usage:     "rate a job you bought, 1 (bad) to 5 (great); find shows sellers' ratings and hire prefers the better rated",
		ArgsUsage: "JOB 1..5",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usageErrf("rate needs a job ID and a rating, as: rate JOB 5")
			}
			score, err := strconv.Atoi(c.Args().Get(1))
			if err != nil || score < 1 || score > 5 {
				return usageErrf("rating %q: want a whole number from 1 to 5", c.Args().Get(1))
			}
			cl, err := needDaemon(c)
			if err != nil {
				return err
			}
			job, err := cl.Rate(c.Context, c.Args().First(), score)
			var ae *controlapi.APIError
			if errors.As(err, &ae) && (ae.Status == 404 || ae.Status == 400) {
				return usageErr(err)
			}
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, map[string]any{"job_id": job.JobID, "seller": job.Seller, "rating": job.Rating})
			}
			fmt.Fprintf(c.App.Writer, "rated job %s (seller %s): %d\n", job.JobID, job.Seller, job.Rating)
			return nil
		},
	}
}
