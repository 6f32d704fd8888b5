package llmmetrics

import (
	"fmt"
	"iter"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/table"
)

// source is where Summarize reads its records: a slice of Records, with
// the line of each when known, or a table of rows (internal/table), which
// holds such records in a fraction of the memory and gives them a window
// at a time, decoded. Every pass of Summarize reads its records through
// windows, so that one code serves both.
type source struct {
	recs  []Record
	lines []int // lines[i] is the line record i started on; nil when unknown
	tab   *table.Table
}

// window is the number of rows a table decodes at a time.
const window = 512

// len returns the number of records.
func (s *source) len() int {
	if s.tab != nil {
		return s.tab.Len()
	}
	return len(s.recs)
}

// Whether a pass reads the records' ids (and messages), for windows.
const (
	withIDs = true
	noIDs   = false
)

// windows yields the records [lo, hi) in order, a window at a time, each
// with the index of its first record. A slice is one window of itself; a
// table's rows are decoded into a buffer that each window reuses, with
// their ids and messages only when ids is set. A pass that does not read
// them is spared the decoding's only pointer writes, which while the
// collector marks each pay for a write barrier (a third of the decoding's
// cost on 5 M rows).
func (s *source) windows(lo, hi int, ids bool) iter.Seq2[int, []Record] {
	return func(yield func(int, []Record) bool) {
		if s.tab == nil {
			if lo < hi {
				yield(lo, s.recs[lo:hi])
			}
			return
		}
		buf := make([]Record, window)
		for base := lo; base < hi; base += window {
			w := buf[:min(window, hi-base)]
			decodeRows(s.tab, base, w, ids)
			if !yield(base, w) {
				return
			}
		}
	}
}

// id returns record i's id.
func (s *source) id(i int) string {
	if s.tab != nil {
		return s.tab.ID(i)
	}
	return s.recs[i].ID
}

// ids returns a function giving record i's id, for records asked for in
// order, to a pass that reads its windows without ids (see windows).
func (s *source) ids() func(i int) string {
	if s.tab != nil {
		return s.tab.IDs()
	}
	return func(i int) string { return s.recs[i].ID }
}

// chunks returns record i's chunk arrivals (a table has none).
func (s *source) chunks(i int) []time.Duration {
	if s.tab != nil {
		return nil
	}
	return s.recs[i].Chunks
}

// line returns the line record i started on, or false when it is unknown.
func (s *source) line(i int) (int, bool) {
	switch {
	case s.tab != nil:
		return s.tab.Line(i), true
	case s.lines != nil:
		return s.lines[i], true
	}
	return 0, false
}

// recordError is the error of record i in field.
func (s *source) recordError(i int, field string, err error) *RecordError {
	e := &RecordError{Index: i, ID: s.id(i), Field: field, Err: err}
	e.Line, _ = s.line(i)
	return e
}

// where names record i for a message: its line when known.
func (s *source) where(i int) string {
	if line, ok := s.line(i); ok {
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("record %d", i)
}

// asSlice returns the source as a slice of records, with their lines: s
// itself, or the table's rows, all decoded.
func (s *source) asSlice() *source {
	if s.tab == nil {
		return s
	}
	n := s.tab.Len()
	out := &source{recs: make([]Record, n), lines: make([]int, n)}
	decodeRows(s.tab, 0, out.recs, withIDs)
	for i := range out.lines {
		out.lines[i] = s.tab.Line(i)
	}
	return out
}
