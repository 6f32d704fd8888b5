package llmmetrics

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/llmmetrics/llmmetrics/internal/blocks"
	"github.com/llmmetrics/llmmetrics/internal/csvline"
	"github.com/llmmetrics/llmmetrics/internal/csvrow"
	"github.com/llmmetrics/llmmetrics/internal/decimal"
)

// The CSV format is the one the specification writes:
//
//	request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms
//
// with two optional columns, sent_ms (the send time in milliseconds since
// the run's start; else Run.NoSendTimes) and status (ok, error, timeout or
// cancelled; ok when absent or empty), and a third this package adds,
// message (a failed request's error text). Header names are matched exactly
// (see csvrow.Required and csvrow.Optional). TTFT_ms and E2E_ms are empty on
// failed and zero-token rows.

// ReadCSV reads a run from the CSV format, strictly; see
// ReadOptions.ReadCSV.
func ReadCSV(r io.Reader) (*Run, error) { return ReadOptions{}.ReadCSV(r) }

// ReadCSV reads a run from the CSV format. A missing required column, an
// unknown or repeated column, an unreadable input, or a row longer than
// 256 MiB is an error. A row that cannot be parsed stops reading with its
// *RecordError (line, column and field), or, with Lenient, is set aside in
// the Run, which is then returned with Run.Err. A leading UTF-8 byte order
// mark is ignored.
//
// A last row without a newline that does not parse is a cut (Run.Cut),
// neither record nor error, if it can begin a row: it has no more fields
// than the header, may end inside a quoted field, and its fields before
// the last (which may be cut anywhere, and is not judged) parse.
//
// Rows are read as encoding/csv reads them (RFC 4180). Up to the first
// quoted field that goes on past the end of its line, or a last line
// without a newline, they are split on all cores, then read one at a time.
func (o ReadOptions) ReadCSV(r io.Reader) (*Run, error) {
	total, _ := o.counts(r)
	head, r, err := csvline.Header(r, maxLine)
	if err != nil && !errors.Is(err, csvline.ErrLongRow) {
		return nil, fmt.Errorf("llmmetrics: reading CSV: %w", err)
	}
	if head == nil && err == nil {
		return o.readQuotedCSV(r)
	}
	header := []string(nil)
	if err == nil {
		header, err = csv.NewReader(bytes.NewReader(head)).Read()
	}
	cols, err := csvColumns(header, err)
	if err != nil {
		return nil, err
	}
	first := bytes.Count(head, []byte{'\n'}) + 1
	var dst *rows
	if o.table {
		dst = newTableRows(first, total-first+1, cols.Sent >= 0)
	} else {
		dst = newRows(first, total-first+1)
	}
	next, stop := parseBlocks(r, first, csvline.Fence, dst, func(b block) parsedBlock { return parseCSVBlock(b, cols, len(header), o.table) })
	defer stop()
	run := o.newCSVRun(cols)
	end, err := o.gather(next, dst, run, nil)
	if err != nil {
		return nil, err
	}
	var long *blocks.LongLine
	switch {
	case errors.As(end.err, &long):
		return nil, fmt.Errorf("%w: CSV row starting at line %d is longer than %d bytes", ErrSyntax, long.Line, maxLine)
	case end.err != nil:
		return nil, fmt.Errorf("llmmetrics: reading CSV: %w", end.err)
	case end.rest != nil:
		stop()
		lr := &csvline.Limiter{R: end.rest, Max: int64(maxLine)}
		if err := o.readCSVRowsFrom(csv.NewReader(lr), lr, end.line-1, 0, cols, len(header), run); err != nil {
			return nil, err
		}
	}
	run.tab.Flush()
	return run, run.Err()
}

// readQuotedCSV reads the whole of a CSV input with encoding/csv, one row
// at a time: for a header that the fast path does not take.
func (o ReadOptions) readQuotedCSV(r io.Reader) (*Run, error) {
	lr := &csvline.Limiter{R: r, Max: int64(maxLine)}
	cr := csv.NewReader(lr)
	header, err := cr.Read()
	cols, err := csvColumns(header, err)
	if err != nil {
		return nil, err
	}
	line, _ := cr.FieldPos(len(header) - 1)
	run := o.newCSVRun(cols)
	if err := o.readCSVRowsFrom(cr, lr, 0, line, cols, len(header), run); err != nil {
		return nil, err
	}
	run.tab.Flush()
	return run, run.Err()
}

// readCSVRowsFrom reads the rows of cr (reading through lr) into run,
// numbering its lines from base+1; lastLine is the line of cr on which the
// last row read (the header) ended, 0 when none.
func (o ReadOptions) readCSVRowsFrom(cr *csv.Reader, lr *csvline.Limiter, base, lastLine int, cols csvrow.Columns, fields int, run *Run) error {
	cr.ReuseRecord = true
	cr.FieldsPerRecord = fields
	reject := func(row []string, pe *csv.ParseError, rerr *RecordError) error { // or a cut, on the last line
		if present, line, n, ok := lr.Cut(cr, row, pe); ok && csvrow.Cut(present, fields, cols, statusNames[:]) {
			run.tab.Flush() // the cut is the input's last row: every record is in
			run.Cut = &Cut{Line: base + line, Bytes: n, Of: "row"}
			run.Cut.After = run.Completeness().Read
			return nil
		}
		return o.reject(run, rerr)
	}
	long, err := csvline.Rows(cr, lr, lastLine, func(row []string, line int) error {
		rec, rerr := csvRowRecord(cr, row, cols, base)
		if rerr != nil {
			return reject(row, nil, rerr)
		}
		if run.tab != nil { // into the table, when the run has one
			addToTable(run.tab.Tail(rec.ID), &rec, base+line)
		} else {
			run.Records, run.Lines = append(run.Records, rec), append(run.Lines, base+line)
		}
		return nil
	}, func(row []string, pe *csv.ParseError) error {
		return reject(row, pe, csvSyntaxError(base+pe.Line, pe.Column, pe.Err))
	})
	var read *csvline.ReadError
	switch {
	case long > 0:
		return fmt.Errorf("%w: CSV row starting at line %d is longer than %d bytes", ErrSyntax, base+long, maxLine)
	case errors.As(err, &read):
		return fmt.Errorf("llmmetrics: reading CSV: %w", read.Err)
	}
	return err
}

// csvColumns checks a header, read with the error err, and finds each
// column.
func csvColumns(header []string, err error) (csvrow.Columns, error) {
	cols, e := csvrow.ColumnsOf(header)
	switch {
	case err == io.EOF:
		return csvrow.Columns{}, fmt.Errorf("%w: the input is empty; want a CSV header or JSONL records", ErrNoRecords)
	case errors.Is(err, csvline.ErrLongRow):
		return csvrow.Columns{}, fmt.Errorf("%w: CSV header at line 1 is longer than %d bytes", ErrSyntax, maxLine)
	case err != nil:
		return csvrow.Columns{}, fmt.Errorf("%w: CSV header: %w", ErrSyntax, err)
	case e != nil && e.Missing:
		return cols, fmt.Errorf("%w: CSV header: %s", ErrMissingField, e.Detail)
	case e != nil:
		return cols, fmt.Errorf("%w: CSV header: %s", ErrSyntax, e.Detail)
	}
	return cols, nil
}

// csvRowRecord turns a row that cr read into a record, or into the error
// of its first field that cannot be parsed, with the line (cr's line plus
// base) and column of that field.
func csvRowRecord(cr *csv.Reader, row []string, cols csvrow.Columns, base int) (Record, *RecordError) {
	var f csvrow.Fields
	for i, s := range row {
		f[i] = []byte(s)
	}
	var rec Record
	if rerr := parseCSVRow(&f, cols, &rec); rerr != nil {
		line, column := cr.FieldPos(rerr.Column)
		rerr.Line, rerr.Column, rerr.ID = base+line, column, row[cols.ID]
		return Record{}, rerr
	}
	rec.ID = row[cols.ID]
	if cols.Message >= 0 {
		rec.Message = row[cols.Message]
	}
	return rec, nil
}

// csvSyntaxError is the error of a row that is not CSV, or has the wrong
// number of fields: encoding/csv's error err, at a line and column.
func csvSyntaxError(line, column int, err error) *RecordError {
	return &RecordError{Index: -1, Line: line, Column: column, Err: fmt.Errorf("%w: %w", ErrSyntax, err)}
}

// parseCSVRow parses one data row's fields into rec, a zero Record, all
// but its id and message, which the caller sets (see csvrow.Parse). A
// field that cannot be parsed is an error naming the field, with Column
// set to its position in the row; the caller turns that into a line and
// column.
func parseCSVRow(f *csvrow.Fields, c csvrow.Columns, rec *Record) *RecordError {
	var pr csvrow.Row
	at, field, ok := csvrow.Parse(f, c, statusNames[:], &pr)
	if ok {
		setRow(rec, &pr)
		return nil
	}
	var err error
	switch field {
	case "status":
		_, err = parseStatusBytes(f[at])
	case "prompt_tokens", "completion_tokens":
		_, err = parseCount(f[at])
	default:
		_, err = parseMillis(f[at])
	}
	return &RecordError{Index: -1, Column: at, Field: field, Err: err}
}

// setRow sets the fields of rec that a CSV row gives, all but its id and
// message, one by one.
func setRow(rec *Record, r *csvrow.Row) {
	rec.Status, rec.Sent, rec.FirstText, rec.LastText = Status(r.Status), r.Sent, r.First, r.Last
	rec.PromptTokens, rec.CompletionTokens = r.Prompt, r.Completion
}

// WriteCSV writes records in the CSV format, with every column. Times are
// written in milliseconds with exactly as many decimals as their nanoseconds
// need, so reading the file back gives the same durations. Failed and
// zero-token rows have empty TTFT_ms and E2E_ms; a failed row's count of 0
// is empty, no count. The CSV format has no chunk
// arrivals: a record's Chunks, ChunkTokens, MaxTokens and Client are not
// written (use WriteJSONL to keep them), and a warm-up record, which the
// format cannot mark, is an error rather than a row read back as measured,
// as is an ok record without a usable count, which would read as one.
func WriteCSV(w io.Writer, recs []Record) error { return writeCSV(w, recs, false) }

// WriteCSV writes the run's records as the function WriteCSV does, without
// the sent_ms column when the run has no send times (NoSendTimes), so that
// it reads back without them, never as sent at 0; as WriteJSONL, it writes
// neither the records set aside nor a cut.
func (run *Run) WriteCSV(w io.Writer) error { return writeCSV(w, run.Records, run.NoSendTimes) }

// writeCSV writes records as WriteCSV does, without sent_ms if noSent.
func writeCSV(w io.Writer, recs []Record, noSent bool) error {
	cw, head := csv.NewWriter(w), slices.Concat(csvrow.Required, csvrow.Optional)
	if noSent {
		head = slices.DeleteFunc(head, func(h string) bool { return h == "sent_ms" })
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for i := range recs {
		r := &recs[i]
		if r.Warmup || r.Preflight {
			what := map[bool]string{false: "a warm-up request", true: "a preflight request (a test or sizing request sent before the load)"}[r.Preflight]
			return &RecordError{Index: i, ID: r.ID, Field: map[bool]string{false: "warmup", true: "preflight"}[r.Preflight], Err: fmt.Errorf("%w: the CSV format has no column to mark %s; write JSONL", ErrMissingField, what)}
		}
		if st := r.CountState(); r.Status == StatusOK && st != CountKnown { // no usage, or one its chunks belie
			return &RecordError{Index: i, ID: r.ID, Field: "completion_tokens", Err: fmt.Errorf("%w: no usable output token count (%s), which a CSV row, without chunks, cannot keep (it would read as a count); write JSONL", ErrMissingField, st)}
		}
		ttftMs, e2eMs := "", ""
		if r.Status == StatusOK && r.CompletionTokens > 0 {
			ttftMs, e2eMs = decimal.FormatMillis(int64(r.first())), decimal.FormatMillis(int64(r.last()))
		}
		row := []string{
			r.ID, decimal.FormatCount(r.PromptTokens, r.Status == StatusOK), decimal.FormatCount(r.CompletionTokens, r.Status == StatusOK), ttftMs, e2eMs,
			decimal.FormatMillis(int64(r.Sent)), r.Status.String(), r.Message,
		}
		if noSent {
			row = slices.Delete(row, 5, 6) // sent_ms
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
