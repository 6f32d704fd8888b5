package drive

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
	"github.com/llmmetrics/llmmetrics/observe"
)

// A Search looks for the highest load level at which an SLO's attainment
// goal holds, in DistServe's framing (the largest rate, or concurrency, at
// which at least Target of the requests meet the SLO). Each probe is one
// run of the plan at one level. The search doubles the level from From
// until a probe misses the target (or Max passes), then bisects between
// the last level that met it and the first that did not, and stops when
// the bracket is narrow — (failing − passing)/passing ≤ Width, or adjacent
// whole concurrencies — or after MaxProbes probes. Then it runs each end of
// the bracket until it has Repeats runs there and reads the bracket from
// their median attainment, so one noisy probe cannot place it.
type Search struct {
	Kind      string  // "concurrency" or "rate"
	From      float64 // the first level; 0: 1
	Max       float64 // the highest level probed; 0: 1024
	Target    float64 // the attainment goal; 0: 0.9
	SLO       llmmetrics.SLO
	Repeats   int     // runs at each end of the bracket; 0: 3
	Width     float64 // the relative bracket width to stop at; 0: 0.05
	MaxProbes int     // probes before the repeats; 0: 12

	// Run runs one probe; nil: the package's Run. A caller wraps Run to
	// write each probe's records as they come (Plan.OnResult).
	Run func(context.Context, Plan) (*Outcome, error)
}

// A Probe is one run of a search at one level.
type Probe struct {
	Level      float64
	Attainment float64
	// Upper is the most Attainment can be: were the requests it leaves
	// unjudged against a TPOT limit all good (Goodput.Unjudged); Attainment
	// itself where there are none.
	Upper   float64
	Pass    bool // Attainment ≥ Target
	Repeat  bool // a repeat at an end of the bracket
	Outcome *Outcome
}

// A SearchOutcome is a finished search: every probe in the order run, and
// the bracket read from the median attainment at each end (nil where the
// search found no such level).
type SearchOutcome struct {
	Probes           []Probe
	Passing, Failing *float64
	Reason           string
	Interrupted      bool
}

// Results returns every request of every probe, in order.
func (o *SearchOutcome) Results() []*observe.Result {
	var out []*observe.Result
	for _, p := range o.Probes {
		out = append(out, p.Outcome.Results...)
	}
	return out
}

func (s *Search) defaults() error {
	if s.From == 0 {
		s.From = 1
	}
	if s.Max == 0 {
		s.Max = 1024
	}
	if s.Target == 0 {
		s.Target = 0.9
	}
	if s.Repeats == 0 {
		s.Repeats = 3
	}
	if s.Width == 0 {
		s.Width = 0.05
	}
	if s.MaxProbes == 0 {
		s.MaxProbes = 12
	}
	switch {
	case s.Kind != "concurrency" && s.Kind != "rate":
		return fmt.Errorf("drive: search %q: want concurrency or rate", s.Kind)
	case !(s.From > 0) || !(s.Max >= s.From) || math.IsInf(s.Max, 0):
		return fmt.Errorf("drive: search from %v to %v", s.From, s.Max)
	case !(s.Target > 0 && s.Target <= 1):
		return fmt.Errorf("drive: attainment target %v: want a fraction in (0, 1]", s.Target)
	case s.SLO == (llmmetrics.SLO{}):
		return errors.New("drive: a search needs an SLO with at least one limit")
	case s.Repeats < 1 || !(s.Width > 0) || s.MaxProbes < 2:
		return errors.New("drive: a search needs repeats ≥ 1, a positive width and at least 2 probes")
	case s.Kind == "concurrency" && (s.From != math.Trunc(s.From) || s.Max != math.Trunc(s.Max)):
		return errors.New("drive: a concurrency search runs whole concurrencies")
	}
	return nil
}

// ErrNoVerdict is the error of a search stopped by a probe whose
// attainment cannot be judged: no goodput, or only a lower bound whose
// upper bound meets the target.
var ErrNoVerdict = errors.New("drive: no verdict")

// SearchCapacity runs the search with plan p at each level (its
// Concurrency or its Rate set to the level; an open loop keeps p's
// Concurrency as its cap). It returns an error for a search or plan it
// cannot run, and one wrapping ErrNoVerdict, with the probes before it,
// for a probe that gives no verdict; when ctx ends it stops after the
// probe in flight and reports what it has.
func SearchCapacity(ctx context.Context, p Plan, s Search) (*SearchOutcome, error) {
	if err := s.defaults(); err != nil {
		return nil, err
	}
	out := &SearchOutcome{}
	probe := func(level float64, repeat bool) (bool, error) {
		q := p
		if s.Kind == "concurrency" {
			q.Concurrency, q.Rate = int(level), 0
		} else {
			q.Rate = level
		}
		runPlan := s.Run
		if runPlan == nil {
			runPlan = Run
		}
		o, err := runPlan(ctx, q)
		if err != nil {
			return false, err
		}
		run := observe.Run(o.Results)
		sum, err := run.Summarize(llmmetrics.Options{SLO: &s.SLO, Lenient: true})
		if err != nil {
			return false, fmt.Errorf("drive: probe at %s %g: %w", s.Kind, level, err)
		}
		if sum.Goodput == nil {
			return false, fmt.Errorf("%w: probe at %s %g: %s", ErrNoVerdict, s.Kind, level, sum.Absent["goodput"])
		}
		g := sum.Goodput
		pr := Probe{Level: level, Attainment: g.Attainment, Upper: g.AttainmentUpper(), Repeat: repeat, Outcome: o}
		pr.Pass = pr.Attainment >= s.Target
		// An attainment with unjudged requests is a lower bound, at most
		// what it would be were they all good: a miss only below that.
		if !pr.Pass && pr.Upper >= s.Target {
			return false, fmt.Errorf("%w: probe at %s %g: its attainment, between %.4g and %.4g, may meet the target %g or not: %d ok requests without a usable token count met every limit but TPOT, which they leave unjudged (a server that sends no usage: leave tpot out of the SLO, or have it send usage)",
				ErrNoVerdict, s.Kind, level, g.Attainment, pr.Upper, s.Target, g.Unjudged)
		}
		out.Probes = append(out.Probes, pr)
		out.Interrupted = o.Interrupted
		return pr.Pass, nil
	}
	// Double until a probe misses the target.
	lo, hi := math.NaN(), math.NaN()
	for level := s.From; ; level = min(2*level, s.Max) {
		pass, err := probe(level, false)
		if err != nil || out.Interrupted {
			return out, err
		}
		if !pass {
			hi = level
			break
		}
		lo = level
		if level == s.Max {
			break
		}
	}
	// Bisect.
	for !math.IsNaN(lo) && !math.IsNaN(hi) && len(out.Probes) < s.MaxProbes && (hi-lo)/lo > s.Width {
		mid := (lo + hi) / 2
		if s.Kind == "concurrency" {
			mid = math.Floor(mid)
			if mid <= lo {
				break // adjacent whole concurrencies
			}
		}
		pass, err := probe(mid, false)
		if err != nil || out.Interrupted {
			return out, err
		}
		if pass {
			lo = mid
		} else {
			hi = mid
		}
	}
	// Repeat each end of the bracket and read it from the medians.
	for _, level := range []float64{lo, hi} {
		for !math.IsNaN(level) && out.runsAt(level) < s.Repeats {
			if _, err := probe(level, true); err != nil || out.Interrupted {
				return out, err
			}
		}
	}
	out.bracket(s, lo, hi)
	return out, nil
}

func (o *SearchOutcome) runsAt(level float64) int {
	n := 0
	for _, p := range o.Probes {
		if p.Level == level {
			n++
		}
	}
	return n
}

// MedianAttainment returns the median attainment of the probes at level,
// and how many there were.
func (o *SearchOutcome) MedianAttainment(level float64) (float64, int) {
	var xs []float64
	for _, p := range o.Probes {
		if p.Level == level {
			xs = append(xs, p.Attainment)
		}
	}
	if len(xs) == 0 {
		return math.NaN(), 0
	}
	sp, _ := compare.MedianMAD(xs)
	return sp.Median, len(xs)
}

// bracket reads the bracket from the median attainment at each end.
func (o *SearchOutcome) bracket(s Search, lo, hi float64) {
	frame := fmt.Sprintf("DistServe's framing: the highest %s at which at least %.10g%% of requests meet SLO %s", s.Kind, 100*s.Target, s.SLO)
	mlo, nlo := o.MedianAttainment(lo)
	mhi, nhi := o.MedianAttainment(hi)
	switch {
	case math.IsNaN(lo):
		o.Failing = &hi
		o.Reason = fmt.Sprintf("the first level, %s %g, misses the target (median attainment %.4g over %d runs): the capacity is below it (%s)", s.Kind, hi, mhi, nhi, frame)
		return
	case math.IsNaN(hi):
		o.Passing = &lo
		o.Reason = fmt.Sprintf("every level up to the highest allowed, %s %g, meets the target (median attainment %.4g over %d runs): the capacity is at least that, not extrapolated (%s)", s.Kind, lo, mlo, nlo, frame)
		return
	}
	passOK, failOK := mlo >= s.Target, mhi < s.Target
	if passOK {
		o.Passing = &lo
	}
	if failOK {
		o.Failing = &hi
	}
	o.Reason = fmt.Sprintf("the capacity lies between %s %g (median attainment %.4g over %d runs) and %g (%.4g over %d runs) (%s)",
		s.Kind, lo, mlo, nlo, hi, mhi, nhi, frame)
	if !passOK || !failOK {
		o.Reason += "; the repeats did not confirm the bracket the single probes found: the attainment near it is noisy, so run more repeats or longer probes"
	}
}
