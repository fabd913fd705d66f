package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionArg is urfave/cli's hidden flag that asks for completion
// candidates; it must stay the last argument.
const completionArg = "--generate-bash-completion"

// normalizeArgs checks a command line against the command tree and rewrites
// it into the one form urfave/cli parses: each command name followed by its
// own flags, then the leaf's positional arguments. urfave/cli (like the
// standard flag package) stops at the first positional argument and knows
// only the flags of the level it parses, so without this
//
//	swarmwage find CAP --limit 3      flags after the argument
//	swarmwage --json wallet balance   a leaf's flag before the command name
//	swarmwage wallet deposit -5       a negative number as an argument
//
// would all fail with "flag provided but not defined". It also reports what
// the parser cannot say well: an unknown command or flag, with the nearest
// valid name. Everything after "--" is positional.
func normalizeArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 || args[len(args)-1] == completionArg {
		return args, nil
	}
	p := argParser{}
	p.levels = []*argLevel{{flags: app.Flags, cmds: app.Commands}}
	rest := args[1:]
	for len(rest) > 0 {
		tok := rest[0]
		cur := p.levels[len(p.levels)-1]
		if tok == "--" {
			break
		}
		if isFlagToken(tok) && !(isNumber(tok) && findFlag(cur.flags, strings.TrimPrefix(tok, "-")) == nil) {
			n, err := p.arity(cur, tok)
			if err != nil {
				return nil, err
			}
			n = min(n, len(rest))
			p.pending = append(p.pending, pendingFlag{level: len(p.levels) - 1, toks: rest[:n]})
			rest = rest[n:]
			continue
		}
		if cmd := lookupCommand(cur.cmds, tok); cmd != nil {
			p.levels = append(p.levels, &argLevel{cmd: cmd, flags: cmd.Flags, cmds: cmd.Subcommands})
			rest = rest[1:]
			continue
		}
		if len(cur.cmds) > 0 {
			if tok == "help" || tok == "h" {
				return args, nil // urfave/cli's own help command
			}
			return nil, p.unknownCommand(tok)
		}
		break // the leaf's first positional argument
	}
	return p.assemble(args[0], rest)
}

type argLevel struct {
	cmd   *cli.Command // nil at the root
	flags []cli.Flag
	cmds  []*cli.Command
	// toks are the flag tokens that stay at this level.
	toks []string
}

func (l *argLevel) name() string {
	if l.cmd == nil {
		return "swarmwage"
	}
	return l.cmd.Name
}

// pendingFlag is a flag given before the leaf command was known.
type pendingFlag struct {
	level int
	toks  []string
}

type argParser struct {
	levels  []*argLevel
	pending []pendingFlag
}

// arity says how many tokens the flag tok takes at level l: 1 for a boolean
// or "--name=value", 2 for a flag with a separate value. A flag that l does
// not define may belong to a command further down ('swarmwage --json wallet
// balance'), so its definition is looked up there.
func (p *argParser) arity(l *argLevel, tok string) (int, error) {
	name, hasValue := flagName(tok)
	if hasValue {
		return 1, nil
	}
	if f := findFlag(l.flags, name); f != nil {
		return flagArity(f, name), nil
	}
	if f := findFlagBelow(l.cmds, name); f != nil {
		return flagArity(f, name), nil
	}
	return 1, nil // checked once the leaf is known
}

// assemble builds the rewritten command line once the leaf is known: rest
// starts at the leaf's first positional argument.
func (p *argParser) assemble(prog string, rest []string) ([]string, error) {
	leaf := p.levels[len(p.levels)-1]
	// Flags given before the leaf go to the leaf when it takes them, else
	// stay at the level where they were given, which must take them.
	var leafToks []string
	for _, pf := range p.pending {
		name, _ := flagName(pf.toks[0])
		switch {
		case findFlag(leaf.flags, name) != nil:
			leafToks = append(leafToks, pf.toks...)
		case findFlag(p.levels[pf.level].flags, name) != nil:
			p.levels[pf.level].toks = append(p.levels[pf.level].toks, pf.toks...)
		default:
			return nil, p.unknownFlag(name)
		}
	}
	var positional []string
	dashed := false // a positional argument that starts with '-'
	for len(rest) > 0 {
		tok := rest[0]
		if tok == "--" {
			for _, a := range rest[1:] {
				dashed = dashed || strings.HasPrefix(a, "-")
			}
			positional = append(positional, rest[1:]...)
			break
		}
		if !isFlagToken(tok) {
			positional = append(positional, tok)
			rest = rest[1:]
			continue
		}
		name, hasValue := flagName(tok)
		f := findFlag(leaf.flags, name)
		if f == nil {
			if isNumber(tok) {
				// 'wallet deposit -5': an argument, for the command to judge.
				positional, dashed = append(positional, tok), true
				rest = rest[1:]
				continue
			}
			return nil, p.unknownFlag(name)
		}
		n := 1
		if !hasValue {
			n = min(flagArity(f, name), len(rest))
		}
		leafToks = append(leafToks, rest[:n]...)
		rest = rest[n:]
	}
	out := []string{prog}
	for i, l := range p.levels {
		if i > 0 {
			out = append(out, l.cmd.Name)
		}
		out = append(out, l.toks...)
	}
	out = append(out, leafToks...)
	if dashed {
		out = append(out, "--")
	}
	return append(out, positional...), nil
}

// unknownCommand is the error for a name that is not a command at the
// deepest level reached, with the nearest valid name.
func (p *argParser) unknownCommand(tok string) error {
	l := p.levels[len(p.levels)-1]
	var names []string
	for _, c := range l.cmds {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	slices.Sort(names)
	hint := ""
	if s := nearest(tok, names); s != "" {
		hint = fmt.Sprintf("; did you mean '%s'?", s)
	} else if s := synonym(tok); slices.Contains(names, s) {
		hint = fmt.Sprintf("; did you mean '%s'?", s)
	}
	if l.cmd == nil {
		return usageErrf("unknown command %q%s run 'swarmwage --help' for the list", tok, orPeriod(hint))
	}
	return usageErrf("unknown subcommand %q for %s%s valid: %s", tok, l.cmd.Name, orPeriod(hint), strings.Join(names, ", "))
}

// synonym is our name for a command that other tools name tok, too far
// from ours for nearest: 'jobs ls' suggests 'jobs list'.
func synonym(tok string) string {
	switch tok {
	case "ls":
		return "list"
	case "rm", "del", "delete":
		return "remove"
	case "info", "get":
		return "show"
	case "stop", "kill":
		return "cancel"
	case "new", "create":
		return "add"
	}
	return ""
}

// orPeriod ends a message part: the hint when there is one, else ";".
func orPeriod(hint string) string {
	if hint == "" {
		return ";"
	}
	return hint
}

// unknownFlag is the error for a flag the leaf command does not take, with
// the nearest flag it does take.
func (p *argParser) unknownFlag(name string) error {
	leaf := p.levels[len(p.levels)-1]
	var names []string
	for _, f := range leaf.flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	dash := "--"
	if len(name) == 1 {
		dash = "-"
	}
	path := []string{"swarmwage"}
	for _, l := range p.levels[1:] {
		path = append(path, l.cmd.Name)
	}
	help := strings.Join(path, " ") + " --help"
	if s := nearest(name, names); s != "" {
		return usageErrf("unknown flag %s%s for %s; did you mean --%s? ('%s' lists the flags)", dash, name, leaf.name(), s, help)
	}
	return usageErrf("unknown flag %s%s for %s ('%s' lists the flags)", dash, name, leaf.name(), help)
}

// isFlagToken reports whether tok looks like a flag: "-" alone is an
// argument (stdin), as is anything after "--".
func isFlagToken(tok string) bool { return strings.HasPrefix(tok, "-") && tok != "-" }

// flagName is the name of the flag token tok and whether it carries its
// value ("--name=value").
func flagName(tok string) (string, bool) {
	name := strings.TrimLeft(tok, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		return name[:i], true
	}
	return name, false
}

// isNumber reports whether tok is a negative number such as -5 or -0.5.
func isNumber(tok string) bool {
	_, err := strconv.ParseFloat(tok, 64)
	return err == nil
}

// findFlag is the flag of flags named name; -h and --help are every
// command's.
func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	if cli.HelpFlag != nil && slices.Contains(cli.HelpFlag.Names(), name) {
		return cli.HelpFlag
	}
	return nil
}

// findFlagBelow is the first flag named name of any command in cmds or
// below them.
func findFlagBelow(cmds []*cli.Command, name string) cli.Flag {
	for _, c := range cmds {
		if f := findFlag(c.Flags, name); f != nil {
			return f
		}
		if f := findFlagBelow(c.Subcommands, name); f != nil {
			return f
		}
	}
	return nil
}

// flagArity is how many tokens f takes when written without "=value".
func flagArity(f cli.Flag, name string) int {
	if _, ok := f.(*cli.BoolFlag); ok {
		return 1
	}
	if f == cli.HelpFlag || name == "help" || name == "h" {
		return 1
	}
	return 2
}

func lookupCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// nearest is the name in names closest to s, if it is close enough to be
// what was meant: at most two edits away (one for short names), or a
// prefix of it. Empty when nothing is close.
func nearest(s string, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		d := editDistance(s, n)
		if len(s) >= 2 && strings.HasPrefix(n, s) {
			d = min(d, 1)
		}
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	limit := 2
	if len(s) <= 3 {
		limit = 1
	}
	if bestD < 0 || bestD > limit {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes (names
// here are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// isUsageError reports whether err came from urfave/cli's own flag parsing
// (what normalizeArgs lets through: a missing value, a bad number).
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
		if c.BashComplete == nil {
			c.BashComplete = argCompleter(c)
		}
		if hasFlag(c.Flags, jsonFlag) && !hasFlag(c.Flags, jqFlag) {
			c.Flags = append(c.Flags, jqFlagDef())
		}
		if len(c.Subcommands) > 0 && c.Action == nil {
			c.Action = groupAction(c)
		}
		completeTree(c.Subcommands)
	}
}

// groupAction is the action of a command group called without a
// subcommand: it lists the valid ones. (An unknown one is reported by
// normalizeArgs, with the nearest name.)
func groupAction(group *cli.Command) cli.ActionFunc {
	return func(c *cli.Context) error {
		var names []string
		for _, s := range group.Subcommands {
			if s.Name != "help" && !s.Hidden {
				names = append(names, s.Name)
			}
		}
		slices.Sort(names)
		if c.NArg() == 0 {
			return usageErrf("%s needs a subcommand: %s", group.Name, strings.Join(names, ", "))
		}
		return usageErrf("unknown subcommand %q for %s; valid: %s", c.Args().First(), group.Name, strings.Join(names, ", "))
	}
}

// rootAction runs when no command was given.
func rootAction(c *cli.Context) error {
	if c.Bool(versionFlag) {
		return printVersion(c)
	}
	if c.NArg() == 0 {
		return cli.ShowAppHelp(c)
	}
	return usageErr(fmt.Errorf("unknown command %q; run 'swarmwage --help' for the list", c.Args().First()))
}

func hasFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}
