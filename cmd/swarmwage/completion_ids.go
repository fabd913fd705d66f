package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/verify"
)

// Completion of positional arguments: capability IDs for commands that
// take CAP, this node's job IDs for those that take JOB or ID.

// maxCompletedJobs is how many of the newest jobs are offered.
const maxCompletedJobs = 200

// argCompleter is the completion of cmd's positional argument, nil when
// it takes neither a capability nor a job.
func argCompleter(cmd *cli.Command) cli.BashCompleteFunc {
	var values func(c *cli.Context) []string
	first, _, _ := strings.Cut(strings.TrimSpace(cmd.ArgsUsage), " ")
	switch first {
	case "CAP":
		values = func(*cli.Context) []string { return capabilityIDs() }
	case "KEY":
		values = func(*cli.Context) []string { return configKeys(cmd.Name == "get") }
	case "JOB", "ID":
		if cmd.Name == "show" || cmd.Name == "watch" || cmd.Name == "cancel" || cmd.Name == "refund" || cmd.Name == "evidence" || cmd.Name == "rate" {
			values = jobIDs
		}
	}
	if values == nil {
		return nil
	}
	return func(c *cli.Context) {
		if len(os.Args) > 2 && strings.HasPrefix(os.Args[len(os.Args)-2], "-") {
			cli.DefaultCompleteWithFlags(cmd)(c)
			return
		}
		if c.NArg() > 0 {
			return // the argument is given
		}
		for _, v := range values(c) {
			fmt.Fprintln(c.App.Writer, v)
		}
	}
}

// configKeys are config.toml's keys; tables too when all is set ('config
// get' reads them, 'config set' does not write them).
func configKeys(all bool) []string {
	var out []string
	for _, k := range node.ConfigKeys() {
		if all || k.Settable {
			out = append(out, k.Key)
		}
	}
	return out
}

// maxTemplateIDs caps the IDs one template expands to (languages times
// languages would be thousands).
const maxTemplateIDs = 500

// capabilityIDs are the taxonomy's concrete capability IDs: templates are
// expanded over their placeholders' allowed values; a placeholder with a
// rule instead (a URL, a custom name) leaves its template out.
func capabilityIDs() []string {
	var out []string
	for _, cp := range verify.List() {
		ids := []string{cp.Template}
		if cp.Template == "" {
			ids = []string{cp.ID}
		}
		for _, ph := range cp.Placeholders {
			var next []string
			for _, id := range ids {
				for _, v := range ph.Allowed {
					if len(next) < maxTemplateIDs {
						next = append(next, strings.ReplaceAll(id, "{"+ph.Name+"}", v))
					}
				}
			}
			ids = next
		}
		for _, id := range ids {
			if !strings.Contains(id, "{") {
				out = append(out, id)
			}
		}
	}
	return out
}

// jobIDs are the newest job IDs of the command's repo (through the daemon
// when one runs); none when the repo cannot be read.
func jobIDs(c *cli.Context) []string {
	info, err := listJobs(c, "", maxCompletedJobs)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(info.Jobs))
	for _, j := range info.Jobs {
		out = append(out, j.JobID)
	}
	return out
}
