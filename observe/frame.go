package observe

import (
	"bufio"
	"bytes"
	"io"
	"time"
)

// An event is one framed message of a stream: an SSE event (its type, from
// an "event:" line, and its data lines joined) or one NDJSON line, with the
// time its last byte arrived. Its slices are valid until the next event.
type event struct {
	typ  []byte
	data []byte
	at   time.Time
}

// lines turns the lines of a stream into events, reusing its buffers, so
// that framing an event allocates nothing once they have grown to the
// largest event.
type lines struct {
	ndjson bool
	typ    []byte
	data   []byte
	n      int // data lines in the pending event
}

// maxEvent bounds one event, so that a stream that never ends a line
// cannot take all memory.
const maxEvent = 16 << 20

// line takes one line, without its line ending, that arrived at at, and
// returns an event when the line completes one.
func (l *lines) line(b []byte, at time.Time) (event, bool, error) {
	b = bytes.TrimSuffix(b, []byte("\r"))
	if l.ndjson {
		if len(bytes.TrimSpace(b)) == 0 {
			return event{}, false, nil
		}
		return event{data: b, at: at}, true, nil
	}
	if len(b) == 0 { // the end of an SSE event
		if l.n > 0 {
			e := event{typ: l.typ, data: l.data, at: at}
			l.typ, l.data, l.n = l.typ[:0], l.data[:0], 0
			return e, true, nil
		}
		l.typ = l.typ[:0]
		return event{}, false, nil
	}
	name, value := b, []byte(nil)
	if i := bytes.IndexByte(b, ':'); i >= 0 {
		name, value = b[:i], bytes.TrimPrefix(b[i+1:], []byte(" "))
	}
	switch string(name) {
	case "": // a comment line, ": OPENROUTER PROCESSING"
	case "data":
		if l.n > 0 {
			l.data = append(l.data, '\n')
		}
		l.data = append(l.data, value...)
		l.n++
		if len(l.data) > maxEvent {
			return event{}, false, errLongEvent
		}
	case "event":
		l.typ = append(l.typ[:0], value...)
	}
	return event{}, false, nil
}

// end returns the pending SSE event at the end of the stream: a stream may
// end without the blank line that closes its last event.
func (l *lines) end(at time.Time) (event, bool) {
	if l.n == 0 {
		return event{}, false
	}
	e := event{typ: l.typ, data: l.data, at: at}
	l.typ, l.data, l.n = l.typ[:0], l.data[:0], 0
	return e, true
}

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

// framer pulls events from a body, for the Observer.
type framer struct {
	br    *bufio.Reader
	clock *stampReader
	lines lines
	long  []byte // a line longer than the bufio buffer, gathered
}

func newFramer(body io.Reader, now func() time.Time, ndjson bool) *framer {
	clock := &stampReader{r: body, now: now}
	return &framer{br: bufio.NewReaderSize(clock, 32<<10), clock: clock, lines: lines{ndjson: ndjson}}
}

// readLine returns the next line without its newline, valid until the next
// call, and io.EOF after the last one.
func (f *framer) readLine() ([]byte, error) {
	b, err := f.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		f.long = append(f.long[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = f.br.ReadSlice('\n')
			f.long = append(f.long, b...)
			if len(f.long) > maxEvent {
				return nil, errLongEvent
			}
		}
		b = f.long
	}
	if err != nil && (err != io.EOF || len(b) == 0) {
		return nil, err
	}
	return bytes.TrimSuffix(b, []byte("\n")), nil
}

// next returns the next event, or io.EOF once the stream has ended.
func (f *framer) next() (event, error) {
	for {
		b, err := f.readLine()
		if err == io.EOF {
			if e, ok := f.lines.end(f.clock.last); ok {
				return e, nil
			}
		}
		if err != nil {
			return event{}, err
		}
		e, ok, err := f.lines.line(b, f.clock.last)
		if err != nil {
			return event{}, err
		}
		if ok {
			return e, nil
		}
	}
}

// pusher frames bytes pushed to it as they arrive, for the RoundTripper,
// whose caller drives the reading.
type pusher struct {
	lines   lines
	partial []byte // the start of a line not yet ended
	emit    func(event)
	err     error
}

// push takes bytes that arrived at at.
func (p *pusher) push(b []byte, at time.Time) {
	for p.err == nil && len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.partial = append(p.partial, b...)
			if len(p.partial) > maxEvent {
				p.err = errLongEvent
			}
			return
		}
		line := b[:i]
		if len(p.partial) > 0 {
			p.partial = append(p.partial, line...)
			line = p.partial
		}
		e, ok, err := p.lines.line(line, at)
		p.partial = p.partial[:0]
		b = b[i+1:]
		if err != nil {
			p.err = err
			return
		}
		if ok {
			p.emit(e)
		}
	}
}

// end ends the stream at at.
func (p *pusher) end(at time.Time) {
	if p.err != nil {
		return
	}
	if len(p.partial) > 0 {
		if e, ok, err := p.lines.line(p.partial, at); err == nil && ok {
			p.emit(e)
		}
		p.partial = p.partial[:0]
	}
	if e, ok := p.lines.end(at); ok {
		p.emit(e)
	}
}
