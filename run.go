package llmmetrics

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/llmmetrics/llmmetrics/internal/csvrow"
	"io"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/linecount"
	"github.com/llmmetrics/llmmetrics/internal/lineio"
	"github.com/llmmetrics/llmmetrics/internal/table"
)

// A Run is the records of one benchmark run as read from a file, with the
// line each came from and the rows the reader set aside. Readers never drop
// a row: each one ends in Records, in Rejected, or, past MaxReasons
// rejected rows, in the count Unlisted. Run.Summarize counts all three;
// the function Summarize sees only the records it is given, which is why
// every reader returns a non-nil error (wrapping ErrRejected) whenever it
// set a row aside.
type Run struct {
	Header   *RunHeader // how the run was taken, when the file says
	End      *RunEnd    // how the run ended, when the file says
	Cut      *Cut       // where the input ends inside a line, when it does
	Records  []Record
	Lines    []int          // Lines[i] is the line Records[i] started on
	Rejected []*RecordError // the first MaxReasons rows that could not be parsed, with line, column and field
	Unlisted int            // rows rejected beyond the first MaxReasons: counted, reasons not kept

	// Window is the throughput window the file declares (another tool's
	// benchmark duration, say), 0 when it is derived from the records;
	// NoSendTimes says the file stores no send times, so that the records'
	// Sent are not real. Run.Summarize applies both unless its Options
	// declare a window (see Options.Window and Options.NoSendTimes): every
	// command that summarizes the run takes its window from there.
	Window      time.Duration
	NoSendTimes bool

	// tab, when not nil, holds the records instead of Records and Lines:
	// a table, which ReadOptions.Summarize reads a CSV file into.
	tab *table.Table
}

// Reject sets a row aside: its reason is kept while fewer than MaxReasons
// are, and it is counted in any case.
func (run *Run) Reject(e *RecordError) {
	if len(run.Rejected) < MaxReasons {
		run.Rejected = append(run.Rejected, e)
		return
	}
	run.Unlisted++
}

// RejectedCount is the number of rows set aside, listed or not.
func (run *Run) RejectedCount() int { return len(run.Rejected) + run.Unlisted }

// Err returns nil when every row parsed, and otherwise an error that wraps
// ErrRejected and every listed *RecordError, and counts the unlisted ones.
func (run *Run) Err() error { return joinRecordErrors(run.Rejected, run.Unlisted, ErrRejected) }

// ReadOptions controls the readers. The zero ReadOptions is strict.
type ReadOptions struct {
	// Lenient reads past rows that cannot be parsed, setting them aside in
	// the Run (see Run.Reject); the reader then returns the Run together
	// with Run.Err. Without it the reader stops at the first such row and
	// returns its *RecordError and no Run.
	Lenient bool

	// lineHint is the number of lines of the input, when Read counted
	// them before wrapping it: 0 when not counted, -1 when they cannot be;
	// commaHint its commas, counted with them (see linecount.File).
	lineHint, commaHint int
	// table has the CSV reader keep its rows in a table (Run.tab) rather
	// than in Run.Records.
	table bool
}

// counts returns the numbers of lines and commas of r from its offset on,
// -1 when it is not a regular file; see linecount.File.
func (o ReadOptions) counts(r io.Reader) (lines, commas int) {
	if o.lineHint != 0 {
		return o.lineHint, o.commaHint
	}
	return linecount.File(r, maxLine)
}

// reject handles a row that could not be parsed: in strict mode it is the
// error that ends reading; in lenient mode it is set aside.
func (o ReadOptions) reject(run *Run, e *RecordError) error {
	if !o.Lenient {
		return e
	}
	run.Reject(e)
	return nil
}

// newCSVRun returns the run a CSV reader fills, of the given columns:
// with a table, when o asks for one.
func (o ReadOptions) newCSVRun(cols csvrow.Columns) *Run {
	run := &Run{NoSendTimes: cols.Sent < 0}
	if o.table {
		run.tab = &table.Table{NoSends: run.NoSendTimes}
	}
	return run
}

// Format is a per-request file format.
type Format uint8

const (
	FormatCSV   Format = iota // the specification's CSV; see ReadCSV
	FormatJSONL               // one JSON object a line with chunk timings; see ReadJSONL
)

// String returns "csv" or "jsonl".
func (f Format) String() string {
	if f == FormatJSONL {
		return "jsonl"
	}
	return "csv"
}

// Read reads a run in either format, strictly; see ReadOptions.Read.
func Read(r io.Reader) (*Run, Format, error) { return ReadOptions{}.Read(r) }

// Read reads a run in either format, detected from the first byte that is
// not white space: '{' means JSONL, anything else CSV. It returns the format
// it read. An input with nothing but white space is an error wrapping
// ErrNoRecords.
func (o ReadOptions) Read(r io.Reader) (*Run, Format, error) {
	o.lineHint, o.commaHint = linecount.File(r, maxLine)
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4096)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, 0, fmt.Errorf("llmmetrics: reading input: %w", err)
	}
	head = bytes.TrimLeft(bytes.TrimPrefix(head, lineio.BOM), " \t\r\n")
	if len(head) == 0 && err == io.EOF {
		return nil, 0, fmt.Errorf("%w: the input is empty", ErrNoRecords)
	}
	if len(head) > 0 && head[0] == '{' {
		run, err := o.ReadJSONL(br)
		return run, FormatJSONL, err
	}
	run, err := o.ReadCSV(br)
	return run, FormatCSV, err
}

// Summarize reads a run in either format, as Read does, and summarizes it,
// as Run.Summarize does, giving the same Summary; but it holds the records
// in less memory where it can: a CSV file's rows are kept, as they are
// read, in a table of about 45 bytes a row and its id rather than as
// Records of 144 bytes and their ids (5,000,000 rows: about 230 MB instead
// of 760 MB). Use it for a large file whose records are not otherwise
// wanted.
//
// A row that cannot be read is handled as Read handles it: it ends
// reading with its error, or with o.Lenient it is set aside and counted
// in the summary (an error in turn unless opt.Lenient, as in
// Run.Summarize).
func (o ReadOptions) Summarize(r io.Reader, opt Options) (*Summary, Format, error) {
	return o.SummarizeFailed(r, opt, nil)
}

// SummarizeFailed summarizes a run as Summarize does, in as little
// memory, and then calls failed with each record that did not end ok (its
// Status is not StatusOK), in input order, when the summary is made: a
// caller that shows why requests failed reads the input once and holds
// Records for the failed requests only, which it may keep. A nil failed
// is Summarize.
func (o ReadOptions) SummarizeFailed(r io.Reader, opt Options, failed func(Record)) (*Summary, Format, error) {
	o.table = true
	run, f, err := o.Read(r)
	if err != nil && !(o.Lenient && errors.Is(err, ErrRejected)) {
		return nil, f, err
	}
	s, err := run.Summarize(opt)
	if err == nil && failed != nil {
		run.eachFailed(failed)
	}
	return s, f, err
}

// eachFailed calls f with each record of the run whose Status is not
// StatusOK, in order: from a table, decoding those rows only.
func (run *Run) eachFailed(f func(Record)) {
	if run.tab == nil {
		for i := range run.Records {
			if run.Records[i].Status != StatusOK {
				f(run.Records[i])
			}
		}
		return
	}
	eachFailedRow(run.tab, f)
}
