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
	run         *llmmetrics.Run
	first, line int
}

// line returns the file's line record i of the batch starts on.
func (b *batch) lineOf(i int) int {
	if i < len(b.run.Lines) {
		return b.line - 1 + b.run.Lines[i]
	}
	return 0
}

// pass reads the file once, handing each batch of its records to fn in
// order.
func pass(open Opener, fn func(b *batch) error) (err error) {
	f, err := open()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	n := 0
	return batches(f, func(b *batch) error {
		b.first = n
		n += len(b.run.Records)
		return fn(b)
	})
}

// batches reads r a batch of whole lines at a time and hands each
// batch, read as JSONL, to fn.
func batches(r io.Reader, fn func(b *batch) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var buf []byte
	line, lines := 1, 0
	for {
		part, err := br.ReadSlice('\n')
		buf = append(buf, part...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		lines++
		if len(buf) >= batchBytes || err == io.EOF && len(buf) > 0 {
			run, rerr := llmmetrics.ReadJSONL(bytes.NewReader(buf))
			if rerr != nil {
				return fmt.Errorf("bounded: the batch of lines from %d: %w", line, rerr)
			}
			if ferr := fn(&batch{run: run, line: line}); ferr != nil {
				return ferr
			}
			buf, line, lines = buf[:0], line+lines, 0
		}
		if err == io.EOF {
			return nil
		}
	}
}
