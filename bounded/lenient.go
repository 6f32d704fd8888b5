package bounded

import (
	"fmt"

	"github.com/llmmetrics/llmmetrics"
)

// Lenient summaries. With Options.Lenient a record is set aside as
// rejected, as llmmetrics.Summarize sets it aside, when the reader could
// not parse its row, when it is invalid, or when its id repeats that of
// an earlier valid record (the first is kept). The repeated ids are found
// before the figures' passes (see repeats), so that every pass leaves the
// same records out of its batches (see setAside), and the first of those
// passes lists and counts what it left out.

// asides are what a lenient summary sets aside.
type asides struct {
	// firsts holds, for each id whose hash the valid records repeat, its
	// first valid record; a later record with the id is a repeat.
	firsts map[string]place
	// listing is set during the pass that lists and counts the rows and
	// records set aside; rows and recs list them, the first MaxReasons of
	// each.
	listing    bool
	rows, recs []*llmmetrics.RecordError
	firstBytes int // about the bytes firsts holds
}

// held returns about the bytes the asides hold: firsts, with its ids.
func (a *asides) held() int { return a.firstBytes }

// A place is a record's index and line in the file.
type place struct{ index, line int }

// setAside takes out of a batch the records a lenient summary sets aside,
// keeping their indexes in the file, and during the listing pass lists
// and counts them and the rows the reader set aside, and shows each
// failed record, set aside or not, to Options.Failed in input order.
func (rd *reader) setAside(b *batch) {
	a := &rd.asides
	if a.listing {
		rd.rowsSetAside(b)
	}
	recs, lines := b.run.Records, b.run.Lines
	kept, keptLines := recs[:0], lines[:0]
	index := make([]int, 0, len(recs))
	for i := range recs {
		e := rd.rejectOf(b, i)
		if a.listing {
			rd.showFailed(&recs[i])
			rd.list(e, &a.recs)
		}
		if e != nil {
			if a.listing {
				rd.files[b.file].records++ // as a file's completeness counts it
			}
			continue
		}
		index = append(index, b.first+i)
		kept = append(kept, recs[i])
		if i < len(lines) {
			keptLines = append(keptLines, lines[i])
		}
	}
	b.run.Records, b.run.Lines, b.index = kept, keptLines, index
}

// rowsSetAside lists and counts the rows the reader set aside in a
// batch, on their lines in the file, their ids prefixed as their
// records'.
func (rd *reader) rowsSetAside(b *batch) {
	prefix := rd.srcs[b.file].prefix
	for _, e := range b.run.Rejected {
		e.Line += b.line - 1
		if e.ID != "" {
			e.ID = prefix + e.ID
		}
		rd.list(e, &rd.asides.rows)
	}
	n := b.run.RejectedCount()
	rd.t.a.Offered += n
	rd.t.a.Rejected += n
	rd.files[b.file].records += n
}

// list counts a record or row set aside, when e is not nil, and lists it
// in to while fewer than MaxReasons are listed there.
func (rd *reader) list(e *llmmetrics.RecordError, to *[]*llmmetrics.RecordError) {
	if e == nil {
		return
	}
	if len(*to) < llmmetrics.MaxReasons {
		*to = append(*to, e)
	}
	if to == &rd.asides.recs {
		rd.t.a.Offered++
		rd.t.a.Rejected++
	}
}

// rejectOf returns why record i of a batch is set aside, or nil: it is
// invalid, or it repeats the id of an earlier valid record.
func (rd *reader) rejectOf(b *batch, i int) *llmmetrics.RecordError {
	r := &b.run.Records[i]
	if err := r.Validate(); err != nil {
		return recordError(b, i, err).(*llmmetrics.RecordError)
	}
	if r.ID == "" || rd.asides.firsts == nil {
		return nil
	}
	first, ok := rd.asides.firsts[r.ID]
	if !ok || first.index == b.first+i {
		return nil
	}
	return &llmmetrics.RecordError{Index: b.first + i, Line: b.lineOf(i), ID: r.ID, Field: "id",
		Err: fmt.Errorf("%w: also line %d", llmmetrics.ErrDuplicateID, first.line)}
}

// rejected returns the first MaxReasons rows and records set aside, in
// the order Summarize lists them: the rows the reader set aside, then the
// records, in input order; nil when none was.
func (a *asides) rejected() []*llmmetrics.RecordError {
	all := a.rows
	for _, e := range a.recs {
		if len(all) == llmmetrics.MaxReasons {
			break
		}
		all = append(all, e)
	}
	return all
}

// repeats finds, before the figures' passes, the ids the valid records
// repeat and the first record of each (asides.firsts), with the check of
// the ids (see idCheck) in passes of its own: one that hashes the ids,
// those that hash a part of them each when they do not fit, and one that
// compares the ids of the candidates.
func (rd *reader) repeats(passes *int) error {
	c := rd.ids
	seen := 0
	*passes++
	err := rd.each(func(b *batch) error {
		for i := range b.run.Records {
			if id := b.run.Records[i].ID; id != "" {
				seen++
				c.add(id)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.first(seen)
	a := &rd.asides
	a.firsts = map[string]place{}
	c.repeated = func(b *batch, i int, first place) error {
		id := b.run.Records[i].ID
		if _, ok := a.firsts[id]; !ok {
			a.firsts[id] = first
			a.firstBytes += len(id) + 48 // the key's header, the place, the map's own
		}
		return nil
	}
	return c.check(rd.each, passes)
}
