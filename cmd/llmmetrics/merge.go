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
		if !strings.HasPrefix(k, "scrape_") && k != unsentKey { // facts of the run's end, not of its plan
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
	for _, r := range runs {
		w, ok := windowOf(r)
		if !ok {
			return nil, valueError(fmt.Sprintf("--merge: %s has no record", r.name))
		}
		ws = append(ws, w)
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
	first, last := runs[0].run.Header.Start, runs[0].run.Header.Start
	for _, r := range runs {
		first = minTime(first, r.run.Header.Start)
		last = maxTime(last, r.run.Header.Start)
	}
	if length := end.to.Sub(ws[0].from); length > 0 && last.Sub(first) > length/100 {
		warnings = append(warnings, fmt.Sprintf("WARNING: the files' starts differ by %v, more than 1%% of the merged window (%v): the machines did not start together, and the window's ends include the difference.", last.Sub(first), length))
	}
	return warnings, nil
}

// windowOf returns a file's window on the wall clock.
func windowOf(r namedRun) (wallWindow, bool) {
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
