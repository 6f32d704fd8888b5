package llmmetrics

import (
	"fmt"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/plural"
	"github.com/llmmetrics/llmmetrics/internal/warmup"
)

// A WarmupRule decides from the records themselves where a run's steady
// state begins, rather than by a fixed count. LessonsWarmup is the
// specification's rule, which it calls an illustrative heuristic, not a validated
// standard; its parameters are exposed so that a run can state, and vary,
// the rule it used.
//
// The rule reads the ok requests with two or more output tokens in send
// order, in consecutive windows of Window requests, and takes each window's
// median TTFT and median TPOT. Steady state begins with the first window
// after which Windows consecutive windows each change both medians by less
// than Tolerance (relative) from the window before: with the
// specification's values, the medians of 10 requests move by under 2 % three times in a
// row.
type WarmupRule struct {
	Window    int     // requests per window
	Tolerance float64 // relative change of a median that counts as stable
	Windows   int     // consecutive stable changes required
}

// A WarmupCut is where a WarmupRule put the end of warm-up.
type WarmupCut struct {
	// Steady is false when the records never settled by the rule.
	Steady bool
	// Start is the send time of the first record of steady state: records
	// sent before it are warm-up. With Steady false it is after every
	// record.
	Start time.Duration
	// Reason says why, in a sentence for people.
	Reason string
	// keepAll is set by WarmupSpec.Cut when its rule found no steady
	// state: Apply then sets nothing aside, rather than every record.
	keepAll bool
}

// Detect applies the rule to recs (in any order; they are taken in send
// order). It returns an error for a rule with a parameter out of range.
func (rule WarmupRule) Detect(recs []Record) (WarmupCut, error) {
	if rule.Window < 1 || rule.Windows < 1 || !(rule.Tolerance > 0) {
		return WarmupCut{}, fmt.Errorf("%w: warm-up rule %+v", ErrInvalidWindow, rule)
	}
	var ss []warmup.Sample
	last := time.Duration(-1 << 63)
	for i := range recs {
		r := &recs[i]
		last = max(last, r.Sent)
		if r.Warmup || r.validateOrdered(false) != nil || r.Category() != CategoryOK || !hasTPOT(r) {
			continue
		}
		ss = append(ss, warmup.Sample{Sent: r.Sent, TTFT: ttft(r), TPOT: tpot(r)})
	}
	start, n, steady := warmup.Steady(ss, rule.Window, rule.Windows, rule.Tolerance)
	if steady {
		return WarmupCut{Steady: true, Start: ss[start*rule.Window].Sent,
			Reason: fmt.Sprintf("the median TTFT and TPOT of windows %d to %d of %d requests each changed by less than %g%% (the specification's illustrative rule)",
				start+1, start+rule.Windows+1, rule.Window, 100*rule.Tolerance)}, nil
	}
	return WarmupCut{Start: last + 1, Reason: fmt.Sprintf("never steady: no %d consecutive windows of %d requests changed their medians by less than %g%% (%d windows read)",
		rule.Windows+1, rule.Window, 100*rule.Tolerance, n)}, nil
}

// A WarmupSpec says which records of a run are warm-up, besides those its
// records already mark: the first Requests in send order, those sent
// within Duration of the first send, or those before the steady state that
// Rule detects. Exactly one is set.
type WarmupSpec struct {
	Requests int
	Duration time.Duration
	Rule     *WarmupRule
}

// Cut applies the spec to recs (in any order) and returns where warm-up
// ends. When its rule finds no steady state, the cut sets nothing aside
// (its Apply marks no record): the figures then include any warm-up, and
// its Reason says why. It returns an error for a spec with none or several
// of its fields set, or a negative one.
func (w WarmupSpec) Cut(recs []Record) (WarmupCut, error) {
	count, span, rule := w.Requests != 0, w.Duration != 0, w.Rule != nil
	if (count != span) == rule || count && span || w.Requests < 0 || w.Duration < 0 { // not exactly one set, or negative
		return WarmupCut{}, fmt.Errorf("%w: warm-up %+v: give one of a count, a duration or a rule", ErrInvalidOption, w)
	}
	if w.Rule != nil {
		cut, err := w.Rule.Detect(recs)
		cut.keepAll = err == nil && !cut.Steady
		return cut, err
	}
	sent := make([]time.Duration, 0, len(recs))
	for i := range recs {
		if !recs[i].Warmup {
			sent = append(sent, recs[i].Sent)
		}
	}
	slices.Sort(sent)
	if len(sent) == 0 {
		return WarmupCut{Steady: true, Reason: "no record to cut"}, nil
	}
	after := "" // the records the input marked warm-up already come first
	if marked := len(recs) - len(sent); marked > 0 {
		pre := 0
		for i := range recs {
			if recs[i].Preflight {
				pre++
			}
		}
		switch {
		case pre == 0:
			after = fmt.Sprintf(", after the %s the input marks warm-up", plural.Of(marked, "request"))
		case pre == marked:
			after = fmt.Sprintf(", after the %s the input marks preflight", plural.Of(marked, "request"))
		default:
			after = fmt.Sprintf(", after the %d warm-up and %s the input marks", marked-pre, plural.Of(pre, "preflight request"))
		}
	}
	if w.Requests > 0 {
		if w.Requests >= len(sent) {
			return WarmupCut{Start: sent[len(sent)-1] + 1, Reason: fmt.Sprintf("the first %s, which is all %d of them%s", plural.Of(w.Requests, "request"), len(sent), after)}, nil
		}
		// Ties at the boundary stay measured: a cut is a send time.
		start := sent[w.Requests]
		n, _ := slices.BinarySearch(sent, start)
		reason := fmt.Sprintf("the first %s in send order%s", plural.Of(n, "request"), after)
		if n != w.Requests {
			reason += fmt.Sprintf(" (%d asked: a cut is a send time, and a request sent at the same instant as the first one measured is measured too)", w.Requests)
		}
		return WarmupCut{Steady: true, Start: start, Reason: reason}, nil
	}
	start := sent[0] + w.Duration
	n, _ := slices.BinarySearch(sent, start)
	return WarmupCut{Steady: n < len(sent), Start: start, Reason: fmt.Sprintf("the %d requests sent within %v of the first", n, w.Duration)}, nil
}

// Apply returns a copy of recs in which every record sent before the cut's
// Start is marked warm-up; recs is not modified, and the copy shares the
// records' chunk arrivals. Every record is kept: a warm-up record is
// counted in its own category, never dropped.
func (c WarmupCut) Apply(recs []Record) []Record {
	out := slices.Clone(recs)
	if c.keepAll {
		return out
	}
	for i := range out {
		if out[i].Sent < c.Start {
			out[i].Warmup = true
		}
	}
	return out
}

// mark applies the spec to recs: it returns recs with the cut applied (a
// copy) and the cut; recs as they are for no spec.
func (w *WarmupSpec) mark(recs []Record) ([]Record, *WarmupCut, error) {
	if w == nil {
		return recs, nil, nil
	}
	cut, err := w.Cut(recs)
	if err != nil {
		return nil, nil, err
	}
	return cut.Apply(recs), &cut, nil
}
