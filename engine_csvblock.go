package llmmetrics

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"

	"github.com/llmmetrics/llmmetrics/internal/csvrow"
	"github.com/llmmetrics/llmmetrics/internal/table"
)

// Reading a block of CSV rows, each one line: the splitter stops before
// the first line with an odd number of double quotes, the only kind on
// which encoding/csv can go on reading past its end (a quoted field
// holding a newline), and before a last line without one, which may be cut
// (csvline.Fence). A row without a quote is split on its commas, which is
// what encoding/csv does with it; a row with quotes, self-contained, is
// given to encoding/csv alone. The numbers are parsed from the bytes in
// place (see internal/csvrow), and the ids of a block share one string.

// parseCSVBlock parses a block of rows with the given columns, each row
// needing fields fields, into records, or into a block of a table when
// intoTable is set.
func parseCSVBlock(b block, cols csvrow.Columns, fields int, intoTable bool) parsedBlock {
	pb := parsedBlock{err: b.Err}
	n := b.Lines()
	switch {
	case b.tab != nil:
		pb.tab = b.tab
	case intoTable:
		pb.tab = table.NewBlock(n, cols.Sent >= 0)
	default:
		pb.recs, pb.lines = b.slots(n)
	}
	// Into records, the ids and messages are cut from one string at the
	// end. A table block keeps its own ids, and leaves strs empty.
	strs := csvrow.GetStrings()
	defer strs.Put()
	plan := csvrow.NewPlan(cols, fields, statusNames[:], uint8(StatusOK))
	pb.lastLine = csvrow.Rows(b.Data, b.FirstLine, func(row []byte, line int, quoted bool) {
		if quoted {
			if rec, item, ok := quotedCSVRow(row, line, cols, fields); ok && pb.tab != nil {
				addToTable(pb.tab, &rec, line)
			} else if ok {
				pb.recs, pb.lines = append(pb.recs, rec), append(pb.lines, line)
				strs.Skip()
			} else if item.err != nil {
				pb.items = append(pb.items, item)
			}
			return
		}
		var pr csvrow.Row
		plain := plan.Read(row, &pr)
		if plain && pb.tab != nil {
			table.Add(pb.tab, pr.ID, pr.Message, pr.Status, pr.Sent, pr.First, pr.Last, pr.Prompt, pr.Completion, line)
			return
		}
		// The record is read in its slot, field by field: copying a
		// Record, which holds pointers, costs a write barrier on every
		// copy while the collector runs. A table's row is read into rec.
		var rec Record
		r := &rec
		if pb.tab == nil {
			pb.recs = pb.recs[:len(pb.recs)+1]
			r = &pb.recs[len(pb.recs)-1]
		}
		id, message := pr.ID, pr.Message
		if plain {
			setRow(r, &pr)
		} else {
			*r = Record{} // a slot may hold what a rejected row left
			var item lineItem
			var ok bool
			if id, message, item, ok = readCSVRow(row, line, cols, fields, r); !ok {
				if pb.tab == nil {
					pb.recs = pb.recs[:len(pb.recs)-1]
				}
				pb.items = append(pb.items, item)
				return
			}
		}
		if pb.tab != nil {
			table.Add(pb.tab, id, message, uint8(r.Status), r.Sent, r.FirstText, r.LastText, r.PromptTokens, r.CompletionTokens, line)
			return
		}
		strs.Add(id, message)
		pb.lines = append(pb.lines, line)
	})
	strs.Cut(func(k int, id, message string) { pb.recs[k].ID, pb.recs[k].Message = id, message })
	return pb
}

// readCSVRow reads a row without quotes (or line ending) on line line
// into rec, a zero Record, all but its id and message, which it returns:
// split on its commas, each field parsed apart. A row that cannot be read
// gives its error in item, with its line, column and id, and ok false.
func readCSVRow(row []byte, line int, cols csvrow.Columns, fields int, rec *Record) (id, message []byte, item lineItem, ok bool) {
	var f csvrow.Fields
	var at [len(f)]int // each field's offset in the row
	if !csvrow.Split(row, fields, &f, &at) {
		return nil, nil, lineItem{line: line, err: csvSyntaxError(line, 1, csv.ErrFieldCount)}, false
	}
	if rerr := parseCSVRow(&f, cols, rec); rerr != nil {
		rerr.Line, rerr.Column, rerr.ID = line, at[rerr.Column]+1, string(f[cols.ID])
		return nil, nil, lineItem{line: line, err: rerr}, false
	}
	if cols.Message >= 0 {
		message = f[cols.Message]
	}
	return f[cols.ID], message, lineItem{}, true
}

// quotedCSVRow reads one self-contained row holding double quotes with
// encoding/csv, as the whole input's reader would read it at that line. It
// returns the record, or the row's error in item, or neither for a blank
// row.
func quotedCSVRow(row []byte, line int, cols csvrow.Columns, fields int) (Record, lineItem, bool) {
	cr := csv.NewReader(bytes.NewReader(row))
	cr.FieldsPerRecord = fields
	got, err := cr.Read()
	if err == io.EOF {
		return Record{}, lineItem{}, false
	}
	if err != nil {
		var pe *csv.ParseError
		if !errors.As(err, &pe) {
			pe = &csv.ParseError{Line: 1, Column: 1, Err: err}
		}
		return Record{}, lineItem{line: line, err: csvSyntaxError(line+pe.Line-1, pe.Column, pe.Err)}, false
	}
	rec, rerr := csvRowRecord(cr, got, cols, line-1)
	if rerr != nil {
		return Record{}, lineItem{line: line, err: rerr}, false
	}
	return rec, lineItem{}, true
}
