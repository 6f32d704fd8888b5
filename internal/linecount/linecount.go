// Package linecount counts the lines and commas of a file before it is
// read, in parallel, so that a reader can make room for every record at
// once.
package linecount

import (
	"bytes"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"sync"
)

// File returns the number of lines of r from its offset to its end (its
// newlines, plus one), when r is a regular file whose lines average
// MinLineBytes or more, so that a reader can make room for every record at
// once; -1 otherwise. It also counts the commas of the file (-1 when it
// does not count the lines), by which a JSONL reader makes room for every
// chunk arrival at once: a value in an array but the last is followed by
// one. It reads the file with ReadAt, in parallel, leaving its offset
// where it was. The counts are bounds to size slices by, not promises:
// the file may change.
func File(r io.Reader) (lines, commas int) {
	f, ok := r.(interface {
		io.ReaderAt
		io.Seeker
		Stat() (fs.FileInfo, error)
	})
	if !ok {
		return -1, -1
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return -1, -1
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil || off > fi.Size() {
		return -1, -1
	}
	const piece = 1 << 20
	size := fi.Size() - off
	parts := runtime.GOMAXPROCS(0)
	counts := make([]int, parts)
	commaCounts := make([]int, parts)
	failed := make([]bool, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := off+size*int64(p)/int64(parts), off+size*int64(p+1)/int64(parts)
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, piece)
			for at := lo; at < hi; {
				n, err := f.ReadAt(buf[:min(int64(piece), hi-at)], at)
				counts[p] += bytes.Count(buf[:n], []byte{'\n'})
				commaCounts[p] += bytes.Count(buf[:n], []byte{','})
				at += int64(n)
				if at < hi && (err != nil || n == 0) {
					failed[p] = true
					return
				}
			}
		}()
	}
	wg.Wait()
	if slices.Contains(failed, true) {
		return -1, -1
	}
	lines = 1
	for p := range counts {
		lines += counts[p]
		commas += commaCounts[p]
	}
	if int64(lines)*MinLineBytes > size {
		return -1, -1
	}
	return lines, commas
}

// MinLineBytes is the shortest average line for which File gives a
// count. A reader makes room for one record a line, 144 bytes each: lines
// shorter on average than any record (a file of blank lines, say) would
// take memory out of all proportion to the input, so there it does not.
const MinLineBytes = 16
