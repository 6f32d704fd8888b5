package llmmetrics

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The CSV format is the one the lessons write:
//
//	request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms
//
// with two optional columns, sent_ms (the send time in milliseconds since
// the run's start; 0 when absent) and status (ok, error, timeout or
// cancelled; ok when absent or empty), and a third this package adds,
// message (a failed request's error text). Header names are matched exactly.
// TTFT_ms and E2E_ms are empty on failed and zero-token rows.
var (
	csvRequired = []string{"request_id", "prompt_tokens", "completion_tokens", "TTFT_ms", "E2E_ms"}
	csvOptional = []string{"sent_ms", "status", "message"}
)

// ReadCSV reads a run from the CSV format. A missing required column, an
// unknown or repeated column, or an unreadable input is an error. A row that
// cannot be parsed is set aside in Run.Rejected with its line, column and
// field; see Run.Err and Options.Lenient. A leading UTF-8 byte order mark is
// ignored.
func ReadCSV(r io.Reader) (*Run, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: empty CSV input, want a header", ErrMissingField)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: CSV header: %w", ErrSyntax, err)
	}
	col := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, string(bom))
		}
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("%w: CSV header: column %q repeated", ErrSyntax, h)
		}
		if !contains(csvRequired, h) && !contains(csvOptional, h) {
			return nil, fmt.Errorf("%w: CSV header: unknown column %q (want %s, optionally %s)",
				ErrSyntax, h, strings.Join(csvRequired, ","), strings.Join(csvOptional, ","))
		}
		col[h] = i
	}
	for _, h := range csvRequired {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("%w: CSV header: required column %q is missing", ErrMissingField, h)
		}
	}
	cr.FieldsPerRecord = len(header)

	run := &Run{}
	for {
		before := cr.InputOffset()
		row, err := cr.Read()
		if err == io.EOF {
			return run, nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			run.Rejected = append(run.Rejected, &RecordError{Index: -1, Line: pe.Line, Column: pe.Column, Err: fmt.Errorf("%w: %w", ErrSyntax, pe.Err)})
			if cr.InputOffset() == before {
				return run, nil // no progress: nothing more can be read
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("llmmetrics: reading CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		rec, rerr := parseCSVRow(cr, row, col)
		if rerr != nil {
			rerr.Line = line
			run.Rejected = append(run.Rejected, rerr)
			continue
		}
		run.Records = append(run.Records, rec)
		run.Lines = append(run.Lines, line)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseCSVRow parses one data row; the error names the column and field.
func parseCSVRow(cr *csv.Reader, row []string, col map[string]int) (Record, *RecordError) {
	rec := Record{ID: row[col["request_id"]]}
	fail := func(field string, err error) (Record, *RecordError) {
		line, column := cr.FieldPos(col[field])
		return Record{}, &RecordError{Index: -1, Line: line, Column: column, ID: rec.ID, Field: field, Err: err}
	}
	get := func(field string) string {
		if i, ok := col[field]; ok {
			return row[i]
		}
		return ""
	}
	var err error
	if rec.Status, err = ParseStatus(get("status")); err != nil {
		return fail("status", err)
	}
	rec.Message = get("message")
	if s := get("sent_ms"); s != "" {
		if rec.Sent, err = parseMillis(s); err != nil {
			return fail("sent_ms", err)
		}
	}
	ok := rec.Status == StatusOK
	for _, c := range [...]struct {
		field string
		dst   *int
	}{{"prompt_tokens", &rec.PromptTokens}, {"completion_tokens", &rec.CompletionTokens}} {
		s := get(c.field)
		if s == "" && !ok {
			continue // a failed row may leave its counts empty
		}
		if *c.dst, err = parseCount(s); err != nil {
			return fail(c.field, err)
		}
	}
	needTimes := ok && rec.CompletionTokens > 0
	for _, c := range [...]struct {
		field string
		dst   *time.Duration
	}{{"TTFT_ms", &rec.FirstText}, {"E2E_ms", &rec.LastText}} {
		s := get(c.field)
		if s == "" && !needTimes {
			continue
		}
		if *c.dst, err = parseMillis(s); err != nil {
			return fail(c.field, err)
		}
	}
	return rec, nil
}

// WriteCSV writes records in the CSV format, with every column. Times are
// written in milliseconds with exactly as many decimals as their nanoseconds
// need, so reading the file back gives the same durations. Failed and
// zero-token rows have empty TTFT_ms and E2E_ms. The CSV format has no chunk
// arrivals: a record's Chunks, ChunkTokens and MaxTokens are not written
// (use WriteJSONL to keep them).
func WriteCSV(w io.Writer, recs []Record) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append(append([]string(nil), csvRequired...), csvOptional...)); err != nil {
		return err
	}
	for i := range recs {
		r := &recs[i]
		ttftMs, e2eMs := "", ""
		if r.Status == StatusOK && r.CompletionTokens > 0 {
			ttftMs, e2eMs = formatMillis(r.first()), formatMillis(r.last())
		}
		row := []string{
			r.ID, strconv.Itoa(r.PromptTokens), strconv.Itoa(r.CompletionTokens), ttftMs, e2eMs,
			formatMillis(r.Sent), r.Status.String(), r.Message,
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
