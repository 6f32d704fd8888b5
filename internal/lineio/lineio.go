// Package lineio reads lines of any length, for the readers of JSON-lines
// files: bufio.Scanner stops at 64 KiB, and records with long chunk lists
// exceed that.
package lineio

import (
	"bufio"
	"fmt"
)

// BOM is the UTF-8 byte order mark, which the readers of line formats
// skip at the start of a line.
var BOM = []byte("\xef\xbb\xbf")

// Read appends the next line of br, without its newline, to dst and
// returns it. With max > 0, a line longer than max bytes is an error. At
// the end of the input it returns the last line (possibly empty) with the
// reader's error, io.EOF.
func Read(br *bufio.Reader, dst []byte, max int) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		dst = append(dst, chunk...)
		if max > 0 && len(dst) > max {
			return dst, fmt.Errorf("line longer than %d bytes", max)
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			return dst[:len(dst)-1], nil
		default:
			return dst, err
		}
	}
}

// Grow returns a copy of buf with room for more of a line that is refused
// once longer than limit bytes: four times the room, or limit+1 bytes at
// once when four times that would pass the limit. A line without end is
// then refused after limit+1 bytes have been read, in memory of about
// 1.2 times the limit (the last buffer and the one before it), where
// doubling would read and hold up to twice the limit, and more while the
// last copy is made.
func Grow(buf []byte, limit int) []byte {
	n := 4 * max(cap(buf), 1<<12)
	if n > limit/4 {
		n = max(limit+1, cap(buf)+1)
	}
	grown := make([]byte, len(buf), n)
	copy(grown, buf)
	return grown
}
