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

// ReadCSV reads a run from the CSV format, strictly; see
// ReadOptions.ReadCSV.
func ReadCSV(r io.Reader) (*Run, error) { return ReadOptions{}.ReadCSV(r) }

// ReadCSV reads a run from the CSV format. A missing required column, an
// unknown or repeated column, an unreadable input, or a row longer than
// 256 MiB is an error. A row that cannot be parsed stops reading with its
// *RecordError (line, column and field), or, with Lenient, is set aside in
// the Run, which is then returned with Run.Err. A leading UTF-8 byte order
// mark is ignored.
func (o ReadOptions) ReadCSV(r io.Reader) (*Run, error) {
	lr := &rowLimiter{r: r, max: int64(maxLine)}
	cr := csv.NewReader(lr)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: the input is empty; want a CSV header or JSONL records", ErrNoRecords)
	}
	if errors.Is(err, errLongRow) {
		return nil, fmt.Errorf("%w: CSV header at line 1 is longer than %d bytes", ErrSyntax, maxLine)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: CSV header: %w", ErrSyntax, err)
	}
	cols, err := csvColumns(header)
	if err != nil {
		return nil, err
	}
	cr.FieldsPerRecord = len(header)

	run := &Run{}
	lastLine := 1 // the line the last row read ended on
	for {
		lr.mark = cr.InputOffset()
		row, err := cr.Read()
		if err == io.EOF {
			return run, run.Err()
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if !errors.Is(pe.Err, errLongRow) {
				if rerr := o.reject(run, &RecordError{Index: -1, Line: pe.Line, Column: pe.Column, Err: fmt.Errorf("%w: %w", ErrSyntax, pe.Err)}); rerr != nil {
					return nil, rerr
				}
				lastLine = pe.Line
				if cr.InputOffset() != lr.mark {
					continue
				}
				// no progress: nothing more can be read
				return run, run.Err()
			}
			err = pe.Err
		}
		if errors.Is(err, errLongRow) {
			return nil, fmt.Errorf("%w: CSV row starting at line %d is longer than %d bytes", ErrSyntax, lastLine+1, maxLine)
		}
		if err != nil {
			return nil, fmt.Errorf("llmmetrics: reading CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		lastLine, _ = cr.FieldPos(len(row) - 1)
		rec, rerr := parseCSVRow(cr, row, cols)
		if rerr != nil {
			rerr.Line = line
			if err := o.reject(run, rerr); err != nil {
				return nil, err
			}
			continue
		}
		run.Records = append(run.Records, rec)
		run.Lines = append(run.Lines, line)
	}
}

// csvCols holds the position of each column in a row, -1 for an optional
// column that is absent.
type csvCols struct {
	id, prompt, completion, ttft, e2e, sent, status, message int
}

// csvColumns checks a header and finds each column.
func csvColumns(header []string) (csvCols, error) {
	col := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, string(bom))
		}
		if _, dup := col[h]; dup {
			return csvCols{}, fmt.Errorf("%w: CSV header: column %q repeated", ErrSyntax, h)
		}
		if !contains(csvRequired, h) && !contains(csvOptional, h) {
			return csvCols{}, fmt.Errorf("%w: CSV header: unknown column %q (want %s, optionally %s)",
				ErrSyntax, h, strings.Join(csvRequired, ","), strings.Join(csvOptional, ","))
		}
		col[h] = i
	}
	for _, h := range csvRequired {
		if _, ok := col[h]; !ok {
			return csvCols{}, fmt.Errorf("%w: CSV header: required column %q is missing", ErrMissingField, h)
		}
	}
	at := func(h string) int {
		if i, ok := col[h]; ok {
			return i
		}
		return -1
	}
	return csvCols{
		id: at("request_id"), prompt: at("prompt_tokens"), completion: at("completion_tokens"),
		ttft: at("TTFT_ms"), e2e: at("E2E_ms"), sent: at("sent_ms"), status: at("status"), message: at("message"),
	}, nil
}

var errLongRow = errors.New("row too long")

// rowLimiter passes reads through, failing with errLongRow once more than
// max bytes have been read past mark, the offset at which the row being
// read began: encoding/csv has no bound of its own on a row's length.
type rowLimiter struct {
	r         io.Reader
	read      int64
	mark, max int64
}

func (l *rowLimiter) Read(p []byte) (int, error) {
	if l.read-l.mark > l.max {
		return 0, errLongRow
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
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
func parseCSVRow(cr *csv.Reader, row []string, c csvCols) (Record, *RecordError) {
	rec := Record{ID: row[c.id]}
	fail := func(at int, field string, err error) (Record, *RecordError) {
		line, column := cr.FieldPos(at)
		return Record{}, &RecordError{Index: -1, Line: line, Column: column, ID: rec.ID, Field: field, Err: err}
	}
	get := func(at int) string {
		if at >= 0 {
			return row[at]
		}
		return ""
	}
	var err error
	if rec.Status, err = ParseStatus(get(c.status)); err != nil {
		return fail(c.status, "status", err)
	}
	rec.Message = get(c.message)
	if s := get(c.sent); s != "" {
		if rec.Sent, err = parseMillis(s); err != nil {
			return fail(c.sent, "sent_ms", err)
		}
	}
	ok := rec.Status == StatusOK
	for _, f := range [...]struct {
		at    int
		field string
		dst   *int
	}{{c.prompt, "prompt_tokens", &rec.PromptTokens}, {c.completion, "completion_tokens", &rec.CompletionTokens}} {
		s := get(f.at)
		if s == "" && !ok {
			continue // a failed row may leave its counts empty
		}
		if *f.dst, err = parseCount(s); err != nil {
			return fail(f.at, f.field, err)
		}
	}
	needTimes := ok && rec.CompletionTokens > 0
	for _, f := range [...]struct {
		at    int
		field string
		dst   *time.Duration
	}{{c.ttft, "TTFT_ms", &rec.FirstText}, {c.e2e, "E2E_ms", &rec.LastText}} {
		s := get(f.at)
		if s == "" && !needTimes {
			continue
		}
		if *f.dst, err = parseMillis(s); err != nil {
			return fail(f.at, f.field, err)
		}
	}
	return rec, nil
}

// WriteCSV writes records in the CSV format, with every column. Times are
// written in milliseconds with exactly as many decimals as their nanoseconds
// need, so reading the file back gives the same durations. Failed and
// zero-token rows have empty TTFT_ms and E2E_ms. The CSV format has no chunk
// arrivals: a record's Chunks, ChunkTokens, MaxTokens and Client are not
// written (use WriteJSONL to keep them), and a warm-up record, which the
// format cannot mark, is an error rather than a row read back as measured.
func WriteCSV(w io.Writer, recs []Record) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append(append([]string(nil), csvRequired...), csvOptional...)); err != nil {
		return err
	}
	for i := range recs {
		r := &recs[i]
		if r.Warmup {
			return fmt.Errorf("%w: record %d (id %q) is a warm-up request, which the CSV format cannot mark; write JSONL", ErrMissingField, i, r.ID)
		}
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
