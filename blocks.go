package llmmetrics

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// Reading a line format in parallel: a splitter cuts the input into blocks
// of whole lines, workers parse the blocks on every core, and the caller
// takes their results in input order. At most readAhead bytes are read
// beyond the block being taken, so that a strict reader stops soon after
// the first bad line even on an endless input.
const readAhead = 768 << 10

// A block is a run of whole lines of the input, and the number of its
// first line.
type block struct {
	seq       int
	firstLine int
	data      []byte
	buf       []byte // the buffer data is in, to reuse once the block is taken
	err       error  // a read error after the block's lines (or instead of them)
}

// splitBlocks reads r and sends its lines in blocks of about size bytes,
// each ending at a newline (the last may not), numbered from line 1. Each
// block is read into a buffer taken from free, so that at most cap(free)
// blocks are out at once and their memory is reused; it stops when done
// is closed. A line longer than maxLine is an error.
func splitBlocks(r io.Reader, size int, free chan []byte, done <-chan struct{}, out chan<- block) {
	defer close(out)
	var carry []byte
	line := 1
	for seq := 0; ; seq++ {
		var buf []byte
		select {
		case buf = <-free:
		case <-done:
			return
		}
		if cap(buf) < max(size, 2*len(carry)) {
			buf = make([]byte, 0, max(size, 2*len(carry)))
		}
		buf = append(buf[:0], carry...)
		var rerr error
		for {
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err != nil {
				rerr = err
				break
			}
			if len(buf) == cap(buf) {
				if bytes.IndexByte(buf, '\n') >= 0 {
					break
				}
				// One line longer than the block: read on for its end.
				if len(buf) > maxLine {
					rerr = &longLine{line: line + bytes.Count(buf, []byte{'\n'})}
					break
				}
				grown := make([]byte, len(buf), 2*cap(buf))
				copy(grown, buf)
				buf = grown
			}
		}
		end := len(buf)
		if rerr == nil {
			end = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[end:]...)
		b := block{seq: seq, firstLine: line, data: buf[:end], buf: buf}
		line += bytes.Count(b.data, []byte{'\n'})
		if rerr != nil {
			if rerr != io.EOF {
				b.err = rerr
			}
			select {
			case out <- b:
			case <-done:
			}
			return
		}
		select {
		case out <- b:
		case <-done:
			return
		}
	}
}

// lineItem is one non-blank line of a block, parsed: a record, a row set
// aside, or a run header.
type lineItem struct {
	line   int
	rec    int          // index into the block's records, or -1
	err    *RecordError // the line's error, when it was not read
	header []byte       // a header line, to be read in order
}

// parsedBlock is a block's lines, parsed.
type parsedBlock struct {
	seq      int
	buf      []byte // the block's buffer, returned to the pool once taken
	recs     []Record
	items    []lineItem
	lastLine int   // the number of the line after the block's last
	err      error // the block's read error
}

// parseBlocks parses blocks with one worker per core, parse turning one
// block into its items, and returns the results in input order, one at a
// time, through next; stop ends the reading early.
func parseBlocks(r io.Reader, parse func(block) parsedBlock) (next func() (parsedBlock, bool), stop func()) {
	workers := runtime.GOMAXPROCS(0)
	size := max(64<<10, readAhead/(workers+1))
	free := make(chan []byte, workers+1)
	for range workers + 1 {
		free <- nil
	}
	done := make(chan struct{})
	blocks := make(chan block, workers+1)
	results := make(chan parsedBlock, workers+1)
	go splitBlocks(r, size, free, done, blocks)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range blocks {
				pb := parse(b)
				pb.buf = b.buf
				select {
				case results <- pb:
				case <-done:
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	pending := map[int]parsedBlock{}
	want := 0
	var once sync.Once
	stop = func() { once.Do(func() { close(done) }) }
	var taken []byte // the buffer of the block last taken, free once the caller is done with it
	holding := false // the caller holds the last block taken
	next = func() (parsedBlock, bool) {
		if holding {
			free <- taken[:0] // the caller is done with the previous block
			taken, holding = nil, false
		}
		for {
			if pb, ok := pending[want]; ok {
				delete(pending, want)
				want++
				taken, holding = pb.buf, true
				return pb, true
			}
			pb, ok := <-results
			if !ok {
				return parsedBlock{}, false
			}
			pending[pb.seq] = pb
		}
	}
	return next, stop
}

// splitLines calls fn for each line of data with its number, from first,
// and the offset of its text after a byte order mark and leading blanks;
// blank lines are skipped. It returns the number of the line after the
// last.
func splitLines(data []byte, first int, fn func(t []byte, line, lead int)) int {
	line := first
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var b []byte
		if i < 0 {
			b, data = data, nil
		} else {
			b, data = data[:i+1], data[i+1:]
		}
		body := bytes.TrimPrefix(b, bom)
		lead := len(b) - len(body)
		if t := bytes.TrimSpace(body); len(t) > 0 {
			lead += len(body) - len(bytes.TrimLeft(body, " \t\r\n"))
			fn(t, line, lead)
		}
		line++
	}
	return line
}

// longLine is the error of a line longer than maxLine.
type longLine struct{ line int }

func (e *longLine) Error() string { return fmt.Sprintf("line longer than %d bytes", maxLine) }
