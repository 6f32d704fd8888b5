package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/lineio"
)

// This file holds the checks every importer applies to what it reads: a
// JSON document alone in its file, and times and counts within the range
// llmmetrics computes with exactly.

// maxSeconds is llmmetrics.MaxTime in seconds: the largest time an
// importer accepts.
var maxSeconds = llmmetrics.MaxTime.Seconds()

// checkTime refuses a time, in seconds, that is not finite or lies further
// than llmmetrics.MaxTime from its boundary.
func checkTime(s float64) error {
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return fmt.Errorf("%w: %v", llmmetrics.ErrNonFinite, s)
	case math.Abs(s) > maxSeconds:
		return fmt.Errorf("%w: %v s is further than %v from its boundary", llmmetrics.ErrOutOfRange, s, llmmetrics.MaxTime)
	}
	return nil
}

// checkTimes checks every time of xs, given in units of scale seconds, and
// returns the index of the first bad one with its error.
func checkTimes(xs []float64, scale float64) (int, error) {
	for i, x := range xs {
		if err := checkTime(x * scale); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// checkCount refuses a token count that is not a whole number in
// [0, llmmetrics.MaxCount].
func checkCount(x float64) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("%w: %v", llmmetrics.ErrNonFinite, x)
	case x != math.Trunc(x) || x < 0:
		return fmt.Errorf("%w: %v is not a token count", llmmetrics.ErrSyntax, x)
	case x > llmmetrics.MaxCount:
		return fmt.Errorf("%w: %v tokens is above %d", llmmetrics.ErrOutOfRange, x, llmmetrics.MaxCount)
	}
	return nil
}

// decodeDocument decodes the one JSON document of r into v, as the
// importers that use encoding/json read their files: a leading UTF-8 byte
// order mark is skipped, anything but white space after the document is an
// error, and an error names the byte offset and, for a value of the wrong
// type, the key.
func decodeDocument(tool Tool, r io.Reader, v any) error {
	br := skipBOM(r)
	dec := json.NewDecoder(br)
	if err := dec.Decode(v); err != nil {
		fe := &FieldError{Tool: tool, Offset: int(dec.InputOffset()), Err: fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err)}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			fe.Offset = int(se.Offset)
		case errors.As(err, &te):
			fe.Offset, fe.Field = int(te.Offset), te.Field
		case errors.Is(err, io.EOF):
			fe.Err = fmt.Errorf("%w: the input is empty", llmmetrics.ErrSyntax)
		}
		return fe
	}
	if _, err := dec.Token(); err != io.EOF {
		return &FieldError{Tool: tool, Offset: int(dec.InputOffset()), Err: fmt.Errorf("%w: text after the JSON document", llmmetrics.ErrSyntax)}
	}
	return nil
}

// skipBOM returns a reader of r without a leading UTF-8 byte order mark.
func skipBOM(r io.Reader) io.Reader {
	head := make([]byte, len(lineio.BOM))
	n, err := io.ReadFull(r, head)
	if n == len(lineio.BOM) && bytes.Equal(head, lineio.BOM) {
		return r
	}
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return io.MultiReader(bytes.NewReader(head[:n]), errReader{err})
	}
	return io.MultiReader(bytes.NewReader(head[:n]), r)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// finite reports whether every value is finite.
func finite(xs []float64) (int, bool) {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return i, false
		}
	}
	return -1, true
}
