package llmmetrics

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"sync"

	"github.com/llmmetrics/llmmetrics/internal/table"
)

// Reading a block of CSV rows, each one line: the splitter stops before
// the first line with an odd number of double quotes (csvline.OpenQuote), the
// only kind of line on which encoding/csv can go on reading past its end
// (a quoted field holding a newline). A row without a quote is split on
// its commas, which is what encoding/csv does with it; a row with quotes,
// self-contained, is given to encoding/csv alone. The numbers are parsed
// from the bytes in place, and the ids of a block share one string.

// csvScratch is a block's working memory, reused from block to block: on a
// large file, new memory for every block would be memory the system has to
// provide fresh, many times over, before the collector frees any.
type csvScratch struct {
	text  []byte
	spans [][4]int32
}

var csvScratchPool = sync.Pool{New: func() any { return new(csvScratch) }}

// parseCSVBlock parses a block of rows with the given columns, each row
// needing fields fields, into records, or into a block of a table when
// intoTable is set.
func parseCSVBlock(b block, cols csvCols, fields int, intoTable bool) parsedBlock {
	pb := parsedBlock{err: b.Err}
	n := b.Lines()
	switch {
	case b.tab != nil:
		pb.tab = b.tab
	case intoTable:
		pb.tab = table.NewBlock(n)
	default:
		pb.recs, pb.lines = b.slots(n)
	}
	// Into records, the ids and messages are copied into text and cut
	// from one string at the end; spans[k] is where record k's are. A
	// table block keeps its own ids, and leaves text and spans empty.
	sc := csvScratchPool.Get().(*csvScratch)
	defer csvScratchPool.Put(sc)
	text, spans := sc.text[:0], sc.spans[:0]
	data, line := b.Data, b.FirstLine
	plan := newRowPlan(cols, fields)
	// Most blocks have no quote at all: their rows are not each searched
	// for one.
	quotes := bytes.IndexByte(data, '"') >= 0
	for ; len(data) > 0; line++ {
		row := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			row, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if quotes && bytes.IndexByte(row, '"') >= 0 {
			if rec, item, ok := quotedCSVRow(row, line, cols, fields); ok && pb.tab != nil {
				addToTable(pb.tab, &rec, line)
			} else if ok {
				pb.recs, pb.lines = append(pb.recs, rec), append(pb.lines, line)
				spans = append(spans, [4]int32{-1})
			} else if item.err != nil {
				pb.items = append(pb.items, item)
			}
			continue
		}
		// encoding/csv takes "\r\n" as "\n", and drops a "\r" ending the input.
		if k := len(row) - 1; k >= 0 && row[k] == '\n' {
			row = row[:k]
		}
		if k := len(row) - 1; k >= 0 && row[k] == '\r' {
			row = row[:k]
		}
		if len(row) == 0 {
			continue // blank lines are skipped
		}
		// The record is read in its slot: copying a Record, which holds
		// pointers, costs a write barrier on every copy while the
		// collector runs. A table's row is read into rec.
		var rec Record
		r := &rec
		if pb.tab == nil {
			pb.recs = pb.recs[:len(pb.recs)+1]
			r = &pb.recs[len(pb.recs)-1]
		}
		id, message, ok := plan.read(row, r)
		if !ok {
			*r = Record{}
			var item lineItem
			if id, message, item, ok = readCSVRow(row, line, cols, fields, r); !ok {
				if pb.tab == nil {
					pb.recs = pb.recs[:len(pb.recs)-1]
				}
				pb.items = append(pb.items, item)
				continue
			}
		}
		if pb.tab != nil {
			table.Add(pb.tab, id, message, uint8(r.Status), r.Sent, r.FirstText, r.LastText, r.PromptTokens, r.CompletionTokens, line)
			continue
		}
		var sp [4]int32
		sp[0] = int32(len(text))
		text = append(text, id...)
		sp[1], sp[2] = int32(len(text)), int32(len(text))
		text = append(text, message...)
		sp[3] = int32(len(text))
		spans = append(spans, sp)
		pb.lines = append(pb.lines, line)
	}
	pb.lastLine = line
	sc.text, sc.spans = text, spans // grown, kept for the next block
	all := string(text)
	for k, sp := range spans {
		if sp[0] >= 0 { // a quoted row has its strings already
			pb.recs[k].ID, pb.recs[k].Message = all[sp[0]:sp[1]], all[sp[2]:sp[3]]
		}
	}
	return pb
}

// readCSVRow reads a row without quotes (or line ending) on line line
// into rec, a zero Record, all but its id and message, which it returns:
// split on its commas, each field parsed apart. A row that cannot be read
// gives its error in item, with its line, column and id, and ok false.
func readCSVRow(row []byte, line int, cols csvCols, fields int, rec *Record) (id, message []byte, item lineItem, ok bool) {
	var f csvFields
	var at [len(f)]int // each field's offset in the row
	k, start := 0, 0
	for i := 0; ; i++ {
		if i == len(row) || row[i] == ',' {
			if k == fields {
				k++ // one too many
				break
			}
			f[k], at[k] = row[start:i], start
			k++
			start = i + 1
			if i == len(row) {
				break
			}
		}
	}
	if k != fields {
		return nil, nil, lineItem{line: line, err: csvSyntaxError(line, 1, csv.ErrFieldCount)}, false
	}
	if rerr := parseCSVRow(&f, cols, rec); rerr != nil {
		rerr.Line, rerr.Column, rerr.ID = line, at[rerr.Column]+1, string(f[cols.id])
		return nil, nil, lineItem{line: line, err: rerr}, false
	}
	if cols.message >= 0 {
		message = f[cols.message]
	}
	return f[cols.id], message, lineItem{}, true
}

// quotedCSVRow reads one self-contained row holding double quotes with
// encoding/csv, as the whole input's reader would read it at that line. It
// returns the record, or the row's error in item, or neither for a blank
// row.
func quotedCSVRow(row []byte, line int, cols csvCols, fields int) (Record, lineItem, bool) {
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
