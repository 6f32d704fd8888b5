package llmmetrics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/lineio"
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
	buf       []byte    // the buffer data is in, to reuse once the block is taken
	err       error     // a read error after the block's lines (or instead of them)
	rest      io.Reader // the input after the block, when the splitter stopped at a fence
	nLines    int       // the number of lines in data, once counted (see lineCount)
	counted   bool

	// recs and lines, when not nil, are where the block's records and
	// their line numbers go: empty windows, with room for one a line, of
	// the slices the reader fills (see rows).
	recs  []Record
	lines []int
	at    int // the slot of recs[0] in the reader's rows; -1 when recs is nil

	// tab, when not nil, is where the block's rows go instead, for a
	// reader that keeps a table: an empty block whose columns are a
	// window of the reader's.
	tab *tableBlock
}

// lineCount returns the number of lines in the block, counting them the
// first time (see count).
func (b *block) lineCount() int {
	if !b.counted {
		b.count()
	}
	return b.nLines
}

// count counts the block's lines, once for the worker's window and its
// parser both.
func (b *block) count() {
	n := bytes.Count(b.data, []byte{'\n'})
	if len(b.data) > 0 && b.data[len(b.data)-1] != '\n' {
		n++
	}
	b.nLines, b.counted = n, true
}

// slots returns where the block's records and their line numbers go: the
// windows the reader gave it, or new slices with room for n.
func (b *block) slots(n int) ([]Record, []int) {
	if b.recs != nil {
		return b.recs, b.lines
	}
	return hugepage.Make[Record](0, n), hugepage.Make[int](0, n)
}

// rows are the records a reader fills, one slot for each line of its
// input, when it knows the number of lines beforehand (a regular file):
// each block's records are then written in place by the worker that parses
// it, rather than copied when the blocks are joined. Slots of blank and
// rejected lines are closed up as the blocks are taken.
//
// A reader that keeps a table (see table) has its rows' columns instead,
// in tab, and takes no slots: a table's blocks keep their own rows, and
// the slots of blank and rejected lines stay empty.
type rows struct {
	first int // the line of slot 0
	recs  []Record
	lines []int
	fill  int         // slots taken: the records so far
	tab   *tableBlock // the columns of a table's rows, when recs is nil
}

// newRows returns slots for the given number of lines from line first, or
// nil when the number is not known.
func newRows(first, lines int) *rows {
	if lines <= 0 {
		return nil
	}
	return &rows{first: first, recs: hugepage.Make[Record](lines, lines), lines: hugepage.Make[int](lines, lines)}
}

// newTableRows returns room in columns for the rows of the given number
// of lines from line first, or nil when the number is not known.
func newTableRows(first, lines int) *rows {
	if lines <= 0 {
		return nil
	}
	return &rows{first: first, tab: newTableRoom(lines)}
}

// window gives a block the slots of its lines, when they are all within
// the slices (the file may have grown since its lines were counted).
func (d *rows) window(b *block) {
	b.at = -1
	if d == nil {
		return
	}
	at, n := b.firstLine-d.first, b.lineCount()
	if d.tab != nil {
		if at >= 0 && at+n <= len(d.tab.status) && n > 0 {
			b.tab = d.tab.window(at, n)
		}
		return
	}
	if at < 0 || at+n > len(d.recs) || n == 0 {
		return
	}
	b.recs, b.lines, b.at = d.recs[at:at:at+n], d.lines[at:at:at+n], at
}

// take adds a parsed block's records after those taken before, moving
// them down over the slots of blank and rejected lines when they are not
// there already. at is the slot of the block's window, -1 when it had none.
func (d *rows) take(recs []Record, lines []int, at int) {
	if len(recs) == 0 {
		return
	}
	inWindow := at >= 0 && at < len(d.recs) && &recs[0] == &d.recs[at]
	if inWindow && at == d.fill {
		d.fill += len(recs)
		return
	}
	if d.fill+len(recs) > len(d.recs) {
		d.recs = slices.Grow(d.recs[:d.fill], len(recs))[:d.fill+len(recs)]
		d.lines = slices.Grow(d.lines[:d.fill], len(recs))[:d.fill+len(recs)]
	}
	copy(d.recs[d.fill:], recs)
	copy(d.lines[d.fill:], lines)
	d.fill += len(recs)
	if inWindow {
		// What was moved down is cleared where it was not overwritten, so
		// that no record is held twice.
		clear(d.recs[max(at, d.fill) : at+len(recs)])
	}
}

// done returns the records and their lines. The slots left over stay in
// their capacity, so that rows read after a fence (see splitBlocks) are
// appended in place.
func (d *rows) done() ([]Record, []int) {
	return d.recs[:d.fill], d.lines[:d.fill]
}

// splitBlocks reads r and sends its lines in blocks of about size bytes,
// each ending at a newline (the last may not), numbered from line first.
// Each block is read into a buffer taken from free, so that at most
// cap(free) blocks are out at once and their memory is reused; it stops
// when done is closed. A line longer than maxLine is an error.
//
// A fence, when not nil, finds the first line of a block's data that the
// blocks' parser cannot take (a CSV row whose quoted field goes on past its
// line), returning its offset or −1: the splitter stops at the start of
// that line, and the last block carries the input from there on in its
// rest, to be read another way.
func splitBlocks(r io.Reader, first int, fence func([]byte) int, size int, free chan []byte, done <-chan struct{}, out chan<- block) {
	defer close(out)
	var carry []byte
	line := first
	for seq := 0; ; seq++ {
		var buf []byte
		select {
		case buf = <-free:
		case <-done:
			return
		}
		if room := max(size, min(2*len(carry), maxLine+1)); cap(buf) < room {
			buf = make([]byte, 0, room)
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
				buf = lineio.Grow(buf, maxLine)
			}
		}
		end := len(buf)
		_, long := rerr.(*longLine)
		switch {
		case rerr == nil:
			end = bytes.LastIndexByte(buf, '\n') + 1
		case long:
			end = 0 // the block is the long line alone, which is not parsed
		}
		fenced := false
		if fence != nil {
			if at := fence(buf[:end]); at >= 0 {
				end, fenced = at, true
			}
		}
		carry = carry[:0]
		if !long { // the long line ends the reading: no need to copy it
			carry = append(carry, buf[end:]...)
		}
		b := block{seq: seq, firstLine: line, data: buf[:end], buf: buf}
		line += bytes.Count(b.data, []byte{'\n'})
		if fenced {
			b.rest = io.MultiReader(bytes.NewReader(carry), r)
			if rerr != nil && rerr != io.EOF {
				b.rest = io.MultiReader(bytes.NewReader(carry), &failing{rerr})
			}
			select {
			case out <- b:
			case <-done:
			}
			return
		}
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

// lineItem is a line of a block that is not a record: a row set aside, or
// a run header.
type lineItem struct {
	line   int
	err    *RecordError // the line's error, when it was not read
	header []byte       // a header line, to be read in order
}

// parsedBlock is a block's lines, parsed.
type parsedBlock struct {
	seq      int
	buf      []byte // the block's buffer, returned to the pool once taken
	recs     []Record
	lines    []int       // the line of each record
	tab      *tableBlock // the records instead, for a reader that keeps a table
	at       int         // the slot of recs in the reader's rows, -1 for none (see block)
	items    []lineItem  // the lines that are not records, in order
	lastLine int         // the number of the line after the block's last
	err      error       // the block's read error
	rest     io.Reader   // the input after the block, to be read another way
}

// parseBlocks parses the blocks of r, from line first and up to a fence
// (see splitBlocks), with one worker per core, parse turning one block into
// its records (in dst's slots, when it is not nil) and items, and returns the results in input order, one at a time, through
// next; stop ends the reading early.
func parseBlocks(r io.Reader, first int, fence func([]byte) int, dst *rows, parse func(block) parsedBlock) (next func() (parsedBlock, bool), stop func()) {
	workers := runtime.GOMAXPROCS(0)
	size := max(64<<10, readAhead/(workers+1))
	free := make(chan []byte, workers+1)
	for range workers + 1 {
		free <- nil
	}
	done := make(chan struct{})
	blocks := make(chan block, workers+1)
	results := make(chan parsedBlock, workers+1)
	go splitBlocks(r, first, fence, size, free, done, blocks)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range blocks {
				b.count()
				dst.window(&b)
				pb := parse(b)
				pb.buf, pb.rest, pb.at = b.buf, b.rest, b.at
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

// gatherEnd is how gathering the blocks ended: with a read error on a
// line, or at a fence with the rest of the input, from a line, to be read
// another way; or neither, at the end of the input.
type gatherEnd struct {
	err  error
	rest io.Reader
	line int
}

// gather takes the parsed blocks in input order into run: the records
// with their line numbers (in dst, when it is not nil), the rows set aside
// (in strict mode the first is the error that ends reading), and header
// lines, given to header.
func (o ReadOptions) gather(next func() (parsedBlock, bool), dst *rows, run *Run, header func(t []byte, line int) error) (gatherEnd, error) {
	// Without slots, the blocks' records are joined once at the end:
	// appending block by block would copy the records over and over as
	// the slice grows.
	var parts [][]Record
	var lines [][]int
	var end gatherEnd
	n := 0
	for {
		pb, ok := next()
		if !ok {
			break
		}
		for _, it := range pb.items {
			switch {
			case it.header != nil:
				if err := header(it.header, it.line); err != nil {
					return end, err
				}
			default:
				if err := o.reject(run, it.err); err != nil {
					return end, err
				}
			}
		}
		switch {
		case pb.tab != nil:
			run.tab.add(pb.tab)
		case dst != nil:
			dst.take(pb.recs, pb.lines, pb.at)
		default:
			parts, lines = append(parts, pb.recs), append(lines, pb.lines)
			n += len(pb.recs)
		}
		if pb.err != nil || pb.rest != nil {
			end = gatherEnd{err: pb.err, rest: pb.rest, line: pb.lastLine}
			var long *longLine
			if errors.As(pb.err, &long) {
				end.line = long.line
			}
			break
		}
	}
	switch {
	case run.tab != nil:
		return end, nil
	case dst != nil:
		run.Records, run.Lines = dst.done()
		return end, nil
	}
	run.Records, run.Lines = hugepage.Make[Record](0, n), hugepage.Make[int](0, n)
	for i := range parts {
		run.Records = append(run.Records, parts[i]...)
		run.Lines = append(run.Lines, lines[i]...)
		parts[i] = nil
	}
	return end, nil
}

// failing is a reader that fails with err.
type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }
