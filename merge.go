package llmmetrics

import (
	"fmt"
	"time"
)

// MergeRuns merges runs of one load taken by several machines, each file
// with its run header: every record's send time (and schedule) is moved
// onto the clock of the earliest start, by the difference of the headers'
// wall-clock starts, and each id is prefixed with its file's position
// ("2/r17") so that ids stay unique. The machines' clocks were never
// compared: their offset, typically milliseconds under NTP, is unknown, and
// a window or rate that spans files carries it; the merged header says so
// in its Load. The inputs are not modified.
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
		if start.IsZero() || r.Header.Start.Before(start) {
			start = r.Header.Start
		}
	}
	h := *runs[0].Header
	h.Start = start
	h.Load = map[string]string{}
	for k, v := range runs[0].Header.Load {
		h.Load[k] = v
	}
	h.Load["merged_files"] = fmt.Sprint(len(runs))
	h.Load["clock_alignment"] = "by each file's wall-clock start; the machines' clock offset is unknown (typically milliseconds under NTP) and spans any window across files"
	out := &Run{Header: &h}
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
	if len(out.Lines) != len(out.Records) {
		out.Lines = nil // lines name one file's rows; ids name the file
	}
	return out, nil
}
