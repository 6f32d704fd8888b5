// Package csvline finds the lines of a CSV input that its readers need
// before encoding/csv reads them: the header's line, the first line on
// which a quoted field may go on past its end, and a bound on the bytes of
// one row.
package csvline

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"

	"github.com/llmmetrics/llmmetrics/internal/lineio"
)

// Header reads r up to the end of its first line that is not blank,
// the header, and returns those bytes and a reader of the rest. When the
// header's quotes may go on past its line (an odd number of them, see
// OpenQuote), it returns no header and a reader of the whole input, to
// be read by encoding/csv. A header longer than limit bytes is ErrLongRow,
// after at most limit+1 bytes have been read.
func Header(r io.Reader, limit int) (head []byte, rest io.Reader, err error) {
	buf := make([]byte, 0, 4<<10)
	for {
		if end := FirstLineEnd(buf); end >= 0 {
			head, tail := buf[:end], buf[end:]
			if OpenQuote(head) >= 0 {
				return nil, io.MultiReader(bytes.NewReader(buf), r), nil
			}
			return head, io.MultiReader(bytes.NewReader(tail), r), nil
		}
		if len(buf) > limit {
			// No line of it ends: the header is too long, however its
			// quotes go (encoding/csv would say so too, after reading
			// the input again into its buffers).
			return nil, nil, ErrLongRow
		}
		if len(buf) == cap(buf) {
			buf = lineio.Grow(buf, limit)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if OpenQuote(buf) >= 0 {
				return nil, bytes.NewReader(buf), nil
			}
			return buf, bytes.NewReader(nil), nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// FirstLineEnd returns the offset just past the newline ending the first
// line of b that is not blank ("\n" or "\r\n", which encoding/csv skips),
// or -1 when b holds no such whole line.
func FirstLineEnd(b []byte) int {
	for at := 0; ; {
		i := bytes.IndexByte(b[at:], '\n')
		if i < 0 {
			return -1
		}
		if line := b[at : at+i]; len(line) > 0 && !(len(line) == 1 && line[0] == '\r') {
			return at + i + 1
		}
		at += i + 1
	}
}

// OpenQuote returns the offset of the first line of data with an odd
// number of double quotes, or −1. A line with an even number cannot leave
// encoding/csv inside a quoted field at its end: a quoted field read to its
// close takes an even number, and a quote out of place is an error that
// ends the row with its line.
func OpenQuote(data []byte) int {
	for at := 0; ; {
		q := bytes.IndexByte(data[at:], '"')
		if q < 0 {
			return -1
		}
		q += at
		start := bytes.LastIndexByte(data[:q], '\n') + 1
		end := len(data)
		if i := bytes.IndexByte(data[q:], '\n'); i >= 0 {
			end = q + i + 1
		}
		if bytes.Count(data[start:end], []byte{'"'})%2 == 1 {
			return start
		}
		at = end
	}
}

// Fence returns the offset of the first line of data that encoding/csv is
// to read rather than the blocks' parser, or −1: the first on which a
// quoted field may go on past the line's end (see OpenQuote), or else a
// last line without a newline, which may be a row its writer was stopped
// inside (see Limiter.Cut). Only the input's last block can end so.
func Fence(data []byte) int {
	if at := OpenQuote(data); at >= 0 || len(data) == 0 || data[len(data)-1] == '\n' {
		return at
	}
	return bytes.LastIndexByte(data, '\n') + 1
}

// ErrLongRow is the error of a row longer than the limit.
var ErrLongRow = errors.New("row too long")

// A Limiter passes reads through, failing with ErrLongRow once more than
// Max bytes have been read past Mark, the offset at which the row being
// read began: encoding/csv has no bound of its own on a row's length. It
// notes the end of the input, and the bytes of its last line (see Cut).
type Limiter struct {
	R         io.Reader
	Mark, Max int64
	read      int64
	tail      int  // the bytes read after the last newline
	eof       bool // whether R has said io.EOF
}

func (l *Limiter) Read(p []byte) (int, error) {
	if l.read-l.Mark > l.Max {
		return 0, ErrLongRow
	}
	n, err := l.R.Read(p)
	l.read += int64(n)
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		l.tail = n - i - 1
	} else {
		l.tail += n
	}
	l.eof = l.eof || err == io.EOF
	return n, err
}

// Cut reports whether the row cr has just read (through l), with the
// fields and the error pe that Read gave (nil for none), ends the input,
// which ends without a newline, as a row its writer was stopped inside
// does: a row read whole (which the caller could not parse), a row short
// of fields (csv.ErrFieldCount), or a quoted field that the input ends
// inside (csv.ErrQuote at the input's end; a quote closed and followed by
// another character is not). It returns the row's fields written, the
// last of which may be cut short (an open quoted field is given as ""),
// the line of cr's that the input ends inside, and that line's bytes.
func (l *Limiter) Cut(cr *csv.Reader, fields []string, pe *csv.ParseError) (present []string, line, n int, ok bool) {
	if !l.eof || l.tail == 0 || cr.InputOffset() != l.read {
		return nil, 0, 0, false
	}
	switch {
	case (pe == nil || pe.Err == csv.ErrFieldCount) && len(fields) > 0:
		last := len(fields) - 1
		line, _ = cr.FieldPos(last)
		return fields, line + strings.Count(fields[last], "\n"), l.tail, true
	case pe.Err == csv.ErrQuote && pe.Column >= l.tail: // at the end: Column is the last line's bytes + 1, or without its "\r"
		return append(fields[:len(fields):len(fields)], ""), pe.Line, l.tail, true
	}
	return nil, 0, 0, false
}
