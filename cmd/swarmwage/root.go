package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/internal/safetext"
)

// Exit codes shared by every command. Commands with their own meaning for
// codes 3 and up (hire, verify) document them in the README.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

const (
	repoFlag    = "repo"
	jsonFlag    = "json"
	repoEnv     = "SWARMWAGE_REPO"
	defaultRepo = ".swarmwage"
)

// cmdError carries an exit code with an optional error to print.
type cmdError struct {
	code int
	err  error
}

func (e *cmdError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *cmdError) Unwrap() error { return e.err }

// exitErr returns err with the exit code code.
func exitErr(code int, err error) error { return &cmdError{code: code, err: err} }

// usageErr marks err as a usage error (exit 2): bad flags, arguments or input.
func usageErr(err error) error { return &cmdError{code: exitUsage, err: err} }

// usageErrf is usageErr with fmt.Errorf formatting.
func usageErrf(format string, args ...any) error { return usageErr(fmt.Errorf(format, args...)) }

// exitCode makes the command exit with code without printing anything.
func exitCode(code int) error { return &cmdError{code: code} }

// jsonOutFlag is the --json flag every subcommand takes.
func jsonOutFlag() cli.Flag {
	return &cli.BoolFlag{Name: jsonFlag, Usage: "print one JSON document on stdout"}
}

// printJSON writes v as one indented JSON document to the command's stdout.
func printJSON(c *cli.Context, v any) error {
	if expr := jqExpr(c); expr != "" {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return err
		}
		return printJQ(safetext.NewWriter(c.App.Writer), expr, buf.Bytes())
	}
	// Hidden characters a peer sent (bidi overrides, zero-width) are
	// written as \u escapes: the same JSON value, shown safely.
	enc := json.NewEncoder(safetext.NewWriter(c.App.Writer))
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// repoFlagDef is the --repo flag, taken by the app and by every command.
func repoFlagDef() cli.Flag {
	return &cli.StringFlag{Name: repoFlag, Usage: "repo directory (default $" + repoEnv + " or ~/" + defaultRepo + ")"}
}

// repoDir resolves the repo: --repo (the command's, else the app's), else
// $SWARMWAGE_REPO, else ~/.swarmwage.
func repoDir(c *cli.Context) (string, error) {
	for _, ctx := range c.Lineage() {
		if ctx.IsSet(repoFlag) {
			if dir := ctx.String(repoFlag); dir != "" {
				return filepath.Abs(dir)
			}
		}
	}
	if dir := os.Getenv(repoEnv); dir != "" {
		return filepath.Abs(dir)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory for the default repo (set --repo or %s): %w", repoEnv, err)
	}
	return filepath.Join(home, defaultRepo), nil
}

// commands lists every top-level command; the tree is assembled here only.
func commands() []*cli.Command {
	return []*cli.Command{
		initCommand(),
		configCommand(),
		daemonCommand(),
		logsCommand(),
		shutdownCommand(),
		idCommand(),
		statusCommand(),
		peersCommand(),
		sellCommand(),
		findCommand(),
		skillcardCommand(),
		sandboxCommand(),
		benchCommand(),
		capsCommand(),
		verifyCommand(),
		hireCommand(),
		jobsCommand(),
		rateCommand(),
		walletCommand(),
		escrowCommand(),
		chainCommand(),
		mcpCommand(),
		demoCommand(),
		dashboardCommand(),
		versionCommand(),
		completionCommand(),
	}
}

func newApp(stdout, stderr io.Writer) *cli.App {
	cmds := commands()
	completeTree(cmds)
	return &cli.App{
		Name:                   "swarmwage",
		Usage:                  "a peer of the swarmwage agent market: sell capabilities, hire agents, verify, settle",
		Writer:                 stdout,
		ErrWriter:              stderr,
		EnableBashCompletion:   true,
		UseShortOptionHandling: false,
		Flags:                  []cli.Flag{repoFlagDef(), rootVersionFlag(), jsonOutFlag()},
		Commands:               cmds,
		Action:                 rootAction,
		// main is the only place that exits: errors come back to run.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageErr(err)
		},
	}
}

// run executes the CLI and returns the process exit code. Every error is
// printed exactly once, as "Error: <msg>" on stderr.
func run(args []string, stdout, stderr io.Writer) int {
	out := &countingWriter{w: stdout}
	app := newApp(out, stderr)
	args, err := normalizeArgs(app, args)
	if err == nil {
		err = app.Run(args)
	}
	if err == nil {
		return exitOK
	}
	code := exitFailure
	var ce *cmdError
	if errors.As(err, &ce) {
		code = ce.code
		if ce.err == nil {
			return code
		}
	} else if isUsageError(err) {
		code = exitUsage
	}
	fmt.Fprintf(stderr, "Error: %s\n", safetext.Escape(err.Error()))
	if code == exitUsage && out.n == 0 && wantsJSON(args) {
		// A script that asked for JSON reads stdout: it gets a document
		// there too, not only the message on stderr.
		enc := json.NewEncoder(safetext.NewWriter(stdout))
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		_ = enc.Encode(usageErrorDoc{Error: err.Error(), ExitCode: code, Outcome: controlapi.OutcomeInvalidInput})
	}
	return code
}

// usageErrorDoc is what a command given --json prints on stdout when it
// fails with a usage error (exit 2) before printing anything: the outcome
// field is hire's for a request it refused.
type usageErrorDoc struct {
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
	Outcome  string `json:"outcome"`
}

// wantsJSON reports whether the command line asks for --json (before any
// "--").
func wantsJSON(args []string) bool {
	for _, a := range args[min(1, len(args)):] {
		switch a {
		case "--":
			return false
		case "--json", "-json", "--json=true", "-json=true":
			return true
		}
	}
	return false
}

// countingWriter counts what was written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// commandPath is the command being run, as typed: "sell test".
func commandPath(c *cli.Context) string {
	var names []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" {
			names = append([]string{ctx.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}
