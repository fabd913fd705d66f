package main

import (
	"errors"
	"io"
	"text/tabwriter"

	"github.com/swarmwage/swarmwage/internal/safetext"
)

// table is the CLI's one table writer: text/tabwriter with the columns
// every command uses, behind a safetext.Writer, because cells hold what
// peers sent (capability IDs, descriptions, reasons, outputs) and a
// bidi override or a terminal escape in one must show as \u202e, not act.
// The escape runs before tabwriter, so column widths count what is shown.
type table struct {
	*safetext.Writer
	tw *tabwriter.Writer
}

func newTable(w io.Writer) *table { return newTableFlags(w, 0) }

func newTableFlags(w io.Writer, flags uint) *table {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', flags)
	return &table{Writer: safetext.NewWriter(tw), tw: tw}
}

// Flush writes out the table.
func (t *table) Flush() error { return errors.Join(t.Writer.Flush(), t.tw.Flush()) }
