package observe

import (
	"bufio"
	"bytes"
	"io"
	"time"
)

// stampReader passes reads of a response body through and records when the
// last one returned bytes. Events are read in order from a buffer filled by
// these reads, so an event is complete at the time of the read that
// delivered its last byte: the time of the latest read when the event's
// end is parsed. Stamps are therefore taken as the bytes arrive, before any
// JSON is decoded.
type stampReader struct {
	r    io.Reader
	now  func() time.Time
	last time.Time
}

func (s *stampReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.last = s.now()
	}
	return n, err
}

// An event is one framed message of a stream: an SSE event (its type, from
// an "event:" line, and its data lines joined) or one NDJSON line, with the
// time its last byte arrived. Its slices are valid until the next event is
// read.
type event struct {
	typ  []byte
	data []byte
	at   time.Time
}

// framer reads events from a stream, reusing its buffers: reading an
// event allocates nothing once the buffers have grown to the largest
// event.
type framer struct {
	br     *bufio.Reader
	clock  *stampReader
	ndjson bool
	line   []byte // a line longer than the bufio buffer, gathered
	typ    []byte
	data   []byte
	lines  int // data lines in the pending event
}

func newFramer(body io.Reader, now func() time.Time, ndjson bool) *framer {
	clock := &stampReader{r: body, now: now}
	return &framer{br: bufio.NewReaderSize(clock, 32<<10), clock: clock, ndjson: ndjson}
}

// maxEvent bounds one event, so that a stream that never ends a line
// cannot take all memory.
const maxEvent = 16 << 20

// readLine returns the next line without its line ending, valid until the
// next call, and io.EOF after the last one.
func (f *framer) readLine() ([]byte, error) {
	b, err := f.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		f.line = append(f.line[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = f.br.ReadSlice('\n')
			f.line = append(f.line, b...)
			if len(f.line) > maxEvent {
				return nil, errLongEvent
			}
		}
		b = f.line
	}
	if err != nil && (err != io.EOF || len(b) == 0) {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	return b, nil
}

// next returns the next event, or io.EOF once the stream has ended (an
// SSE event not closed by a blank line before the end still counts).
func (f *framer) next() (event, error) {
	f.typ, f.data, f.lines = f.typ[:0], f.data[:0], 0
	for {
		line, err := f.readLine()
		if err != nil {
			if err == io.EOF && f.lines > 0 {
				return event{typ: f.typ, data: f.data, at: f.clock.last}, nil
			}
			return event{}, err
		}
		if f.ndjson {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			return event{data: line, at: f.clock.last}, nil
		}
		if len(line) == 0 { // the end of an SSE event
			if f.lines > 0 {
				return event{typ: f.typ, data: f.data, at: f.clock.last}, nil
			}
			f.typ = f.typ[:0]
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(name) {
		case "": // a comment line, ": OPENROUTER PROCESSING"
		case "data":
			if f.lines > 0 {
				f.data = append(f.data, '\n')
			}
			f.data = append(f.data, value...)
			f.lines++
			if len(f.data) > maxEvent {
				return event{}, errLongEvent
			}
		case "event":
			f.typ = append(f.typ[:0], value...)
		}
	}
}
