// Package blocks cuts a line format into blocks of whole lines, for
// readers that parse the blocks on every core and take their results in
// input order, and walks the lines of a block.
package blocks

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/llmmetrics/llmmetrics/internal/lineio"
)

// Reading a line format in parallel: a splitter cuts the input into blocks
// of whole lines, workers parse the blocks on every core, and the caller
// takes their results in input order. At most ReadAhead bytes are read
// beyond the block being taken, so that a strict reader stops soon after
// the first bad line even on an endless input.
const ReadAhead = 768 << 10

// A Block is a run of whole lines of the input, and the number of its
// first line.
type Block struct {
	Seq       int
	FirstLine int
	Data      []byte
	Buf       []byte    // the buffer Data is in, to reuse once the block is taken
	Err       error     // a read error after the block's lines (or instead of them)
	Rest      io.Reader // the input after the block, when Split stopped at a fence
	nLines    int       // the number of lines in Data, once counted (see Lines)
	counted   bool
}

// Lines returns the number of lines in the block, counting them the first
// time.
func (b *Block) Lines() int {
	if !b.counted {
		n := bytes.Count(b.Data, []byte{'\n'})
		if len(b.Data) > 0 && b.Data[len(b.Data)-1] != '\n' {
			n++
		}
		b.nLines, b.counted = n, true
	}
	return b.nLines
}

// Split reads r and sends its lines in blocks of about size bytes,
// each ending at a newline (the last may not), numbered from line first.
// Each block is read into a buffer taken from free, so that at most
// cap(free) blocks are out at once and their memory is reused; it stops
// when done is closed. A line longer than limit bytes is a *LongLine
// error, after at most limit+1 bytes of it have been read.
//
// A fence, when not nil, finds the first line of a block's data that the
// blocks' parser cannot take (a CSV row whose quoted field goes on past its
// line), returning its offset or −1: the splitter stops at the start of
// that line, and the last block carries the input from there on in its
// rest, to be read another way.
func Split(r io.Reader, first int, fence func([]byte) int, size, limit int, free chan []byte, done <-chan struct{}, out chan<- Block) {
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
		if room := max(size, min(2*len(carry), limit+1)); cap(buf) < room {
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
				if len(buf) > limit {
					rerr = &LongLine{Line: line + bytes.Count(buf, []byte{'\n'}), Limit: limit}
					break
				}
				buf = lineio.Grow(buf, limit)
			}
		}
		end := len(buf)
		_, long := rerr.(*LongLine)
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
		b := Block{Seq: seq, FirstLine: line, Data: buf[:end], Buf: buf}
		line += bytes.Count(b.Data, []byte{'\n'})
		if fenced {
			b.Rest = io.MultiReader(bytes.NewReader(carry), r)
			if rerr != nil && rerr != io.EOF {
				b.Rest = io.MultiReader(bytes.NewReader(carry), &failing{rerr})
			}
			select {
			case out <- b:
			case <-done:
			}
			return
		}
		if rerr != nil {
			if rerr != io.EOF {
				b.Err = rerr
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

// Lines calls fn for each line of data with its number, from first,
// and the offset of its text after a byte order mark and leading blanks;
// blank lines are skipped. It returns the number of the line after the
// last.
func Lines(data []byte, first int, fn func(t []byte, line, lead int)) int {
	line := first
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var b []byte
		if i < 0 {
			b, data = data, nil
		} else {
			b, data = data[:i+1], data[i+1:]
		}
		body := bytes.TrimPrefix(b, lineio.BOM)
		lead := len(b) - len(body)
		if t := bytes.TrimSpace(body); len(t) > 0 {
			lead += len(body) - len(bytes.TrimLeft(body, " \t\r\n"))
			fn(t, line, lead)
		}
		line++
	}
	return line
}

// Parse parses the blocks of r (see Split), from line first and up to a
// fence, with one worker per core, parse turning one block into a result,
// and returns the results in input order, one at a time, through next;
// stop ends the reading early. A block's buffer is reused once the result
// after it is asked for: a result must not hold on to the block's data
// past that.
func Parse[T any](r io.Reader, first int, fence func([]byte) int, limit int, parse func(Block) T) (next func() (T, bool), stop func()) {
	workers := runtime.GOMAXPROCS(0)
	size := max(64<<10, ReadAhead/(workers+1))
	free := make(chan []byte, workers+1)
	for range workers + 1 {
		free <- nil
	}
	done := make(chan struct{})
	split := make(chan Block, workers+1)
	results := make(chan parsed[T], workers+1)
	go Split(r, first, fence, size, limit, free, done, split)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range split {
				pb := parsed[T]{seq: b.Seq, buf: b.Buf, v: parse(b)}
				select {
				case results <- pb:
				case <-done:
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	pending := map[int]parsed[T]{}
	want := 0
	var once sync.Once
	stop = func() { once.Do(func() { close(done) }) }
	var taken []byte // the buffer of the block last taken, free once the caller is done with it
	holding := false // the caller holds the last block taken
	next = func() (T, bool) {
		if holding {
			free <- taken[:0] // the caller is done with the previous block
			taken, holding = nil, false
		}
		for {
			if pb, ok := pending[want]; ok {
				delete(pending, want)
				want++
				taken, holding = pb.buf, true
				return pb.v, true
			}
			pb, ok := <-results
			if !ok {
				var zero T
				return zero, false
			}
			pending[pb.seq] = pb
		}
	}
	return next, stop
}

// parsed is a block's result, with what Parse needs to order it and to
// reuse its buffer.
type parsed[T any] struct {
	seq int
	buf []byte
	v   T
}

// LongLine is the error of a line longer than the limit.
type LongLine struct{ Line, Limit int }

func (e *LongLine) Error() string { return fmt.Sprintf("line longer than %d bytes", e.Limit) }

// failing is a reader that fails with err.
type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }
