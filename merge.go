package llmmetrics

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// MergeRuns merges runs of one load taken by several machines, each file
// with its run header: every record's send time (and schedule) is moved
// onto the clock of the earliest start, by the difference of the headers'
// wall-clock starts, and each id is prefixed with its file's position
// ("2/r17") so that ids stay unique. The machines' clocks were never
// compared: their offset, typically milliseconds under NTP, is unknown, and
// a window or rate that spans files carries it; the merged header says so
// in its Load.
//
// The merged run has an end line (Run.End) when every run's file has a
// whole one: completed when every run completed, and otherwise
// interrupted, By saying what interrupted which run ("SIGINT in run 2");
// its counts are the runs' added up, its planned count absent when one
// run's is. When a run's file promised an end line it lacks, or is cut
// (see Run.Completeness), the merged run has none and reads as truncated:
// a run that stopped early is never hidden by the others. Runs must agree
// on having send times. The inputs are not modified.
func MergeRuns(runs []*Run) (*Run, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: no runs", ErrMerge)
	}
	if len(runs) == 1 {
		return runs[0], nil
	}
	start := time.Time{}
	for i, r := range runs {
		if r.Header == nil || r.Header.Start.IsZero() {
			return nil, fmt.Errorf("%w: run %d has no header with its start time, so it cannot be aligned with the others", ErrMerge, i+1)
		}
		if r.NoSendTimes != runs[0].NoSendTimes {
			return nil, fmt.Errorf("%w: runs 1 and %d disagree on send times, one has none: a merge keeps every run's or none", ErrMerge, i+1)
		}
		if start.IsZero() || r.Header.Start.Before(start) {
			start = r.Header.Start
		}
	}
	h := *runs[0].Header
	h.Start, h.ID = start, "" // the merge is none of its runs
	h.Load = map[string]string{}
	maps.Copy(h.Load, runs[0].Header.Load)
	h.Load["merged_files"] = fmt.Sprint(len(runs))
	h.Load["clock_alignment"] = "by each file's wall-clock start; the machines' clock offset is unknown (typically milliseconds under NTP) and spans any window across files"
	out := &Run{Header: &h, NoSendTimes: runs[0].NoSendTimes}
	for i, r := range runs {
		shift := r.Header.Start.Sub(start)
		for k, rec := range r.Records {
			rec.ID = fmt.Sprintf("%d/%s", i+1, rec.ID)
			rec.Sent += shift
			if c := rec.Client; c != nil {
				cc := *c
				if cc.HasSchedule {
					cc.Scheduled += shift
				}
				rec.Client = &cc
			}
			out.Records = append(out.Records, rec)
			if k < len(r.Lines) {
				out.Lines = append(out.Lines, r.Lines[k])
			}
		}
		for _, e := range r.Rejected {
			ee := *e
			if ee.ID != "" {
				ee.ID = fmt.Sprintf("%d/%s", i+1, ee.ID)
			}
			out.Reject(&ee)
		}
		out.Unlisted += r.Unlisted
	}
	out.End, h.Ends = mergeEnds(runs)
	if len(out.Lines) != len(out.Records) {
		out.Lines = nil // lines name one file's rows; ids name the file
	}
	return out, nil
}

// mergeEnds returns the end line of runs merged, and whether the merged
// run promises one: none, and no promise, when a run's file neither has
// nor promises one (how it ended is not known); none, but a promise, when
// a run's file is truncated; otherwise the runs' ends added up.
func mergeEnds(runs []*Run) (*RunEnd, bool) {
	end := &RunEnd{State: "completed"}
	var by []string
	truncated := false
	for i, r := range runs {
		c := r.Completeness()
		if c == nil {
			return nil, false
		}
		if c.State == "truncated" {
			truncated = true // the other runs are still looked at for one without an end
			continue
		}
		e := r.End
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
