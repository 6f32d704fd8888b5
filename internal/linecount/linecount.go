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
	"sync/atomic"
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
//
// A file with a line longer than longest bytes gets no count (-1, -1),
// and File stops reading it there: the reader that follows refuses the
// line, and counting the rest of a file it will not read would be wasted.
// When the first piece File reads (1 MiB) holds no newline, it gives no
// count at once: a first line that long is either refused or the only
// few lines of the file, for which room need not be made ahead.
func File(r io.Reader, longest int) (lines, commas int) {
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
	size := fi.Size() - off
	if size > piece {
		first := make([]byte, piece)
		if n, _ := f.ReadAt(first, off); n < piece || bytes.IndexByte(first, '\n') < 0 {
			return -1, -1
		}
	}
	parts := runtime.GOMAXPROCS(0)
	counts := make([]int, parts)
	commaCounts := make([]int, parts)
	failed := make([]bool, parts)
	var long atomic.Bool // a line longer than longest was seen
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := off+size*int64(p)/int64(parts), off+size*int64(p+1)/int64(parts)
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, piece)
			run := 0 // bytes since the last newline, from the part's start
			for at := lo; at < hi; {
				n, err := f.ReadAt(buf[:min(int64(piece), hi-at)], at)
				c := bytes.Count(buf[:n], []byte{'\n'})
				counts[p] += c
				commaCounts[p] += bytes.Count(buf[:n], []byte{','})
				at += int64(n)
				if c == 0 {
					run += n
				} else {
					run = n - 1 - bytes.LastIndexByte(buf[:n], '\n')
				}
				if run > longest {
					long.Store(true)
				}
				if long.Load() || at < hi && (err != nil || n == 0) {
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

// piece is the size of one read.
const piece = 1 << 20
