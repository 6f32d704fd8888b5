package bounded

import (
	"github.com/llmmetrics/llmmetrics"
)

// A Source is a run read once a pass, a batch of records at a time: a
// file of llmmetrics' JSONL or CSV (FileSource), or a reader of another
// format, such as the parquet module's, which this package does not
// import.
type Source interface {
	// Header returns the run's header, reading no more of the run than
	// it needs; nil when the run has none. SummarizeSources reads it
	// before the passes when it merges several runs.
	Header() (*llmmetrics.RunHeader, error)
	// Pass reads the run from its start and hands fn each batch of its
	// records, in order, as a Run: the first batch holds the run's
	// header, as its writer wrote it, and its window and NoSendTimes;
	// the last its end line and cut, with Cut.After counted from the
	// batch's first record (an empty last batch may carry them). Lines
	// is not read: an invalid record is named by its index. A batch is
	// fn's during the call, which may change its records; fn's error
	// stops the pass and is returned.
	Pass(fn func(batch *llmmetrics.Run) error) error
}

// FileSource returns the Source of a file of llmmetrics' JSONL or CSV
// that open opens once a pass, told by its first byte as llmmetrics.Read
// tells them: Summarize's. Its batches are about 1 MiB of lines, and an
// invalid record is named by its line too.
func FileSource(open Opener) Source { return fileSource(open) }

// fileSource is FileSource's Source.
type fileSource Opener

func (o fileSource) Header() (*llmmetrics.RunHeader, error) { return header(Opener(o)) }

func (o fileSource) Pass(fn func(*llmmetrics.Run) error) error {
	return pass(Opener(o), llmmetrics.ReadOptions{}, func(b *batch) error { return fn(b.run) })
}

// SummarizeSources is SummarizeMerged for runs read by any Source: one
// run, or the files of one run taken by several machines (each with its
// run header), merged as SummarizeMerged merges them.
func SummarizeSources(srcs []Source, opt Options, check func(merged *llmmetrics.Run, files []File) error) (*llmmetrics.Summary, Stats, error) {
	if err := checkOptions(&opt); err != nil {
		return nil, Stats{}, err
	}
	rd := &reader{opt: opt, files: make([]info, len(srcs)), check: check}
	for _, src := range srcs {
		rd.srcs = append(rd.srcs, source{src: src})
	}
	if len(srcs) > 1 {
		if err := rd.headers(); err != nil {
			return nil, Stats{}, err
		}
	}
	return rd.summarize()
}

// batchesOf returns a pass over src a batch at a time: a file's batches,
// with their lines, read as o says, or another source's, their lines
// counted as records so that a header after the first batch is found.
func batchesOf(src Source, o llmmetrics.ReadOptions) func(fn func(b *batch) error) error {
	if f, ok := src.(fileSource); ok {
		return func(fn func(b *batch) error) error { return pass(Opener(f), o, fn) }
	}
	return func(fn func(b *batch) error) error {
		n := 0
		return src.Pass(func(run *llmmetrics.Run) error {
			r := *run
			r.Lines = nil
			b := &batch{run: &r, line: n + 1, lines: max(len(r.Records), 1)}
			n += len(r.Records)
			return fn(b)
		})
	}
}
