// Package lineio reads lines of any length, for the readers of JSON-lines
// files: bufio.Scanner stops at 64 KiB, and records with long chunk lists
// exceed that.
package lineio

import (
	"bufio"
	"fmt"
)

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
