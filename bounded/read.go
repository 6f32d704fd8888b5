package bounded

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/llmmetrics/llmmetrics"
)

// batchBytes is the size of the batches of lines read at once.
const batchBytes = 1 << 20

// A batch is a batch of the file's records: its Run as the reader read it
// (lines counted from the batch's first), the index of its first record
// in the file, and the file's line the batch starts on.
type batch struct {
	run                *llmmetrics.Run
	file               int // the file's index, among the run's
	first, line, lines int // lines: the lines it holds
	// index, when records were set aside (see Options.Lenient), is the
	// index in the file of each record left.
	index []int
}

// indexOf returns the index in the file of record i of the batch.
func (b *batch) indexOf(i int) int {
	if b.index != nil {
		return b.index[i]
	}
	return b.first + i
}

// line returns the file's line record i of the batch starts on.
func (b *batch) lineOf(i int) int {
	if i < len(b.run.Lines) {
		return b.line - 1 + b.run.Lines[i]
	}
	return 0
}

// pass reads the file once, as o reads it, handing each batch of its
// records to fn in order.
func pass(open Opener, o llmmetrics.ReadOptions, fn func(b *batch) error) (err error) {
	f, err := open()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	n := 0
	return batches(f, o, func(b *batch) error {
		b.first = n
		n += len(b.run.Records)
		return fn(b)
	})
}

// batches reads r a batch of whole lines at a time and hands each
// batch, read as JSONL or CSV (told by its first byte, as llmmetrics.Read
// tells them) as o reads them, to fn; with o.Lenient, the rows it sets
// aside are in the batch's Run, on their lines in the batch. Each batch
// of CSV after the first is read with the file's header row before it.
func batches(r io.Reader, o llmmetrics.ReadOptions, fn func(b *batch) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	head, _ := br.Peek(64)
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	read := o.ReadJSONL
	var header []byte // a CSV file's header row
	if len(head) > 0 && head[0] != '{' {
		read = o.ReadCSV
		header = []byte{}
	}
	line := 1
	return lines(br, header != nil, batchBytes, func(buf []byte, n int) error {
		b := &batch{line: line, lines: n}
		in := io.Reader(bytes.NewReader(buf))
		switch {
		case header == nil:
		case len(header) == 0: // the first batch, which begins with the header row
			header = append(header, buf[:bytes.IndexByte(buf, '\n')+1]...)
		default: // the header row read first sits on the line before
			in = io.MultiReader(bytes.NewReader(header), in)
			b.line--
		}
		run, err := read(in)
		if err != nil && !(o.Lenient && errors.Is(err, llmmetrics.ErrRejected)) {
			return inBatch(err, b.line)
		}
		b.run, line = run, line+n
		return fn(b)
	})
}

// inBatch returns an error of the batch whose first line is line of the
// file: a record's error on its line in the file, as a read of the whole
// file gives it; any other, saying where the batch began, unless it began
// the file (a header's error is the file's, as a whole read says it).
func inBatch(err error, line int) error {
	if re, ok := err.(*llmmetrics.RecordError); ok {
		c := *re
		if c.Line > 0 {
			c.Line += line - 1
		}
		return &c
	}
	if line <= 1 {
		return err
	}
	return fmt.Errorf("bounded: the batch of lines from %d: %w", line, err)
}

// lines reads br a batch of whole lines at a time, of about size bytes,
// and hands each, with the number of lines it holds, to fn. With quoted,
// a batch ends only at a line's end outside double quotes, as a CSV
// record may hold a line break in a quoted field. A batch is read only
// during the call of fn that hands it over.
func lines(br *bufio.Reader, quoted bool, size int, fn func(buf []byte, n int) error) error {
	var buf []byte
	n, quotes := 0, 0
	for {
		part, err := br.ReadSlice('\n')
		buf = append(buf, part...)
		if quoted {
			quotes += bytes.Count(part, []byte{'"'})
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		n++
		if (len(buf) >= size && quotes%2 == 0) || err == io.EOF && len(buf) > 0 {
			if ferr := fn(buf, n); ferr != nil {
				return ferr
			}
			buf, n = buf[:0], 0
		}
		if err == io.EOF {
			return nil
		}
	}
}
