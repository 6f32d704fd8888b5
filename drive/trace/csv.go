package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// The columns read from the CSV formats.
var (
	azureColumns    = []string{"TIMESTAMP", "ContextTokens", "GeneratedTokens"}
	burstGPTColumns = []string{"Timestamp", "Request tokens", "Response tokens"}
)

// azureTime is the layout of Azure's TIMESTAMP: wall-clock text of up to
// 7 fractional digits, no zone.
const azureTime = "2006-01-02 15:04:05.999999999"

func readAzure(r io.Reader, b *builder) error {
	var zero time.Time
	return readCSV(r, b, azureColumns, func(s string) (time.Duration, error) {
		t, err := time.Parse(azureTime, strings.TrimSpace(s))
		if err != nil {
			return 0, ErrNotTime
		}
		if zero.IsZero() {
			zero = t
		}
		return t.Sub(zero), nil
	})
}

func readBurstGPT(r io.Reader, b *builder) error {
	return readCSV(r, b, burstGPTColumns, func(s string) (time.Duration, error) {
		d, ok := parseTime(strings.TrimSpace(s), time.Second)
		if !ok {
			return 0, ErrNotNumber
		}
		return d, nil
	})
}

// readCSV reads a CSV trace whose header names its columns: cols are the
// time, the prompt's and the output's, and at reads a time.
func readCSV(r io.Reader, b *builder, cols []string, at func(string) (time.Duration, error)) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	file := b.t.File
	head, err := cr.Read()
	if err != nil {
		return csvError(file, err)
	}
	idx := make([]int, len(cols))
	for i, c := range cols {
		idx[i] = -1
		for j, h := range head {
			if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) == c {
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			return &Error{File: file, Line: 1, Field: "column " + c, Err: fmt.Errorf("%w from the header (%s)", ErrMissing, strings.Join(head, ","))}
		}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		var f [3]field
		for i, c := range cols {
			if idx[i] >= len(rec) {
				return &Error{File: file, Line: line, Field: c, Err: ErrMissing}
			}
			f[i] = field{c, rec[idx[i]]}
		}
		row := Row{Line: line}
		if row.At, err = at(f[0].text); err != nil {
			return &Error{File: file, Line: line, Field: f[0].name, Value: f[0].text, Err: err}
		}
		var ok bool
		for i, n := range []*int{&row.Prompt, &row.Output} {
			if *n, ok = parseLength(f[i+1].text); !ok {
				return &Error{File: file, Line: line, Field: f[i+1].name, Value: f[i+1].text, Err: ErrNotNumber}
			}
		}
		if err := b.add(row, f[0], f[1], f[2]); err != nil {
			return err
		}
	}
}

// csvError names the file and line of a CSV syntax error.
func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: file, Line: pe.Line, Field: fmt.Sprintf("column %d", pe.Column), Err: pe.Err}
	}
	if err == io.EOF {
		return &Error{File: file, Field: "header", Err: ErrMissing}
	}
	return fmt.Errorf("%s: %w", file, err)
}
