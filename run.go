package llmmetrics

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// A Run is the records of one benchmark run as read from a file, with the
// line each came from and the rows the reader could not parse. Readers never
// drop a row: each one ends in Records or in Rejected.
type Run struct {
	Records  []Record
	Lines    []int          // Lines[i] is the line Records[i] started on
	Rejected []*RecordError // rows that could not be parsed, with line, column and field
}

// Err returns nil when every row parsed, and otherwise an error listing the
// rejected rows (each a *RecordError).
func (run *Run) Err() error { return joinRecordErrors(run.Rejected) }

// Format is a per-request file format.
type Format uint8

const (
	FormatCSV   Format = iota // the lessons' CSV; see ReadCSV
	FormatJSONL               // one JSON object a line with chunk timings; see ReadJSONL
)

// String returns "csv" or "jsonl".
func (f Format) String() string {
	if f == FormatJSONL {
		return "jsonl"
	}
	return "csv"
}

// Read reads a run in either format, detected from the first byte that is
// not white space: '{' means JSONL, anything else CSV. It returns the format
// it read.
func Read(r io.Reader) (*Run, Format, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4096)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, 0, fmt.Errorf("llmmetrics: reading input: %w", err)
	}
	head = bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n")
	if len(head) > 0 && head[0] == '{' {
		run, err := ReadJSONL(br)
		return run, FormatJSONL, err
	}
	run, err := ReadCSV(br)
	return run, FormatCSV, err
}

var bom = []byte("\xef\xbb\xbf")
