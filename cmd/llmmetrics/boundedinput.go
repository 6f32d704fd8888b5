package main

import (
	"bytes"
	"io"
	"os"

	"github.com/llmmetrics/llmmetrics/bounded"
	"github.com/llmmetrics/llmmetrics/parquet"
)

// parquetInMemoryFactor is inMemoryFactor for a Parquet file, which
// expands more than JSONL when read whole: its chunk arrivals are
// compressed to a byte or two each, while a Record holds eight and some
// 250 bytes besides. Measured as the heap's peak over the file's size
// (budget.Measure of report --json on gen_records.py's runs), Parquet
// took 2.6 times its size at 128 chunks a request, 4.6 at 16 and 9.0 at
// 2, where the same runs' JSONL took 0.9, 1.4 and 2.0 under its factor
// of 3; 12 keeps JSONL's margin (a third) for requests of few chunks.
const parquetInMemoryFactor = 12

// A boundedInput is a file a report may summarize in bounded memory:
// its name as a report says it, and its bytes from where they start.
type boundedInput struct {
	name    string
	at      io.ReaderAt
	size    int64
	parquet bool
}

// factor is how many times its size the input takes in memory read whole.
func (in *boundedInput) factor() int64 {
	if in.parquet {
		return parquetInMemoryFactor
	}
	return inMemoryFactor
}

// source returns the input's source for bounded.SummarizeSources: a
// Parquet file read a batch of rows at a time, or JSONL or CSV read a
// batch of lines at a time.
func (in *boundedInput) source() (bounded.Source, error) {
	if in.parquet {
		return parquet.NewSource(in.at, in.size)
	}
	return bounded.FileSource(func() (io.ReadCloser, error) {
		return io.NopCloser(io.NewSectionReader(in.at, 0, in.size)), nil
	}), nil
}

// inputOf returns the bounded input of an open file, from its offset; no
// when it is not a regular file.
func inputOf(name string, f *os.File) (*boundedInput, bool) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, false
	}
	in := &boundedInput{name: name, at: io.NewSectionReader(f, off, st.Size()-off), size: st.Size() - off}
	head := make([]byte, 4)
	_, err = in.at.ReadAt(head, 0)
	in.parquet = err == nil && bytes.Equal(head, []byte(parquet.Magic))
	return in, true
}

// openInputs opens the named files as bounded inputs; no when one cannot
// be opened or is not a regular file (the report in memory says why).
// close closes those it opened.
func openInputs(files []string) (ins []*boundedInput, close func(), ok bool) {
	var opened []*os.File
	close = func() {
		for _, f := range opened {
			f.Close()
		}
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			break
		}
		opened = append(opened, f)
		in, ok := inputOf(name, f)
		if !ok {
			break
		}
		ins = append(ins, in)
	}
	if len(ins) < len(files) {
		close()
		return nil, nil, false
	}
	return ins, close, true
}

// sources returns the inputs' sources.
func sources(ins []*boundedInput) ([]bounded.Source, error) {
	var srcs []bounded.Source
	for _, in := range ins {
		src, err := in.source()
		if err != nil {
			return nil, inFile(in.name, err)
		}
		srcs = append(srcs, src)
	}
	return srcs, nil
}
