// Package csvline finds the lines of a CSV input that its readers need
// before encoding/csv reads them: the header's line, the first line on
// which a quoted field may go on past its end, and a bound on the bytes of
// one row.
package csvline

import (
	"bytes"
	"errors"
	"io"

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

// ErrLongRow is the error of a row longer than the limit.
var ErrLongRow = errors.New("row too long")

// A Limiter passes reads through, failing with ErrLongRow once more than
// Max bytes have been read past Mark, the offset at which the row being
// read began: encoding/csv has no bound of its own on a row's length.
type Limiter struct {
	R         io.Reader
	Mark, Max int64
	read      int64
}

func (l *Limiter) Read(p []byte) (int, error) {
	if l.read-l.Mark > l.Max {
		return 0, ErrLongRow
	}
	n, err := l.R.Read(p)
	l.read += int64(n)
	return n, err
}
