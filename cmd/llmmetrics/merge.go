package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// planFacts are the parts of a run header that say which plan a file
// followed: the shares of one plan that several machines sent agree on
// them. When every header carries a plan id (load "plan"), the id decides
// instead, and the load may differ by share.
func planFacts(h *llmmetrics.RunHeader) map[string]string {
	f := map[string]string{"model": h.Model, "api": h.API, "target": h.Target}
	for k, v := range h.Load {
		if !strings.HasPrefix(k, "scrape_") && k != unsentKey && k != endedWithoutFinishKey && k != promptSaltKey { // facts of the run's end, or its prompts' text, not of its plan
			f["load "+k] = v
		}
	}
	return f
}

// wallWindow is a file's window on the wall clock: from its first send to
// its last text chunk (or last send, where no request ended in text).
type wallWindow struct {
	name     string
	from, to time.Time
}

// checkMerge checks that the files come from one plan and that their
// windows overlap, and returns the warnings to print with the merged
// report. Each file has a header with its start (MergeRuns checked).
func checkMerge(runs []namedRun) ([]string, error) {
	for i, r := range runs {
		for _, o := range runs[:i] {
			if samePath(o.name, r.name) {
				return nil, valueError(fmt.Sprintf("--merge: %s is given twice", r.name))
			}
		}
	}
	if err := checkShards(runs); err != nil { // a shard's copy is that shard twice
		return nil, err
	}
	if err := sameRunTwice(runs); err != nil { // mergesame.go
		return nil, err
	}
	if err := apartUnsent(runs); err != nil {
		return nil, err
	}
	var plans []string
	for _, r := range runs {
		plans = append(plans, r.run.Header.Load["plan"])
	}
	if !slices.Contains(plans, "") {
		for i, p := range plans {
			if p != plans[0] {
				return nil, valueError(fmt.Sprintf("--merge: %s follows plan %s and %s plan %s: they are not one run", runs[0].name, plans[0], runs[i].name, p))
			}
		}
	} else {
		first := planFacts(runs[0].run.Header)
		for _, r := range runs[1:] {
			other := planFacts(r.run.Header)
			var diffs []string
			keys := slices.Sorted(maps.Keys(first))
			for _, k := range slices.Sorted(maps.Keys(other)) {
				if _, ok := first[k]; !ok {
					keys = append(keys, k)
				}
			}
			for _, k := range keys {
				if first[k] != other[k] {
					diffs = append(diffs, fmt.Sprintf("%s %q and %q", k, first[k], other[k]))
				}
			}
			if len(diffs) > 0 {
				return nil, valueError(fmt.Sprintf("--merge: %s and %s differ in %s: they are not one plan sent by several machines; compare them with diff, or report each", runs[0].name, r.name, strings.Join(diffs, ", ")))
			}
		}
	}
	var ws []wallWindow
	var sent []namedRun // the files with a record
	for _, r := range runs {
		w, ok := windowOf(r)
		if !ok {
			if r.completeness() != nil {
				// It says how it ended: an empty share (shard.go), or one
				// stopped or cut before its first record, which the merged
				// run's completeness names.
				continue
			}
			return nil, valueError(fmt.Sprintf("--merge: %s has no record", r.name))
		}
		ws = append(ws, w)
		sent = append(sent, r)
	}
	if len(ws) == 0 {
		return nil, valueError(fmt.Sprintf("--merge: no file holds a record: %s sent nothing", strings.Join(names(runs), ", ")))
	}
	if slices.ContainsFunc(runs, func(r namedRun) bool { return r.run.NoSendTimes }) {
		// Without send times no window overlaps or starts, and the
		// summary says its window is absent; runs that disagree are
		// refused by the merge itself.
		return nil, nil
	}
	slices.SortFunc(ws, func(a, b wallWindow) int { return a.from.Compare(b.from) })
	end := ws[0]
	for _, w := range ws[1:] {
		if w.from.After(end.to) {
			return nil, valueError(fmt.Sprintf("--merge: the files' windows do not overlap: %s ends at %s and %s starts %v later; they are separate runs, so report each, or compare them with diff",
				end.name, end.to.Format(time.RFC3339Nano), w.name, w.from.Sub(end.to)))
		}
		if w.to.After(end.to) {
			end = w
		}
	}
	var warnings []string
	first, last := loadStart(sent[0]), loadStart(sent[0])
	for _, r := range sent {
		first = minTime(first, loadStart(r))
		last = maxTime(last, loadStart(r))
	}
	if length := end.to.Sub(ws[0].from); length > 0 && last.Sub(first) > length/100 {
		warnings = append(warnings, fmt.Sprintf("WARNING: the files' starts differ by %v, more than 1%% of the merged window (%v): the machines did not start together, and the window's ends include the difference.", last.Sub(first), length))
	}
	return warnings, nil
}

// names are the files' names.
func names(runs []namedRun) []string {
	var ns []string
	for _, r := range runs {
		ns = append(ns, r.name)
	}
	return ns
}

// checkShards checks that files written by run --shard are every shard
// of one plan, each once, and refuses a shard beside a file that is none.
// Files that are no shards pass.
func checkShards(runs []namedRun) error {
	type shardOf struct {
		i, n int
		name string
	}
	var shards []shardOf
	var plain []string
	for _, r := range runs {
		v := r.run.Header.Load["shard"]
		if v == "" {
			plain = append(plain, r.name)
			continue
		}
		i, n, ok := parseShard(v)
		if !ok {
			return valueError(fmt.Sprintf("--merge: %s says it is shard %q: want i/N with 1 ≤ i ≤ N", r.name, v))
		}
		shards = append(shards, shardOf{i, n, r.name})
	}
	switch {
	case len(shards) == 0:
		return nil
	case len(plain) > 0:
		return valueError(fmt.Sprintf("--merge: %s is shard %d/%d but %s was written without --shard: they are not one plan's shares", shards[0].name, shards[0].i, shards[0].n, plain[0]))
	}
	first := shards[0]
	for _, s := range shards[1:] {
		if s.n != first.n {
			return valueError(fmt.Sprintf("--merge: %s is shard %d/%d but %s is %d/%d: they are shares of different plans", first.name, first.i, first.n, s.name, s.i, s.n))
		}
	}
	seen := make([]string, first.n+1)
	for _, s := range shards {
		if seen[s.i] != "" {
			return valueError(fmt.Sprintf("--merge: shard %d/%d appears twice: %s and %s", s.i, s.n, seen[s.i], s.name))
		}
		seen[s.i] = s.name
	}
	var missing []string
	for i := 1; i <= first.n; i++ {
		if seen[i] == "" {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.n))
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return valueError(fmt.Sprintf("--merge: shard %s is missing: the merge of a plan needs every shard's file%s", missing[0], partialShards(runs, missing)))
	}
	return valueError(fmt.Sprintf("--merge: shards %s and %s are missing: the merge of a plan needs every shard's file%s", strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1], partialShards(runs, missing)))
}

// windowOf returns a file's window on the wall clock.
func windowOf(r namedRun) (wallWindow, bool) {
	if f := r.file; f != nil {
		start := r.run.Header.Start
		return wallWindow{name: r.name, from: start.Add(f.First), to: start.Add(f.Last)}, f.Records > 0
	}
	recs := r.run.Records
	if len(recs) == 0 {
		return wallWindow{}, false
	}
	lo, hi := recs[0].Sent, recs[0].Sent
	for i := range recs {
		rec := &recs[i]
		lo, hi = min(lo, rec.Sent), max(hi, rec.Sent)
		if rec.Status == llmmetrics.StatusOK && rec.CompletionTokens > 0 {
			if e2e, err := rec.E2E(); err == nil {
				hi = max(hi, rec.Sent+e2e)
			}
		}
	}
	start := r.run.Header.Start
	return wallWindow{name: r.name, from: start.Add(lo), to: start.Add(hi)}, true
}

// loadStart is when a file's load began on the wall clock: its first send
// after its preflight requests, the instant --start-at sets, or else its
// header's start. The header's start is the process's, before its test
// request: in a Kubernetes Job the pods' differ by seconds.
func loadStart(r namedRun) time.Time {
	first := time.Duration(-1)
	if r.file != nil {
		first = r.file.LoadFirst
	}
	for i := range r.run.Records {
		if rec := &r.run.Records[i]; !rec.Preflight && (first < 0 || rec.Sent < first) {
			first = rec.Sent
		}
	}
	if first < 0 {
		return r.run.Header.Start
	}
	return r.run.Header.Start.Add(first)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// shardLoads are the load keys a shard holds its share of, which add up
// over the shards to the plan's.
var shardLoads = []string{"concurrency", "requests", "rate_per_s", "max_in_flight"}

// mergeShards gives a merged run of shards (every header with a "shard"
// key, written by run --shard) the load of the whole plan: each share
// summed over the files, the shard key replaced by the number of shards.
// It does nothing for other files.
func mergeShards(merged *llmmetrics.Run, runs []namedRun) {
	for _, r := range runs {
		if r.run.Header.Load["shard"] == "" {
			return
		}
	}
	load := merged.Header.Load
	for _, k := range shardLoads {
		if load[k] == "" {
			continue
		}
		var sum float64
		for _, r := range runs {
			v, err := strconv.ParseFloat(r.run.Header.Load[k], 64)
			if err != nil {
				return // not a number: leave the first file's load as it is
			}
			sum += v
		}
		load[k] = strconv.FormatFloat(sum, 'g', -1, 64)
	}
	delete(load, "shard")
	load["shards"] = strconv.Itoa(len(runs))
}

// label names a file in the merged report's completeness: by its name,
// and its shard when it is one.
func label(r namedRun) string {
	if v := r.run.Header.Load["shard"]; v != "" {
		return fmt.Sprintf("%s (shard %s)", r.name, v)
	}
	return r.name
}

// nameInterrupted names the files that were interrupted in a merged
// run's end line (which MergeRuns gives by position), so that the report
// says which machine's share stopped early and why.
func nameInterrupted(merged *llmmetrics.Run, runs []namedRun) {
	e := merged.End
	if e == nil || e.State != "interrupted" {
		return
	}
	var by []string
	for _, r := range runs {
		if re := r.run.End; re != nil && re.State == "interrupted" {
			by = append(by, fmt.Sprintf("%s in %s", re.By, label(r)))
		}
	}
	e.By = strings.Join(by, "; ")
}

// nameTruncated names, in a merged run's completeness, the files that
// were cut or lack the end line their header promised: the merged run is
// truncated because they are, and each says why.
func nameTruncated(c *llmmetrics.Completeness, runs []namedRun) {
	if c == nil || c.State != "truncated" {
		return
	}
	var whys []string
	for _, r := range runs {
		if rc := r.completeness(); rc != nil && rc.State == "truncated" {
			whys = append(whys, label(r)+": "+strings.TrimPrefix(rc.Reason, "TRUNCATED: "))
		}
	}
	if len(whys) > 0 {
		c.Reason = "TRUNCATED: " + strings.Join(whys, "; and ")
	}
}

// completeness is what the file's header, end line and cut say of it.
func (r namedRun) completeness() *llmmetrics.Completeness {
	if r.file != nil {
		return r.file.Completeness
	}
	return r.run.Completeness()
}

// sendTimesDisagree refuses the files of a merge that disagree on having
// send times, naming the files of each side: without are the positions
// of those that have none.
func sendTimesDisagree(files []string, without []int) error {
	none, some := split(files, without)
	return fmt.Errorf("--merge: %s no send times and %s: a merge keeps every file's send times or none; report each file on its own, or merge those that agree",
		filesHave(none), filesHave(some))
}

// needStarts refuses, naming them, the files of a merge with send times
// that have no run header with its start: their sends cannot be put on
// one clock with the others'. without are their positions.
func needStarts(files []string, without []int) error {
	none, _ := split(files, without)
	return fmt.Errorf("--merge: %s no run header with a start time, and the files have send times: without a start they cannot be put on one clock; report each file on its own, or merge the files llmmetrics run wrote, whose headers have it",
		filesHave(none))
}

// split returns the files at the positions in, and the others.
func split(files []string, in []int) (chosen, others []string) {
	for i, name := range files {
		if slices.Contains(in, i) {
			chosen = append(chosen, name)
		} else {
			others = append(others, name)
		}
	}
	return chosen, others
}

// filesHave is "a.jsonl has" or "a.jsonl, b.jsonl have".
func filesHave(names []string) string {
	if len(names) == 1 {
		return names[0] + " has"
	}
	return strings.Join(names, ", ") + " have"
}

// startless returns the positions of the runs without a header with its
// start time.
func startless(runs []*llmmetrics.Run) []int {
	var without []int
	for i, r := range runs {
		if r.Header == nil || r.Header.Start.IsZero() {
			without = append(without, i)
		}
	}
	return without
}

// withStarts returns runs for llmmetrics.MergeRuns, which aligns runs by
// their headers' starts: those at the positions without, which have none,
// are given a copy of their header (or an empty one) at the earliest start
// of the others, or at the Unix epoch. Only runs without send times are so
// given one (see needStarts): they have no send to move, and the start
// given is dropped after the merge (see unaligned).
func withStarts(runs []*llmmetrics.Run, without []int) []*llmmetrics.Run {
	if len(without) == 0 {
		return runs
	}
	start := time.Unix(0, 0).UTC()
	if len(without) < len(runs) {
		start = time.Time{}
		for _, r := range runs {
			if h := r.Header; h != nil && !h.Start.IsZero() && (start.IsZero() || h.Start.Before(start)) {
				start = h.Start
			}
		}
	}
	out := slices.Clone(runs)
	for _, i := range without {
		c := *runs[i]
		h := llmmetrics.RunHeader{}
		if runs[i].Header != nil {
			h = *runs[i].Header
		}
		h.Start = start
		c.Header = &h
		out[i] = &c
	}
	return out
}

// noAlignment is the merged load's clock_alignment when the files have no
// send times.
const noAlignment = "none: the files have no send times, so their records are pooled and no window spans them"

// unaligned amends the merge of runs without send times, whose positions
// without have no start: its load says nothing was aligned; its start is
// dropped when no run had one, and its header when no run had one and
// none promised an end line.
func unaligned(merged *llmmetrics.Run, runs []*llmmetrics.Run, without []int) {
	h := merged.Header
	if h == nil || !runs[0].NoSendTimes { // as every run (sendTimesDisagree)
		return
	}
	h.Load["clock_alignment"] = noAlignment
	if len(without) < len(runs) {
		return
	}
	h.Start = time.Time{}
	if !h.Ends && !slices.ContainsFunc(runs, func(r *llmmetrics.Run) bool { return r.Header != nil }) {
		merged.Header = nil
	}
}

// noSendTimes returns the positions of the runs without send times.
func noSendTimes(runs []*llmmetrics.Run) []int {
	var without []int
	for i, r := range runs {
		if r.NoSendTimes {
			without = append(without, i)
		}
	}
	return without
}
