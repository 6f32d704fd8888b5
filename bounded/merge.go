package bounded

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// A File is what the first pass found of one file of a merged run, for
// the checks a merge makes before it trusts the files to be one run.
type File struct {
	// Run holds the file's header, end line and cut, and no record.
	Run *llmmetrics.Run
	// Completeness is what Run.Completeness says of the file read whole.
	Completeness *llmmetrics.Completeness
	// Records counts its records (with Options.Lenient, the rows and
	// records set aside too, as Run.Completeness counts them). First and Last are its earliest send and its latest send or
	// end of an ok answer with tokens, on its own clock (from its
	// header's start); LoadFirst is its earliest send but for preflight
	// requests, -1 when it has none.
	Records     int
	First, Last time.Duration
	LoadFirst   time.Duration
}

// facts are what the first pass notes of a file's records for its File.
type facts struct {
	records                int
	first, last, loadFirst time.Duration
	hasSpan, hasLoadFirst  bool
}

// see notes a valid record of the file, its send moved by shift.
func (f *facts) see(r *llmmetrics.Record, shift time.Duration) {
	sent := r.Sent - shift
	last := sent
	if r.Status == llmmetrics.StatusOK && r.CompletionTokens > 0 {
		e2e, _ := r.E2E()
		last = sent + e2e
	}
	if !f.hasSpan {
		f.first, f.last, f.hasSpan = sent, last, true
	}
	f.first, f.last = min(f.first, sent), max(f.last, last)
	if !r.Preflight && (!f.hasLoadFirst || sent < f.loadFirst) {
		f.loadFirst, f.hasLoadFirst = sent, true
	}
	f.records++
}

// SummarizeMerged summarizes the files of one run taken by several
// machines as one run, as llmmetrics.MergeRuns merges them and
// Run.Summarize summarizes the merge: each record's send moved onto the
// clock of the earliest header's start, each id prefixed with its file's
// position ("2/r17"), the end lines added up. Each file is llmmetrics'
// JSONL with its run header, but for files without send times, which
// have no send to align: their records are pooled, and a file without a
// header is a *StartError only when the files have send times. After the first pass, check, when not nil,
// is given the merged run (its header and end line, no record), which it
// may amend, and the files; its error stops the summary. For one file it
// is Summarize.
func SummarizeMerged(opens []Opener, opt Options, check func(merged *llmmetrics.Run, files []File) error) (*llmmetrics.Summary, Stats, error) {
	srcs := make([]Source, len(opens))
	for i, open := range opens {
		srcs[i] = FileSource(open)
	}
	return SummarizeSources(srcs, opt, check)
}

// headers reads each file's header and merges them, setting the moves
// and names of the records.
func (rd *reader) headers() error {
	var runs []*llmmetrics.Run
	for i, src := range rd.srcs {
		h, err := src.src.Header()
		if err != nil {
			return err
		}
		if h == nil || h.Start.IsZero() {
			rd.startless = append(rd.startless, i)
		}
		runs = append(runs, &llmmetrics.Run{Header: h})
	}
	if len(rd.startless) > 0 {
		runs = withStarts(runs, rd.startless)
	}
	merged, err := llmmetrics.MergeRuns(runs)
	if err != nil {
		return err
	}
	for i := range rd.srcs {
		rd.srcs[i].shift = runs[i].Header.Start.Sub(merged.Header.Start)
		rd.srcs[i].prefix = fmt.Sprintf("%d/", i+1)
	}
	rd.merged = &llmmetrics.Run{Header: merged.Header}
	return nil
}

// withStarts gives the runs at the positions without, whose files have no
// header with its start, a copy of their header (or an empty one) at the
// earliest start of the others, or at the Unix epoch, so that MergeRuns
// merges them: files without send times have no send to move, and others
// are refused after the first pass (see sameSends), which learns whether
// they have send times.
func withStarts(runs []*llmmetrics.Run, without []int) []*llmmetrics.Run {
	start := time.Time{}
	for _, r := range runs {
		if h := r.Header; h != nil && !h.Start.IsZero() && (start.IsZero() || h.Start.Before(start)) {
			start = h.Start
		}
	}
	if start.IsZero() {
		start = time.Unix(0, 0).UTC()
	}
	for _, i := range without {
		h := llmmetrics.RunHeader{}
		if runs[i].Header != nil {
			h = *runs[i].Header
		}
		h.Start = start
		runs[i] = &llmmetrics.Run{Header: &h}
	}
	return runs
}

// header reads the run header on a file's first line; nil when it has
// none.
func header(open Opener) (*llmmetrics.RunHeader, error) {
	f, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return nil, nil
	}
	line = bytes.TrimSpace(line)
	if !bytes.HasPrefix(line, []byte(`{"llmmetrics_run"`)) {
		return nil, nil
	}
	run, err := llmmetrics.ReadJSONL(bytes.NewReader(line))
	if err != nil {
		return nil, err
	}
	return run.Header, nil
}

// move moves records' sends by shift and prefixes their ids.
func move(recs []llmmetrics.Record, shift time.Duration, prefix string) {
	for i := range recs {
		r := &recs[i]
		r.ID = prefix + r.ID
		r.Sent += shift
		if c := r.Client; c != nil && c.HasSchedule {
			cc := *c
			cc.Scheduled += shift
			r.Client = &cc
		}
	}
}

// checkFiles ends the first pass of a merged run: it adds up the files'
// end lines, as MergeRuns does, and has check check them.
func (rd *reader) checkFiles() error {
	if rd.merged == nil {
		return nil
	}
	if err := rd.sameSends(); err != nil {
		return err
	}
	files := make([]File, len(rd.files))
	for i := range rd.files {
		f := &rd.files[i]
		run := &llmmetrics.Run{Header: f.header, End: f.end, Cut: f.cut, NoSendTimes: f.noSendTimes}
		files[i] = File{Run: run, Completeness: completeness(f.header, f.end, f.cut, f.records), Records: f.records,
			First: f.first, Last: f.last, LoadFirst: -1}
		if f.hasLoadFirst {
			files[i].LoadFirst = f.loadFirst
		}
	}
	h := rd.merged.Header
	if e := rd.files[0].end; e != nil {
		for k, v := range e.Load { // the first file's, as its reader adds them to its header
			if _, set := h.Load[k]; !set || k != "merged_files" && k != "clock_alignment" {
				h.Load[k] = v
			}
		}
	}
	rd.merged.End, h.Ends = mergeEnds(files)
	if len(rd.startless) == len(files) {
		h.Start = time.Time{} // no file has one: the start given for MergeRuns is none
	}
	if rd.check == nil {
		return nil
	}
	return rd.check(rd.merged, files)
}

// mergeEnds returns the end line of the files merged, and whether the
// merged run promises one, as llmmetrics.MergeRuns makes them: none, and
// no promise, when a file neither has nor promises one; none, but a
// promise, when a file is truncated; otherwise the files' ends added up.
func mergeEnds(files []File) (*llmmetrics.RunEnd, bool) {
	end := &llmmetrics.RunEnd{State: "completed"}
	var by []string
	truncated := false
	for i, f := range files {
		switch c := f.Completeness; {
		case c == nil:
			return nil, false
		case c.State == "truncated":
			truncated = true
			continue
		}
		e := f.Run.End
		end.Written += e.Written
		switch why, absent := e.Absent["planned"]; {
		case absent:
			end.Absent = map[string]string{"planned": fmt.Sprintf("run %d: %s", i+1, why)}
		case e.Planned == 0 && e.Written > 0:
			end.Absent = map[string]string{"planned": fmt.Sprintf("run %d: %s", i+1, plannedUnsaid)}
		}
		end.Planned += e.Planned
		if e.State == "interrupted" {
			end.State = "interrupted"
			by = append(by, fmt.Sprintf("%s in run %d", e.By, i+1))
		}
		for _, n := range e.Notes {
			if !slices.Contains(end.Notes, n) {
				end.Notes = append(end.Notes, n)
			}
		}
	}
	if truncated {
		return nil, true
	}
	if end.Absent != nil {
		end.Planned = 0
	}
	end.By = strings.Join(by, "; ")
	return end, true
}

// sameSends refuses files that disagree on having send times, which the
// first pass has just learnt, with a *SendTimesError naming those
// without; and returns any other error of llmmetrics.MergeRuns of the
// files' headers, now with their send times said.
func (rd *reader) sameSends() error {
	runs := make([]*llmmetrics.Run, len(rd.files))
	var without []int
	for i, f := range rd.files {
		runs[i] = &llmmetrics.Run{Header: f.header, NoSendTimes: f.noSendTimes}
		if f.noSendTimes {
			without = append(without, i)
		}
	}
	if len(without) > 0 && len(without) < len(rd.files) {
		return &SendTimesError{Without: without, Files: len(rd.files)}
	}
	if len(rd.startless) > 0 {
		if len(without) == 0 {
			return &StartError{Without: rd.startless}
		}
		runs = withStarts(runs, rd.startless)
	}
	_, err := llmmetrics.MergeRuns(runs)
	return err
}

// A StartError refuses a merge of files with send times of which some
// have no run header with its start: their sends cannot be put on one
// clock with the others'. Without are their positions, from 0. It is an
// llmmetrics.ErrMerge. Files without send times need no start: their
// records are pooled.
type StartError struct{ Without []int }

func (e *StartError) Error() string {
	nums := make([]string, len(e.Without))
	for i, n := range e.Without {
		nums[i] = fmt.Sprint(n + 1)
	}
	return fmt.Sprintf("%v: %s no run header with a start time, and the files have send times: without a start they cannot be put on one clock",
		llmmetrics.ErrMerge, filesHave(nums))
}

// Unwrap returns llmmetrics.ErrMerge.
func (e *StartError) Unwrap() error { return llmmetrics.ErrMerge }

// A SendTimesError refuses a merge of files that disagree on having send
// times, as llmmetrics.MergeRuns does (it is an llmmetrics.ErrMerge):
// Without are the positions, from 0, of the files that have none, of
// Files; the others have them.
type SendTimesError struct {
	Without []int
	Files   int
}

func (e *SendTimesError) Error() string {
	var with, without []string
	for i := range e.Files {
		if slices.Contains(e.Without, i) {
			without = append(without, fmt.Sprint(i+1))
		} else {
			with = append(with, fmt.Sprint(i+1))
		}
	}
	return fmt.Sprintf("%v: %s no send times and %s: a merge keeps every file's or none",
		llmmetrics.ErrMerge, filesHave(without), filesHave(with))
}

// filesHave is "file 2 has" or "files 1, 3 have".
func filesHave(nums []string) string {
	if len(nums) == 1 {
		return "file " + nums[0] + " has"
	}
	return "files " + strings.Join(nums, ", ") + " have"
}

// Unwrap returns llmmetrics.ErrMerge.
func (e *SendTimesError) Unwrap() error { return llmmetrics.ErrMerge }

// whole is what the run's file, or its files merged, say beside the
// records.
func (rd *reader) whole() info {
	if rd.merged == nil {
		return rd.files[0]
	}
	return info{header: rd.merged.Header, end: rd.merged.End, noSendTimes: rd.files[0].noSendTimes} // as all files (sameSends)
}
