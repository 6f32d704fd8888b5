package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// A Format is a trace's file format.
type Format string

// The formats Read reads.
const (
	Azure      Format = "azure"
	Mooncake   Format = "mooncake"
	BurstGPT   Format = "burstgpt"
	LLMMetrics Format = "llmmetrics"
)

// ParseFormat reads a format's name; "" and "auto" are none (Read then
// detects it).
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Azure, Mooncake, BurstGPT, LLMMetrics:
		return f, nil
	case "", "auto":
		return "", nil
	}
	return "", fmt.Errorf("trace: format %q: want auto, azure, mooncake, burstgpt or llmmetrics", s)
}

// A Row is one request of a trace.
type Row struct {
	// At is its arrival, from the trace's zero: Azure's first row, the
	// zero of Mooncake's milliseconds, of BurstGPT's seconds, of a run's
	// clock.
	At             time.Duration
	Prompt, Output int   // lengths in tokens, each at least 1
	Blocks         []int // the prompt's prefix-cache blocks (Mooncake's hash_ids)
	Line           int   // the line it was read from
	// Unstreamed marks a run file's request that production made without
	// streaming: an ok answer of two or more tokens by the server's count
	// whose text came at once (see unstreamed). The other formats'
	// rows are streamed.
	Unstreamed bool
}

// A Trace is a trace file read whole.
type Trace struct {
	File   string // as given to Read, for messages
	Format Format
	Rows   []Row // in time order
	// NoUsage counts the ok requests of a run file (LLMMetrics) left out
	// for want of a usage count, so of lengths to replay; NoUsageWhy says
	// why they lack it and what to do, by the tool the file's header
	// names (see noUsageWhy).
	NoUsage    int
	NoUsageWhy string
	// SessionTurns counts the rows of a run file that were turns of
	// multi-turn sessions: each is a request of its own in the trace, its
	// prompt length the whole conversation the server counted.
	SessionTurns int
	// Unstreamed counts the rows of a run file marked Unstreamed.
	Unstreamed int
}

// Read reads the trace file at path in format f ("" detects it from the
// first line).
func Read(path string, f Format) (*Trace, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return ReadFrom(file, path, f)
}

// ReadFrom reads a trace named name (for messages) from r, in format f
// ("" detects it from the first line).
func ReadFrom(r io.Reader, name string, f Format) (*Trace, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if empty(br) {
		return nil, &Error{File: name, Err: ErrEmptyFile}
	}
	if f == "" {
		var err error
		if f, err = detect(br, name); err != nil {
			return nil, err
		}
	}
	b := &builder{t: &Trace{File: name, Format: f}}
	var err error
	switch f {
	case Azure:
		err = readAzure(br, b)
	case BurstGPT:
		err = readBurstGPT(br, b)
	case Mooncake:
		err = readMooncake(br, b)
	case LLMMetrics:
		err = readRun(br, b)
	default:
		return nil, &Error{File: name, Field: "format", Value: string(f), Err: ErrFormat}
	}
	if err != nil {
		return nil, err
	}
	if len(b.t.Rows) == 0 {
		return nil, &Error{File: name, Field: "rows", Err: fmt.Errorf("%w: the file holds no request", ErrEmptyWindow)}
	}
	return b.t, nil
}

// empty reports whether the whole of br is blank (a byte-order mark and
// white space at most), without consuming it.
func empty(br *bufio.Reader) bool {
	head, err := br.Peek(64 << 10)
	return errors.Is(err, io.EOF) && len(bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))) == 0
}

// detect reads the format from the first line that holds something,
// without consuming it.
func detect(br *bufio.Reader, name string) (Format, error) {
	head, _ := br.Peek(64 << 10)
	f, line, line1 := formatOf(head)
	if f != "" {
		return f, nil
	}
	if len(line) > 80 {
		line = append(line[:77:77], "..."...)
	}
	return "", &Error{File: name, Line: line1, Field: "first line", Value: string(line), Err: ErrFormat}
}

// DetectFormat returns the trace format of a file from its first bytes,
// and whether it is one: a reader of run files calls it to tell a trace
// given in a run's place (the requests to send, not what was measured).
func DetectFormat(head []byte) (Format, bool) {
	f, _, _ := formatOf(head)
	return f, f != ""
}

// formatOf returns the format of the first line of head that holds
// something, "" for none; and that line and its number.
func formatOf(head []byte) (Format, []byte, int) {
	line, line1 := head, 1
	for {
		l, rest, found := bytes.Cut(line, []byte("\n"))
		l = bytes.TrimSpace(bytes.TrimPrefix(l, []byte("\xef\xbb\xbf")))
		if len(l) > 0 || !found {
			line = l
			break
		}
		line, line1 = rest, line1+1
	}
	switch {
	case bytes.HasPrefix(line, []byte("{")) && bytes.Contains(line, []byte(`"input_length"`)):
		return Mooncake, line, line1
	case bytes.HasPrefix(line, []byte("{")) && (bytes.Contains(line, []byte(`"llmmetrics_run"`)) || bytes.Contains(line, []byte(`"sent_ns"`))):
		return LLMMetrics, line, line1
	case bytes.Contains(line, []byte("TIMESTAMP")) && bytes.Contains(line, []byte("ContextTokens")):
		return Azure, line, line1
	case bytes.Contains(line, []byte("Timestamp")) && bytes.Contains(line, []byte("Request tokens")):
		return BurstGPT, line, line1
	}
	return "", line, line1
}

// builder checks each row as it is read.
type builder struct {
	t *Trace
}

// field is a row's field as read: its name in the file and its text.
type field struct{ name, text string }

// add checks and keeps a row: its time not negative nor before the row
// before's, its lengths at least 1.
func (b *builder) add(r Row, at, prompt, output field) error {
	bad := func(f field, err error) error {
		return &Error{File: b.t.File, Line: r.Line, Field: f.name, Value: f.text, Err: err}
	}
	switch {
	case len(b.t.Rows) > 0 && r.At < b.t.Rows[len(b.t.Rows)-1].At:
		return bad(at, fmt.Errorf("%w (line %d)", ErrUnsorted, b.t.Rows[len(b.t.Rows)-1].Line))
	case r.At < 0:
		return bad(at, ErrNegative)
	}
	for _, l := range []struct {
		n int
		f field
	}{{r.Prompt, prompt}, {r.Output, output}} {
		switch {
		case l.n < 0:
			return bad(l.f, ErrNegative)
		case l.n == 0:
			return bad(l.f, ErrZero)
		}
	}
	b.t.Rows = append(b.t.Rows, r)
	return nil
}

// base is the file's name without its directory, for the rows' sources.
func (t *Trace) base() string { return filepath.Base(t.File) }

// source names row r as file:line.
func (t *Trace) source(r Row) string { return t.base() + ":" + strconv.Itoa(r.Line) }
