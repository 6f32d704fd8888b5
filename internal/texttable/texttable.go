// Package texttable writes the tables of a report for people: cells in
// columns aligned by text/tabwriter, numbers to the right.
package texttable

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Write writes rows as a table: each cell followed by a tab and each row
// by a newline, through a tabwriter that aligns every cell to the right
// of its column, two spaces apart. With left, the first column is
// aligned to the left instead: its cells are padded with spaces to the
// bytes of the longest (ASCII names).
func Write(w io.Writer, rows [][]string, left bool) error {
	width := 0
	for _, row := range rows {
		if left && len(row) > 0 {
			width = max(width, len(row[0]))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range rows {
		for i, cell := range row {
			if i == 0 && left {
				cell = fmt.Sprintf("%-*s", width, cell)
			}
			io.WriteString(tw, cell)
			io.WriteString(tw, "\t")
		}
		io.WriteString(tw, "\n")
	}
	return tw.Flush()
}
