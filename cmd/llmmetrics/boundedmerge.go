package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
	"github.com/llmmetrics/llmmetrics/formats"
)

// reportMergedBounded reports --merge's files in bounded memory when
// they would take more than --max-memory read whole, with the checks and
// the figures reportMerged gives; it says whether it did. When it does
// not, in's notes may say why (see overMemory).
func (f *reportFlags) reportMergedBounded(w io.Writer, files []string, in *llmmetrics.Options) (bool, error) {
	ins, closeIns, ok := openInputs(files)
	if !ok {
		return false, nil
	}
	defer closeIns()
	over, budget, ok := f.overMemory(ins, in)
	if !ok {
		return false, nil
	}
	opt := *in
	if err := ownFiles(files); err != nil {
		return true, err
	}
	srcs, err := sources(ins)
	if err != nil {
		return true, err
	}
	heads := firstBatches(srcs)
	var named []namedRun
	var warnings []string
	check := mergeCheck(files, heads, &named, &warnings)
	opt.Notes = append(slices.Clip(opt.Notes), mergedNote(len(files), false))
	var failed errorTally
	s, cost, err := bounded.SummarizeSources(srcs, bounded.Options{Options: opt, Budget: budget, Failed: failed.add}, check)
	if se := (*bounded.SendTimesError)(nil); errors.As(err, &se) {
		return true, sendTimesDisagree(files, se.Without) // merge.go
	}
	if se := (*bounded.StartError)(nil); errors.As(err, &se) {
		return true, needStarts(files, se.Without) // merge.go
	}
	if errors.Is(err, llmmetrics.ErrMerge) {
		return true, fmt.Errorf("%s: %s", strings.Join(files, ", "), trimPrefix(err))
	}
	if fe := (*bounded.FileError)(nil); errors.As(err, &fe) {
		return true, inFile(files[fe.File], withLenientHint(fe.Err, opt.Lenient))
	}
	if err != nil {
		return true, err
	}
	if len(named) > 0 && named[0].run.NoSendTimes {
		s.Notes[len(opt.Notes)-1] = mergedNote(len(files), true) // known after the first pass
	}
	// The load's warnings follow the merge's note, as reportMerged puts them.
	s.Notes = slices.Insert(s.Notes, len(opt.Notes), warnings...)
	nameTruncated(s.Completeness, named) // merge.go
	f.errs = summarizedSet(&failed, s)
	f.noteUnchecked(s)
	s.Notes = append(s.Notes, boundedNote(over, cost, budget, s))
	return true, f.writeSummary(w, strings.Join(files, " + "), s, nil)
}

// mergeCheck returns the check of a bounded merge of files: the checks
// and amendments reportMerged makes, the files named and the load's
// warnings kept in named and warnings.
func mergeCheck(files []string, heads [][]llmmetrics.Record, named *[]namedRun, warnings *[]string) func(*llmmetrics.Run, []bounded.File) error {
	return func(merged *llmmetrics.Run, fs []bounded.File) (err error) {
		runs := make([]*llmmetrics.Run, len(fs))
		for i := range fs {
			runs[i] = fs[i].Run
		}
		without := startless(runs) // the files have no send times: bounded refused them otherwise
		starts := withStarts(runs, without)
		for i := range fs {
			*named = append(*named, namedRun{name: files[i], run: starts[i], file: &fs[i], head: heads[i]})
		}
		if *warnings, err = checkMerge(*named); err != nil {
			return err
		}
		mergeShards(merged, *named)
		nameInterrupted(merged, *named) // merge.go
		unaligned(merged, runs, without)
		return nil
	}
}

// firstBatches returns the records of each source's first batch (about
// 1 MiB of lines), for sameRunTwice to tell one run given twice; a
// source that cannot be read gives none, and the merge's pass says why.
func firstBatches(srcs []bounded.Source) [][]llmmetrics.Record {
	heads := make([][]llmmetrics.Record, len(srcs))
	for i, src := range srcs {
		_ = src.Pass(func(b *llmmetrics.Run) error {
			heads[i] = slices.Clone(b.Records)
			return errFirstBatch
		})
	}
	return heads
}

// errFirstBatch stops a pass after its first batch.
var errFirstBatch = errors.New("first batch read")

// ownFiles refuses a file of another tool among --merge's, as
// reportMerged does.
func ownFiles(files []string) error {
	for _, name := range files {
		in, err := os.Open(name)
		if err != nil {
			return err
		}
		_, head := formats.Peek(in)
		in.Close()
		if tool, ok := formats.Detect(head); ok {
			return valueError(fmt.Sprintf("--merge joins llmmetrics' own JSONL files, with their run headers, and %s is %s's file: report it on its own", name, tool))
		}
		if err := traceGiven(head, name); err != nil {
			return inFile(name, err)
		}
	}
	return nil
}
