// Package texttable writes the tables of a report for people: cells in
// columns aligned by text/tabwriter, numbers to the right.
package texttable

import (
	"fmt"
	"io"
	"maps"
	"slices"
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

// Pairs writes a line naming pairs, "name: k1=v1 k2=v2\n", its keys in
// order, or nothing when kv is empty.
func Pairs(w io.Writer, name string, kv map[string]string) {
	if len(kv) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:", name)
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		fmt.Fprintf(w, " %s=%s", k, kv[k])
	}
	fmt.Fprintln(w)
}
