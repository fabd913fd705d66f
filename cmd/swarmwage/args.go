package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs moves flags that follow positional arguments in front of them,
// so "swarmwage find CAP --limit 3" works like "swarmwage find --limit 3 CAP".
// urfave/cli stops parsing flags at the first positional argument; this keeps
// both orders working without changing how flags are declared. Everything
// after "--" is left alone.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	rest := args[1:]
	flags := app.Flags
	cmds := app.Commands
	// Walk the command path: leading flags and command names stay in place.
	for len(rest) > 0 {
		tok := rest[0]
		if tok == "--" {
			return append(out, rest...)
		}
		if strings.HasPrefix(tok, "-") && tok != "-" {
			n := flagArity(flags, tok)
			if n > len(rest) {
				n = len(rest)
			}
			out = append(out, rest[:n]...)
			rest = rest[n:]
			continue
		}
		cmd := lookupCommand(cmds, tok)
		if cmd == nil {
			break
		}
		out = append(out, tok)
		rest = rest[1:]
		flags = cmd.Flags
		cmds = cmd.Subcommands
	}
	var moved, positional []string
	for len(rest) > 0 {
		tok := rest[0]
		if tok == "--" {
			positional = append(positional, rest...)
			break
		}
		if strings.HasPrefix(tok, "-") && tok != "-" {
			n := flagArity(flags, tok)
			if n > len(rest) {
				n = len(rest)
			}
			moved = append(moved, rest[:n]...)
			rest = rest[n:]
			continue
		}
		positional = append(positional, tok)
		rest = rest[1:]
	}
	out = append(out, moved...)
	return append(out, positional...)
}

// flagArity says how many tokens the flag tok consumes: 1 for booleans and
// "--name=value", 2 for flags that take a separate value.
func flagArity(flags []cli.Flag, tok string) int {
	name := strings.TrimLeft(tok, "-")
	if strings.Contains(name, "=") {
		return 1
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if _, ok := f.(*cli.BoolFlag); ok {
				return 1
			}
			if name == "help" || name == "h" {
				return 1
			}
			return 2
		}
	}
	return 1 // unknown: let the parser report it
}

func lookupCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// isUsageError reports whether err came from flag parsing.
func isUsageError(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "flag provided but not defined") ||
		strings.HasPrefix(msg, "invalid value") ||
		strings.HasPrefix(msg, "flag needs an argument") ||
		strings.Contains(msg, "Required flag")
}

// completeTree gives every command a usage-error hook that maps to exit 2, and
// every command group an action that names its valid subcommands.
//
// Every command also takes --repo itself, so "swarmwage init --repo DIR"
// works as well as "swarmwage --repo DIR init" (the nearest one wins).
func completeTree(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usageErr(err) }
		if !hasFlag(c.Flags, repoFlag) {
			c.Flags = append(c.Flags, repoFlagDef())
		}
		if len(c.Subcommands) > 0 && c.Action == nil {
			c.Action = groupAction(c)
		}
		completeTree(c.Subcommands)
	}
}

// groupAction is the action of a command group called without a known
// subcommand: it lists the valid ones.
func groupAction(group *cli.Command) cli.ActionFunc {
	return func(c *cli.Context) error {
		var names []string
		for _, s := range group.Subcommands {
			if s.Name != "help" {
				names = append(names, s.Name)
			}
		}
		sort.Strings(names)
		if c.NArg() == 0 {
			return usageErrf("%s needs a subcommand: %s", group.Name, strings.Join(names, ", "))
		}
		return usageErrf("unknown subcommand %q for %s; valid: %s", c.Args().First(), group.Name, strings.Join(names, ", "))
	}
}

// rootAction runs when no known command was given.
func rootAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowAppHelp(c)
	}
	return usageErr(fmt.Errorf("unknown command %q; run 'swarmwage --help' for the list", c.Args().First()))
}

func hasFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
