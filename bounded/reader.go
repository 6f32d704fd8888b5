package bounded

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/outofcore"
)

// A reader reads a run's file in passes for its summary.
type reader struct {
	srcs   []source
	opt    Options
	passes int // the selection's passes begun
	t      tally
	ids    *idCheck
	asides asides // what a lenient summary sets aside
	nIDs   int    // the non-empty ids the first pass saw
	files  []info // what the first pass read of each file beside its records
	// merged is the run of several files, without records: its header
	// and end line; nil for one file. check, when not nil, checks the
	// files and the merged run after the first pass.
	merged *llmmetrics.Run
	check  func(merged *llmmetrics.Run, files []File) error
	// startless are the positions of a merge's files without a header
	// with its start (see withStarts).
	startless []int
}

// A source is a file of the run, read with each record's send moved by
// shift and its id prefixed with prefix, as llmmetrics.MergeRuns moves
// and names the records of several files.
type source struct {
	src    Source
	shift  time.Duration
	prefix string
}

// A passFunc reads the run once, handing each batch of its records, in
// order, to fn.
type passFunc func(fn func(b *batch) error) error

// each reads every file of the run once, in order, a batch at a time,
// its records moved and named as the source says.
func (rd *reader) each(fn func(b *batch) error) error {
	n := 0
	for i, src := range rd.srcs {
		var fnErr error
		err := batchesOf(src.src, llmmetrics.ReadOptions{Lenient: rd.opt.Lenient})(func(b *batch) error {
			b.file, b.first = i, n
			n += len(b.run.Records)
			if src.prefix != "" {
				move(b.run.Records, src.shift, src.prefix)
			}
			if rd.opt.Lenient {
				rd.setAside(b)
			}
			fnErr = fn(b)
			return fnErr
		})
		switch {
		case err != nil && err != fnErr && len(rd.srcs) > 1:
			return &FileError{File: i, Err: err}
		case err != nil:
			return err
		}
	}
	return nil
}

// A FileError is an error in reading one of several files merged (an
// invalid record, in a strict summary): File is its position among them,
// from 0.
type FileError struct {
	File int
	Err  error
}

// Error names the file by its position, from 1.
func (e *FileError) Error() string { return fmt.Sprintf("file %d: %v", e.File+1, e.Err) }

// Unwrap returns the file's error.
func (e *FileError) Unwrap() error { return e.Err }

// info is what a run's file says beside its records.
type info struct {
	facts
	header      *llmmetrics.RunHeader
	end         *llmmetrics.RunEnd
	cut         *llmmetrics.Cut
	endLine     int
	rows        int // the rows the reader set aside (see Options.Lenient)
	window      time.Duration
	noSendTimes bool
	sends       [2]int // the first record's line in a batch without send times, and in one with them
}

// summarize reads the file in passes and returns its summary.
func (rd *reader) summarize() (*llmmetrics.Summary, Stats, error) {
	opt := &rd.opt.Options
	if _, err := llmmetrics.Summarize(nil, *opt); !errors.Is(err, llmmetrics.ErrNoRecords) {
		return nil, Stats{}, err // the options' own error
	}
	ps := opt.Percentiles
	if ps == nil {
		ps = llmmetrics.DefaultPercentiles
	}
	rd.ids = newIDCheck(rd.opt.Budget / 4)
	ds, stats, err := rd.distributions(ps)
	if err != nil {
		return nil, stats, err
	}
	if err := rd.checkIDs(&stats.Passes); err != nil {
		return nil, stats, err
	}
	if opt.Method == llmmetrics.NearestRank {
		stats.Passes++
		if err := name(rd.each, &ds); err != nil {
			return nil, stats, err
		}
	}
	return rd.summary(ps, ds), stats, nil
}

// checkIDs checks the ids after the figures' passes, for a repeated one,
// unless a lenient summary found the repeated ones first (see repeats).
func (rd *reader) checkIDs(passes *int) error {
	if rd.opt.Lenient {
		return nil
	}
	return rd.ids.check(rd.each, passes)
}

// distributions reads the file for the distributions of the samples at
// percentiles ps, tallying and hashing the records in the first pass; a
// quarter of the budget is the ids'.
func (rd *reader) distributions(ps []llmmetrics.Percentile) ([nSamples]*llmmetrics.Distribution, Stats, error) {
	var ds [nSamples]*llmmetrics.Distribution
	m := rd.opt.Method
	units, err := unitsOf(ps)
	if err != nil {
		return ds, Stats{}, err
	}
	idBudget, pre := rd.opt.Budget/4, 0
	if rd.opt.Lenient {
		if err := rd.repeats(&pre); err != nil {
			return ds, Stats{Passes: pre}, err
		}
	}
	ranks := func(_, n int) []int { return ranksOf(m, units, n) }
	mos, vals, st, err := outofcore.SelectEach(rd.samples, nSamples, rd.opt.Budget-idBudget, ranks)
	if err == nil && rd.t.a.Offered == 0 {
		err = llmmetrics.ErrNoRecords
	}
	if err != nil {
		return ds, Stats{}, err
	}
	for i := range ds {
		if mos[i].N > 0 {
			ds[i] = distribution(mos[i], vals[i], m, ps, units)
		}
	}
	return ds, Stats{Passes: pre + st.Passes, Held: st.Held + rd.ids.held() + rd.asides.held()}, nil
}

// samples is the selection's source: it reads the file once, yielding
// the samples of each batch of its records. The first pass also
// validates and tallies the records and hashes their ids.
func (rd *reader) samples(yield func(int, []time.Duration) bool) error {
	first := rd.passes == 0
	rd.passes++
	rd.asides.listing = first && rd.opt.Lenient
	defer func() { rd.asides.listing = false }()
	var segs segments
	err := rd.each(func(b *batch) error {
		if first {
			if err := rd.first(b); err != nil {
				return err
			}
		}
		segs.reset()
		for i := range b.run.Records {
			segs.add(&b.run.Records[i])
		}
		for i, v := range segs.vals {
			yield(i, v)
		}
		return nil
	})
	if first && err == nil {
		if !rd.opt.Lenient {
			rd.ids.first(rd.nIDs)
		}
		err = rd.checkFiles()
	}
	return err
}

// first validates, tallies and hashes the records of a batch, and notes
// what the file says beside them.
func (rd *reader) first(b *batch) error {
	f := &rd.files[b.file]
	if err := f.note(b); err != nil {
		return err
	}
	for i := range b.run.Records {
		r := &b.run.Records[i]
		err := r.Validate()
		if err == nil {
			err = rd.t.one(r, rd.opt.SLO)
		}
		if err != nil {
			return recordError(b, i, err)
		}
		if !rd.opt.Lenient { // a lenient pass shows them as it sets records aside
			rd.showFailed(r)
		}
		f.see(r, rd.srcs[b.file].shift)
		if r.ID != "" && !rd.opt.Lenient { // a lenient summary checks them first (see repeats)
			rd.nIDs++
			rd.ids.add(r.ID)
		}
	}
	return nil
}

// showFailed hands a record that did not end ok to Options.Failed.
func (rd *reader) showFailed(r *llmmetrics.Record) {
	if rd.opt.Failed != nil && r.Status != llmmetrics.StatusOK {
		rd.opt.Failed(*r)
	}
}

// recordError returns the error of record i of a batch as a
// *llmmetrics.RecordError that names it in the file.
func recordError(b *batch, i int, err error) error {
	e := &llmmetrics.RecordError{Field: "chunks", Err: err}
	if !errors.As(err, &e) {
		e.ID = b.run.Records[i].ID
	}
	e.Index, e.Line = b.indexOf(i), b.lineOf(i)
	return e
}

// note notes what a batch's run says beside its records: the header and
// declared window of the first, the end line and cut of the last. A
// header after the first batch, or a batch after the one with the end
// line, is the error Summarize gives for the lines in one file.
func (f *info) note(b *batch) error {
	run := b.run
	if f.end != nil {
		return &llmmetrics.RecordError{Index: -1, Line: b.line, Err: fmt.Errorf("%w (line %d), which must be the file's last", llmmetrics.ErrAfterEnd, f.endLine)}
	}
	if run.Header != nil && b.line > 1 {
		return &llmmetrics.RecordError{Index: -1, Line: b.line, Field: "llmmetrics_run", Err: fmt.Errorf("%w: a run header must be the file's first line", llmmetrics.ErrSyntax)}
	}
	if run.Header != nil {
		f.header = run.Header
	}
	if run.Window != 0 {
		f.window = run.Window
	}
	f.noSendTimes = f.noSendTimes || run.NoSendTimes
	if err := f.noteSends(b); err != nil {
		return err
	}
	if run.End != nil {
		f.end, f.endLine = run.End, b.line+b.lines-1
		f.addEndLoad()
	}
	if run.Cut != nil {
		cut := *run.Cut
		cut.Line += b.line - 1
		cut.After += b.first + f.rows
		f.cut = &cut
	}
	f.rows += run.RejectedCount()
	return nil
}

// noteSends notes whether a batch's records carry send times: a JSONL
// file whose records give them in one batch and not in another is the
// error llmmetrics.ErrMixedSends (see llmmetrics.ReadJSONL), named at the
// first record without; the batches cannot tell which side is fewer.
func (f *info) noteSends(b *batch) error {
	if len(b.run.Records) == 0 {
		return nil
	}
	i := 1
	if b.run.NoSendTimes {
		i = 0
	}
	if f.sends[i] == 0 {
		f.sends[i] = b.lineOf(0)
	}
	if f.sends[0] == 0 || f.sends[1] == 0 {
		return nil
	}
	err := fmt.Errorf("%w: the record on line %d gives its sent_ns", llmmetrics.ErrMixedSends, f.sends[1])
	return &llmmetrics.RecordError{Index: -1, Line: f.sends[0], Field: "sent_ns", Err: err}
}

// addEndLoad adds the end line's load facts to the header's, as the
// reader does when it reads both (see llmmetrics.RunEnd.Load).
func (f *info) addEndLoad() {
	if f.header == nil || len(f.end.Load) == 0 {
		return
	}
	if f.header.Load == nil {
		f.header.Load = map[string]string{}
	}
	maps.Copy(f.header.Load, f.end.Load)
}
