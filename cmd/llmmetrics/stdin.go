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
// was and is the input.
func (m *maxMemory) spoolNote(in *boundedInput, opt *llmmetrics.Options) {
	if s := m.stdin; s != nil && s.in == in && s.note != "" {
		opt.Notes = append(opt.Notes, s.note)
	}
}

// spool returns standard input as report reads it. A regular file is
// read as it is, in passes when it is too large. Anything else (a pipe)
// is read into memory while it would fit --max-memory read whole, with
// its bytes held beside its records; when
// it does not end there, what was read and the rest are written to a
// temporary file, which is read in passes. The file is removed as soon
// as it is made, so that it goes however report ends (the open file
// keeps its bytes until closed), or else by done.
func (m *maxMemory) spool(stdin io.Reader) (in io.Reader, done func(), err error) {
	if f, ok := stdin.(*os.File); ok {
		if bi, ok := inputOf(stdinName, f); ok {
			m.stdin = &stdinSpool{in: bi}
			return stdin, func() {}, nil
		}
	}
	var buf bytes.Buffer
	_, err = io.CopyN(&buf, stdin, 4)
	pq := bytes.HasPrefix(buf.Bytes(), []byte(parquet.Magic))
	// Read whole, the bytes kept take their size besides the records.
	keep := m.limit() / ((&boundedInput{parquet: pq}).factor() + 1)
	if err == nil {
		_, err = io.CopyN(&buf, stdin, max(keep+1-4, 1))
	}
	switch {
	case errors.Is(err, io.EOF):
		return bytes.NewReader(buf.Bytes()), func() {}, nil
	case err != nil:
		return nil, nil, err
	}
	return m.spoolFile(buf.Bytes(), stdin, pq)
}

// spoolFile writes head and the rest of standard input to a temporary
// file, removed at once, and sets it for the bounded report.
func (m *maxMemory) spoolFile(head []byte, stdin io.Reader, pq bool) (io.Reader, func(), error) {
	tmp, err := os.CreateTemp("", "llmmetrics-stdin-*")
	if err != nil {
		return nil, nil, fmt.Errorf("%s past --max-memory: %w", stdinName, err)
	}
	removed := os.Remove(tmp.Name()) == nil
	done := func() {
		tmp.Close()
		if !removed {
			os.Remove(tmp.Name())
		}
	}
	size, err := io.Copy(tmp, io.MultiReader(bytes.NewReader(head), stdin))
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("%s past --max-memory: spooling it to %s: %w", stdinName, tmp.Name(), err)
	}
	m.stdin = &stdinSpool{in: &boundedInput{name: stdinName, at: tmp, size: size, parquet: pq},
		note: fmt.Sprintf("%s (%s) did not end within --max-memory read whole: it was written to a temporary file, removed when report ends, to be read from there", stdinName, megabytes(size))}
	return io.NewSectionReader(tmp, 0, size), done, nil
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
