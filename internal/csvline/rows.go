package csvline

import (
	"encoding/csv"
	"errors"
	"io"
)

// A ReadError is an error reading the input, which ends Rows, beside the
// errors of its callbacks.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Rows reads the rows of cr, which reads its input through lr, to the
// end, one at a time: each row encoding/csv reads goes to row, with the
// line it starts on; each it cannot (a quote out of place, the wrong
// number of fields) to bad, with the fields read and encoding/csv's
// error, and reading goes on after it while it can. lines are cr's, from
// 1; lastLine is the line on which the row before the first ended (a
// header's), 0 when none.
//
// It stops at the first error row or bad returns, and returns it; at a
// row longer than lr allows, returning the line it starts on (long); and
// at any other error reading the input, returned as a *ReadError.
func Rows(cr *csv.Reader, lr *Limiter, lastLine int, row func(fields []string, line int) error, bad func(fields []string, pe *csv.ParseError) error) (long int, err error) {
	for {
		lr.Mark = cr.InputOffset()
		fields, err := cr.Read()
		if err == io.EOF {
			return 0, nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if !errors.Is(pe.Err, ErrLongRow) {
				if err := bad(fields, pe); err != nil {
					return 0, err
				}
				lastLine = pe.Line
				if cr.InputOffset() != lr.Mark {
					continue
				}
				return 0, nil // no progress: nothing more can be read
			}
			err = pe.Err
		}
		if errors.Is(err, ErrLongRow) {
			return lastLine + 1, nil
		}
		if err != nil {
			return 0, &ReadError{err}
		}
		line, _ := cr.FieldPos(0)
		lastLine, _ = cr.FieldPos(len(fields) - 1)
		if err := row(fields, line); err != nil {
			return 0, err
		}
	}
}
