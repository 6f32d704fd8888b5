package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/parquet"
)

// stdinName is standard input's name in a report.
const stdinName = "standard input"

// A stdinSpool is standard input as a bounded report reads it in passes:
// the regular file it is, or the temporary file it was spooled to, which
// a note names.
type stdinSpool struct {
	in   *boundedInput
	note string
}

// inputs returns the input of a bounded report of files: the one file
// named, or standard input when it is a file; no when there is none.
// close closes what it opened.
func (m *maxMemory) inputs(files []string) ([]*boundedInput, func(), bool) {
	switch {
	case len(files) > 1:
		return nil, nil, false
	case len(files) == 1 && files[0] != "-":
		return openInputs(files)
	case m.stdin == nil:
		return nil, nil, false
	}
	return []*boundedInput{m.stdin.in}, func() {}, true
}

// spoolNote adds to opt's notes that standard input was spooled, when it
// was, is the input, and would take more than --max-memory read whole.
func (m *maxMemory) spoolNote(in *boundedInput, opt *llmmetrics.Options) {
	if s := m.stdin; s != nil && s.in == in && s.note != "" && in.size > m.limit()/in.factor() {
		opt.Notes = append(opt.Notes, s.note)
	}
}

// pipeInMemory is the most of a pipe on standard input that report
// holds in memory to see whether it ends: a pipe that ends within it (and
// within what --max-memory lets its bytes take beside its records) is
// read from there; a longer one is written to a temporary file first and
// read from that, as a file named is (in memory, or in passes when it is
// too large). Holding a whole large pipe beside its records instead took
// the 2 M-row CSV from 161 MB and 0.34 s to 354 MB and 0.67 s.
const pipeInMemory = 8 << 20

// spool returns standard input as report reads it. A regular file is
// read as it is, in passes when it is too large. A pipe is read as
// pipeInMemory says. The temporary file is removed as soon as it is made,
// so that it goes however report ends (the open file keeps its bytes
// until closed), or else by done; where none can be made, the pipe is
// read in memory, as it comes.
func (m *maxMemory) spool(stdin io.Reader) (in io.Reader, done func(), err error) {
	if f, ok := stdin.(*os.File); ok {
		if bi, ok := inputOf(stdinName, f); ok {
			m.stdin = &stdinSpool{in: bi}
			return stdin, func() {}, nil
		}
	}
	var magic [4]byte
	n, err := io.ReadFull(stdin, magic[:])
	pq := err == nil && string(magic[:]) == parquet.Magic
	keep := min(pipeInMemory, m.limit()/((&boundedInput{parquet: pq}).factor()+1))
	buf := make([]byte, max(keep, int64(n))+1) // made once: grown, it would be copied and left behind
	copy(buf, magic[:n])
	if err == nil {
		var k int
		k, err = io.ReadFull(stdin, buf[n:])
		n += k
	}
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return bytes.NewReader(buf[:n]), func() {}, nil
	case err != nil:
		return nil, nil, err
	}
	return m.spoolFile(buf[:n], stdin, pq)
}

// spoolFile writes head and the rest of standard input to a temporary
// file, removed at once, and sets it for the bounded report; it returns
// the file, to be read from its start.
func (m *maxMemory) spoolFile(head []byte, stdin io.Reader, pq bool) (io.Reader, func(), error) {
	tmp, err := os.CreateTemp("", "llmmetrics-stdin-*")
	if err != nil {
		return io.MultiReader(bytes.NewReader(head), stdin), func() {}, nil
	}
	removed := os.Remove(tmp.Name()) == nil
	done := func() {
		tmp.Close()
		if !removed {
			os.Remove(tmp.Name())
		}
	}
	size, err := io.Copy(tmp, io.MultiReader(bytes.NewReader(head), stdin))
	if err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("%s: spooling it to %s: %w", stdinName, tmp.Name(), err)
	}
	// The note says only the spool: its size, and that it is past
	// --max-memory, are the next note's (overMemory's), which always
	// follows it.
	m.stdin = &stdinSpool{in: &boundedInput{name: stdinName, at: tmp, size: size, parquet: pq},
		note: stdinName + " was written to a temporary file, removed when report ends, and read from there"}
	return tmp, done, nil
}

// open opens report's input, as open does, standard input spooled as
// maxMemory.spool says.
func (f *reportFlags) open(files []string, stdin io.Reader) (io.Reader, string, func(), error) {
	in, name, closeIn, err := open(files, stdin)
	if err != nil || name != stdinName {
		return in, name, closeIn, err
	}
	in, done, err := f.maxMemory.spool(in)
	return in, name, done, err
}
