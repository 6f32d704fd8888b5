package formats

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/llmmetrics/llmmetrics/internal/lineio"
)

// ReadSGLang reads the output file of SGLang's bench_serving
// (--output-file): JSON lines, one per run, appended run after run. It
// returns the last run; ReadSGLangRuns returns them all. A line written
// without --output-details holds the run's summary only: it is read as such,
// and asking it for records or a dialect fails with ErrNoRecords.
func ReadSGLang(r io.Reader) (*File, error) {
	runs, err := ReadSGLangRuns(r)
	if err != nil {
		return nil, err
	}
	f := runs[len(runs)-1]
	if len(runs) > 1 {
		f.Notes = append([]string{fmt.Sprintf("The file holds %d runs, one per line; this is the last one (line %d).", len(runs), len(runs))}, f.Notes...)
	}
	return f, nil
}

// ReadSGLangRuns reads every run of an SGLang output file, in file order.
func ReadSGLangRuns(r io.Reader) ([]*File, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var runs []*File
	for line := 1; ; line++ {
		b, err := lineio.Read(br, nil, 0)
		if err != nil && err != io.EOF {
			return nil, &FieldError{Tool: SGLang, Line: line, Offset: -1, Err: err}
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			f, perr := parseServe(t, SGLang)
			if perr != nil {
				if fe, ok := perr.(*FieldError); ok {
					fe.Line = line
				}
				return nil, perr
			}
			runs = append(runs, f)
		}
		if err == io.EOF {
			break
		}
	}
	if len(runs) == 0 {
		return nil, &FieldError{Tool: SGLang, Offset: -1, Err: fmt.Errorf("%w: no runs", ErrFormat)}
	}
	return runs, nil
}
