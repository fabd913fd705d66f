package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/internal/logtail"
	"github.com/swarmwage/swarmwage/internal/safetext"
	"github.com/swarmwage/swarmwage/node"
)

// 'swarmwage logs [-f]': the log of the daemon started with --log-file.

const (
	followFlag = "follow"
	linesFlag  = "lines"
)

// maxLogsJSON bounds what 'logs --json' reads into one document; a bigger
// log is read with --lines, or as text.
const maxLogsJSON = 64 << 20

func logsCommand() *cli.Command {
	return &cli.Command{
		Name:  "logs",
		Usage: "print the daemon's log (the file of 'daemon --log-file PATH': its own log and every exec handler's stderr); -f follows it",
		Description: `The daemon logs to its stderr unless started with --log-file PATH; then the
repo records PATH and 'swarmwage logs' prints that file (--file reads another),
'swarmwage logs -f' follows it as 'tail -F' does (across a truncation or a
rotation) until Ctrl-C, and '-n N' starts at the last N lines. Each line is a
log/slog text record, 'time=... level=... msg=...'; a handler's stderr lines
read msg="handler stderr" job=... capability=... line=....`,
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: followFlag, Aliases: []string{"f"}, Usage: "print lines as they are appended, until interrupted"},
			&cli.IntFlag{Name: linesFlag, Aliases: []string{"n"}, Usage: "start at the last `N` lines (0: the whole file)"},
			&cli.StringFlag{Name: fileFlag, Usage: "read the log at `PATH` instead of the one the repo's daemon writes"},
			jsonOutFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErrf("logs takes no arguments (-f to follow, -n N for the last N lines)")
			}
			if c.Int(linesFlag) < 0 {
				return usageErrf("--lines %d: want 0 (all) or more", c.Int(linesFlag))
			}
			path := c.String(fileFlag)
			if path == "" {
				dir, err := repoDir(c)
				if err != nil {
					return err
				}
				if path, err = node.LogFile(dir); err != nil {
					var nr node.NoRepoError
					if errors.As(err, &nr) {
						return usageErr(err)
					}
					return exitErr(exitFailure, err)
				}
			}
			f, err := os.Open(path)
			if err != nil {
				return exitErr(exitFailure, fmt.Errorf("open the log: %w", err))
			}
			off, err := logtail.Start(f, c.Int(linesFlag))
			if err != nil {
				f.Close()
				return err
			}
			w := safetext.NewWriter(c.App.Writer)
			if c.Bool(jsonFlag) && !c.Bool(followFlag) {
				defer f.Close()
				return printLogJSON(c, f, off, path)
			}
			var out io.Writer = w
			if c.Bool(jsonFlag) {
				out = &lineJSON{w: w, jq: jqExpr(c)}
			}
			if !c.Bool(followFlag) {
				defer f.Close()
				_, err := logtail.Copy(out, f, off)
				return err
			}
			ctx, cancel := signalContext(c)
			defer cancel()
			return logtail.Follow(ctx, out, path, f, off, logtail.DefaultPoll)
		},
	}
}

// printLogJSON prints the log from off as {"file", "lines"}.
func printLogJSON(c *cli.Context, f *os.File, off int64, path string) error {
	var buf bytes.Buffer
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(&buf, io.LimitReader(f, maxLogsJSON+1))
	if err != nil {
		return fmt.Errorf("read the log: %w", err)
	}
	if n > maxLogsJSON {
		return exitErr(exitFailure, fmt.Errorf("the log from there is over %d MiB: use --lines N, or read it without --json", maxLogsJSON>>20))
	}
	return printJSON(c, struct {
		File  string   `json:"file"`
		Lines []string `json:"lines"`
	}{path, logtail.Lines(buf.Bytes())})
}

// lineJSON turns the log's text into one {"line"} JSON document a line
// ('logs -f --json', NDJSON); a line is written once its newline came.
type lineJSON struct {
	w       io.Writer
	jq      string // --jq, applied to each line's document
	partial []byte
}

func (l *lineJSON) Write(p []byte) (int, error) {
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		doc, err := json.Marshal(struct {
			Line string `json:"line"`
		}{string(l.partial[:i])})
		if err != nil {
			return 0, err
		}
		if l.jq != "" {
			err = printJQ(l.w, l.jq, doc)
		} else {
			_, err = fmt.Fprintf(l.w, "%s\n", doc)
		}
		if err != nil {
			return 0, err
		}
		l.partial = l.partial[i+1:]
	}
}
