package observe

import (
	"bytes"
	"io"
	"time"
)

// An event is one framed message of a response: an SSE event (its type,
// from an "event:" line — or "error" for llama.cpp's "error:" line — and
// its data lines joined), or one JSON value of a JSON body or an NDJSON
// stream, with the time its last byte arrived. Its slices are valid until
// the next event.
type event struct {
	typ  []byte
	data []byte
	at   time.Time
}

// framing is how a response's bytes are cut into events. It is decided by
// the content, never by Content-Type: a body whose first non-blank byte
// opens a JSON object or array is read as JSON values (one for a
// non-streaming reply, one a line for NDJSON), any other as SSE.
type framing uint8

const (
	undecided framing = iota
	sse
	jsonValues
)

// lines turns the lines of a response into events, reusing its buffers,
// so that framing an event allocates nothing once they have grown to the
// largest event.
type lines struct {
	framing framing
	typ     []byte
	data    []byte
	n       int // data lines in the pending SSE event
	// spare and spareTyp hold the event handed over while the next one
	// begins in data and typ (see line).
	spare, spareTyp []byte
	values          int // JSON values framed so far
	depth           jsonDepth
	// ev is the event the last call of line completed: handed over in
	// place, not returned, as the call is made for every line.
	ev event
}

// maxEvent bounds one event, so that a stream that never ends a line
// cannot take all memory.
const maxEvent = 16 << 20

// line takes one line, without its line ending, that arrived at at, and
// reports whether the line completed an event, which it leaves in l.ev.
func (l *lines) line(b []byte, at time.Time) (bool, error) {
	if l.framing == undecided {
		t := bytes.TrimLeft(b, " \t\ufeff")
		if len(t) == 0 {
			return false, nil
		}
		l.framing = sse
		if t[0] == '{' || t[0] == '[' {
			l.framing = jsonValues
		}
	}
	if l.framing == jsonValues {
		return l.jsonLine(b, at)
	}
	if len(b) == 0 { // the end of an SSE event
		if l.n > 0 {
			l.ev = event{typ: l.typ, data: l.data, at: at}
			l.typ, l.data, l.n = l.typ[:0], l.data[:0], 0
			return true, nil
		}
		l.typ = l.typ[:0]
		return false, nil
	}
	var name, value []byte
	switch {
	case len(b) >= 6 && string(b[:6]) == "data: ": // most lines: read at once
		name, value = b[:4], b[6:]
	default:
		name = b
		if i := bytes.IndexByte(b, ':'); i >= 0 {
			name, value = b[:i], bytes.TrimPrefix(b[i+1:], []byte(" "))
		}
	}
	switch string(name) {
	case "": // a comment line, ": OPENROUTER PROCESSING"
	case "data":
		if l.n == 1 && wholeObject(l.data) && (startsObject(value) || string(value) == "[DONE]") {
			// A server that ends events with one newline, not a blank
			// line: a data line that starts a new object after one that
			// held a whole object starts a new event.
			l.ev = event{typ: l.typ, data: l.data, at: at}
			l.data, l.spare = append(l.spare[:0], value...), l.data
			l.typ, l.spareTyp = l.spareTyp[:0], l.typ
			return true, nil
		}
		if l.n > 0 {
			l.data = append(l.data, '\n')
		}
		l.data = append(l.data, value...)
		l.n++
		if len(l.data) > maxEvent {
			return false, errLongEvent
		}
	case "event":
		l.typ = append(l.typ[:0], value...)
	case "error":
		// llama.cpp's server reports a failure inside a stream as a line
		// "error: {...}" (not an SSE field), then sends data: [DONE].
		l.typ = append(l.typ[:0], "error"...)
		l.data = append(l.data[:0], value...)
		l.n = 1
	}
	return false, nil
}

// wholeObject reports whether b looks like one whole JSON object: it
// begins with { and ends with }, spaces aside.
func wholeObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) >= 2 && b[0] == '{' && b[len(b)-1] == '}'
}

func startsObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t")
	return len(b) > 0 && b[0] == '{'
}

// jsonLine adds a line to the pending JSON value and completes the value
// (in l.ev) once it is whole: at once for NDJSON, after many lines for an
// indented body.
func (l *lines) jsonLine(b []byte, at time.Time) (bool, error) {
	if l.depth.zero() && len(bytes.TrimSpace(b)) == 0 {
		return false, nil
	}
	if len(l.data) > 0 {
		l.data = append(l.data, '\n')
	}
	l.data = append(l.data, b...)
	if len(l.data) > maxEvent {
		return false, errLongEvent
	}
	l.depth.feed(b)
	if !l.depth.zero() {
		return false, nil
	}
	l.ev = event{data: l.data, at: at}
	l.data = l.data[:0]
	l.values++
	return true, nil
}

// end returns the pending event at the end of the stream: a stream may
// end without the blank line that closes its last SSE event, and a JSON
// value cut short is handed over as it is (it reads as holding nothing).
func (l *lines) end(at time.Time) (event, bool) {
	if l.framing == jsonValues {
		if len(bytes.TrimSpace(l.data)) == 0 {
			return event{}, false
		}
		e := event{data: l.data, at: at}
		l.data, l.depth = l.data[:0], jsonDepth{}
		l.values++
		return e, true
	}
	if l.n == 0 {
		return event{}, false
	}
	e := event{typ: l.typ, data: l.data, at: at}
	l.typ, l.data, l.n = l.typ[:0], l.data[:0], 0
	return e, true
}

// streamed reports whether the response was a stream: SSE, or more than
// one JSON value (NDJSON).
func (l *lines) streamed() bool { return l.framing == sse || l.values > 1 }

// jsonDepth follows the nesting of JSON text fed to it in pieces, so that
// the end of a value spread over several lines is found in one pass.
type jsonDepth struct {
	depth      int
	inStr, esc bool
}

func (j *jsonDepth) feed(b []byte) {
	for _, c := range b {
		switch {
		case j.inStr:
			switch {
			case j.esc:
				j.esc = false
			case c == '\\':
				j.esc = true
			case c == '"':
				j.inStr = false
			}
		case c == '"':
			j.inStr = true
		case c == '{' || c == '[':
			j.depth++
		case c == '}' || c == ']':
			j.depth = max(j.depth-1, 0) // more closed than opened: not JSON, handed over as it is
		}
	}
}

// zero reports whether no value is open: none has begun, or the last
// one has ended (or the text was not JSON at all).
func (j *jsonDepth) zero() bool { return j.depth == 0 && !j.inStr }

// pusher frames bytes pushed to it as they arrive. Lines end at LF, CR or
// CRLF, as the SSE specification allows; a CR at the end of one push and
// an LF at the start of the next are one line ending.
type pusher struct {
	lines   lines
	partial []byte // the start of a line not yet ended
	cr      bool   // the last line ended at a CR: an LF right after it ends no line
	emit    func(event)
	err     error
}

// push takes bytes that arrived at at.
func (p *pusher) push(b []byte, at time.Time) {
	// cr is the index in b of its next CR, or -1 when it holds none: it is
	// sought once a push, and again only once a line has ended at it, so
	// that a stream without CRs is not searched for them line by line.
	cr := bytes.IndexByte(b, '\r')
	for p.err == nil && len(b) > 0 {
		if p.cr {
			p.cr = false
			if b[0] == '\n' {
				b = b[1:]
				if cr >= 0 {
					cr-- // not 0: b[0] was LF
				}
				continue
			}
		}
		lf := bytes.IndexByte(b, '\n')
		lim := lf
		if lf < 0 {
			lim = len(b)
		}
		end, next := lf, lf+1
		if cr >= 0 && cr < lim {
			end, next = cr, cr+1
			if cr == lf-1 {
				next = lf + 1 // CRLF
			} else {
				p.cr = true // CR alone, or CR at the end of this push
			}
		}
		if end < 0 {
			if p.partial == nil {
				// Room for most lines at once, rather than growing
				// the buffer a few times in each stream.
				p.partial = make([]byte, 0, max(len(b), 512))
			}
			p.partial = append(p.partial, b...)
			if len(p.partial) > maxEvent {
				p.err = errLongEvent
			}
			return
		}
		line := b[:end]
		if len(p.partial) > 0 {
			p.partial = append(p.partial, line...)
			line = p.partial
		}
		ok, err := p.lines.line(line, at)
		p.partial = p.partial[:0]
		b = b[next:]
		if cr >= 0 {
			if cr -= next; cr < 0 { // the line ended at it
				cr = bytes.IndexByte(b, '\r')
			}
		}
		if err != nil {
			p.err = err
			return
		}
		if ok {
			p.emit(p.lines.ev)
		}
	}
}

// end ends the stream at at.
func (p *pusher) end(at time.Time) {
	if p.err != nil {
		return
	}
	if len(p.partial) > 0 {
		if ok, err := p.lines.line(p.partial, at); err == nil && ok {
			p.emit(p.lines.ev)
		}
		p.partial = p.partial[:0]
	}
	if e, ok := p.lines.end(at); ok {
		p.emit(e)
	}
}

// read reads a body into p until it ends, stamping the bytes of each read
// when it returned: an event is complete at the time of the read that
// delivered its last byte, before any JSON is decoded. It returns the read
// error, nil at a clean end.
func read(body io.Reader, p *pusher, now func() time.Time) error {
	buf := make([]byte, 32<<10)
	var last time.Time
	for {
		n, err := body.Read(buf)
		if n > 0 {
			last = now()
			p.push(buf[:n], last)
		}
		if err != nil {
			p.end(last)
			if err == io.EOF {
				return p.err
			}
			return err
		}
		if p.err != nil {
			return p.err
		}
	}
}
