package compare

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/inflight"
)

// A LevelRun is one run of a sweep, taken at one load level: a
// concurrency or an arrival rate (requests a second).
type LevelRun struct {
	Kind  string          // "concurrency" or "rate"
	Level float64         // the concurrency, or the rate in requests a second
	Name  string          // where the run came from, for messages
	Run   *llmmetrics.Run // the run's records; nil for a run known by a tool's summary alone
	// Figures are figures of the run that its records do not give, by the
	// names a sweep uses ("ttft p99" in ms, "server ttft p50",
	// "output_tokens_per_s", …): another tool's summary of a run whose
	// requests it did not keep, or the server's figures for it. They are
	// taken as given; where the records give a figure too, the records'
	// value is used.
	Figures map[string]float64
}

// LevelOf reads a run's level from its header's load (as llmmetrics run
// writes it: concurrency for a closed loop, rate_per_s for an open one).
// ok is false when the run has no header or the header no level.
func LevelOf(run *llmmetrics.Run) (kind string, level float64, ok bool) {
	if run == nil || run.Header == nil {
		return "", 0, false
	}
	l := run.Header.Load
	if v, err := strconv.ParseFloat(l["rate_per_s"], 64); err == nil && l["loop"] == "open" {
		return "rate", v, true
	}
	if v, err := strconv.ParseFloat(l["concurrency"], 64); err == nil {
		return "concurrency", v, true
	}
	return "", 0, false
}

// A Sweep is a set of runs grouped by level, each figure given per level
// as median ± MAD across the level's repeats (the specification's seed 000, §4.5): every
// percentile is computed per run over that run's requests, and the sweep
// reports the median of those per-run percentiles — a different figure
// from the percentile of the pooled requests, and named so ("median of
// per-run p99").
type Sweep struct {
	Kind     string // "concurrency" or "rate"
	Levels   []SweepLevel
	Warnings []string
	// Env is the environment every run's header agrees on; EnvDiffers
	// names the keys on which runs disagree, and EnvMissing counts the
	// runs without a recorded environment.
	Env        map[string]string
	EnvDiffers []string
	EnvMissing int
	// SLO is the SLO attainment was judged against, when one was set.
	SLO *llmmetrics.SLO
}

// A SweepLevel is one level of a sweep: its repeats, and each figure as
// median ± MAD across them.
type SweepLevel struct {
	Level   float64
	Runs    int
	Names   []string
	Figures []SweepFigure
	// Summaries are the summaries of its runs, in Names' order, nil for a
	// run known by figures alone (LevelRun.Run nil): their Requests count
	// the records each run set aside as invalid, which WriteTable and
	// MarshalJSON say.
	Summaries []*llmmetrics.Summary
	// Absent says why a figure of its runs is absent, the first run's
	// reason where several give one: their summaries' (Summary.Absent),
	// and those of the sweep's rows whose reason no summary key already
	// says ("user_tps p50"), so that a row the level lacks has its
	// reason here.
	Absent map[string]string
	absent []map[string]string // each run's, in Names' order
	partly []string            // the figures some of its runs have, not all: rows of —
}

// A SweepFigure is one figure of a level across its repeats.
type SweepFigure struct {
	Name   string // "ttft p99", "output_tokens_per_s", "user_tps p50", "attainment"
	Unit   string // "ms", "tokens/s", "fraction"
	Spread Spread[float64]
	// LowerBound counts the level's runs whose value is only a lower
	// bound of the true figure: an output rate that leaves out the ok
	// requests without a token count. With any, the median is a lower
	// bound too, and its change across levels is not a change of the
	// figure.
	LowerBound int
	// Upper, where some runs are lower bounds and each of them says the
	// most its figure can be (an attainment with unjudged requests, were
	// they all good), is the median of those most values (the others'
	// values as they are): the true median is at most it. Nil otherwise.
	Upper *float64
}

// header returns the run's header, or nil.
func (r LevelRun) header() *llmmetrics.RunHeader {
	if r.Run == nil {
		return nil
	}
	return r.Run.Header
}

// Figure returns the level's figure by name.
func (l SweepLevel) Figure(name string) (SweepFigure, bool) {
	for _, f := range l.Figures {
		if f.Name == name {
			return f, true
		}
	}
	return SweepFigure{}, false
}

// SweepRuns groups the runs by level and summarizes each run with opt,
// then each figure of a level as median ± MAD across its runs. All runs
// must be of one kind (all concurrency or all rate). A level with fewer
// than 3 runs is warned about, and one whose runs' headers declare
// different workloads (model, API, or the load's lengths, arrivals,
// trace, prefixes or sessions). It returns ErrInvalidOption for no runs
// or mixed kinds, and the error of any run Run.Summarize refuses, naming
// the run.
func SweepRuns(runs []LevelRun, opt llmmetrics.Options) (*Sweep, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: a sweep needs runs", llmmetrics.ErrInvalidOption)
	}
	sw := &Sweep{Kind: runs[0].Kind, SLO: opt.SLO}
	byLevel := map[float64][]LevelRun{}
	for _, r := range runs {
		if r.Kind != sw.Kind {
			return nil, fmt.Errorf("%w: %s is a %s level and %s a %s level: a sweep varies one of them", llmmetrics.ErrInvalidOption,
				runs[0].Name, sw.Kind, r.Name, r.Kind)
		}
		if !(r.Level >= 0) {
			return nil, fmt.Errorf("%w: %s: level %v", llmmetrics.ErrInvalidOption, r.Name, r.Level)
		}
		if r.Run == nil && len(r.Figures) == 0 {
			return nil, fmt.Errorf("%w: %s has neither records nor figures", llmmetrics.ErrInvalidOption, r.Name)
		}
		byLevel[r.Level] = append(byLevel[r.Level], r)
	}
	sw.environment(runs)
	for _, level := range slices.Sorted(maps.Keys(byLevel)) {
		lv, err := sweepLevel(level, byLevel[level], opt)
		if err != nil {
			return nil, err
		}
		if lv.Runs < 3 {
			sw.Warnings = append(sw.Warnings, fmt.Sprintf("%s %g has %d run(s): the specification asks for at least 3 repeats, and a spread of fewer says little", sw.Kind, level, lv.Runs))
		}
		sw.Warnings = append(sw.Warnings, workloadDiffers(sw.Kind, level, byLevel[level])...)
		sw.Warnings = append(sw.Warnings, sameLevelRuns(sw.Kind, level, byLevel[level])...) // sweepsame.go
		sw.Levels = append(sw.Levels, lv)
	}
	return sw, nil
}

// sweepFigures are the figures of each run a sweep reports.
// The latencies come first: p50, p95 and p99 of each headline metric of
// the catalogue.
var sweepFigures = append(headlinePercentiles(50, 95, 99), []sweepFigure{
	{"user_tps p50", "tokens/s", func(_ *llmmetrics.Summary, user []float64) (float64, string) {
		if len(user) == 0 {
			return 0, "no measured ok request has two or more tokens and some time between its first and last"
		}
		return user[(len(user)+1)/2-1], "" // nearest rank: ⌈N/2⌉
	}, nil},
	fromRunFigure("output_tokens_per_s"),
	fromRunFigure("prompt_tokens_per_s"),
	fromRunFigure("requests_per_s"),
	fromRunFigure("attainment"),
	fromRunFigure("error_rate"),
	// The workload each level put on the server.
	{"in_flight mean", "requests", func(s *llmmetrics.Summary, _ []float64) (float64, string) {
		if s.Workload == nil || s.Workload.Concurrency == nil {
			return 0, workloadAbsent(s, "concurrency")
		}
		return s.Workload.Concurrency.Mean, ""
	}, nil},
	{"arrival_cv", "ratio", func(s *llmmetrics.Summary, _ []float64) (float64, string) {
		switch {
		case s.Workload == nil || s.Workload.Arrivals == nil:
			return 0, workloadAbsent(s, "arrivals")
		case s.Workload.Arrivals.Reading == inflight.AllAtOnce:
			return 0, "every request was sent at once: gaps all 0 have no CV"
		}
		return s.Workload.Arrivals.CV, ""
	}, nil},
	{"prompt_tokens p50", "tokens", func(s *llmmetrics.Summary, _ []float64) (float64, string) {
		if s.Workload == nil || s.Workload.Prompt == nil {
			return 0, workloadAbsent(s, "prompt")
		}
		return float64(s.Workload.Prompt.P50), ""
	}, nil},
	{"output_tokens p50", "tokens", func(s *llmmetrics.Summary, _ []float64) (float64, string) {
		if s.Workload == nil || s.Workload.Output == nil {
			return 0, workloadAbsent(s, "output")
		}
		return float64(s.Workload.Output.P50), ""
	}, nil},
	{"early_stop_rate", "fraction", func(s *llmmetrics.Summary, _ []float64) (float64, string) {
		if s.Workload == nil || s.Workload.EarlyStop == nil {
			return 0, workloadAbsent(s, "early_stop")
		}
		return s.Workload.EarlyStop.Rate, ""
	}, nil},
}...)

// sweepFigure is one figure a sweep reports of each run.
type sweepFigure struct {
	name, unit string
	// value returns the figure, or why the run has none.
	value func(s *llmmetrics.Summary, user []float64) (float64, string)
	// lower, when not nil, says why a run's figure is only a lower bound
	// of the true one, or "" when it is the figure itself.
	lower func(s *llmmetrics.Summary) string
}

// fromRunFigure is a run figure (runFigures), as a sweep figure.
func fromRunFigure(name string) sweepFigure {
	f, _ := runFigureNamed(name)
	return sweepFigure{f.name, f.unit, func(s *llmmetrics.Summary, _ []float64) (float64, string) {
		return f.value(s)
	}, f.lower}
}

// headlinePercentiles are the percentiles ps of each headline metric, as
// sweep figures: "ttft p50", "ttft p95", …, "e2e p99".
func headlinePercentiles(ps ...float64) []sweepFigure {
	var out []sweepFigure
	for _, m := range llmmetrics.Metrics() {
		if !m.Headline {
			continue
		}
		for _, p := range ps {
			f := percentileFigure(m, llmmetrics.MustPercentile(p))
			out = append(out, sweepFigure{f.name, f.unit, func(s *llmmetrics.Summary, _ []float64) (float64, string) {
				return f.value(s)
			}, nil})
		}
	}
	return out
}

// figureUnit returns the unit of a figure by its name.
func figureUnit(name string) string {
	for _, f := range sweepFigures {
		if f.name == name {
			return f.unit
		}
	}
	name = strings.TrimPrefix(name, "server ")
	key, _, _ := strings.Cut(name, " ")
	if m, ok := metricOf(key); ok {
		return m.Unit
	}
	switch {
	case strings.HasSuffix(name, "tokens_per_s"):
		return "tokens/s"
	case name == "requests_per_s":
		return "requests/s"
	case strings.HasSuffix(name, "_rate") || name == "attainment":
		return "fraction"
	}
	return ""
}

// A runValue is a figure of one run: its value, and whether it is a lower
// bound, with the most it can be where that is known.
type runValue struct {
	v, upper        float64
	lower, hasUpper bool
}

// runValues returns the figures of one run by name, those its records
// give over those given with it, the summary of its records (nil for a
// run known by figures alone), and why each figure of its records it
// lacks is absent (the attainment only where an SLO was set).
func runValues(r LevelRun, opt llmmetrics.Options) (map[string]runValue, *llmmetrics.Summary, map[string]string, error) {
	vals := map[string]runValue{}
	for k, v := range r.Figures {
		vals[k] = runValue{v: v}
	}
	if r.Run == nil {
		return vals, nil, nil, nil
	}
	s, err := r.Run.Summarize(opt)
	if err != nil {
		return nil, nil, nil, err
	}
	user, err := userTPS(r.Run.Records, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	whys := map[string]string{}
	for _, f := range sweepFigures {
		v, why := f.value(s, user)
		if why != "" {
			if _, given := vals[f.name]; !given && (f.name != "attainment" || opt.SLO != nil) {
				whys[f.name] = why
			}
			continue
		}
		rv := runValue{v: v, lower: f.lower != nil && f.lower(s) != ""}
		if rf, ok := runFigureNamed(f.name); ok && rv.lower && rf.upper != nil {
			rv.upper, rv.hasUpper = rf.upper(s)
		}
		vals[f.name] = rv
	}
	return vals, s, whys, nil
}

// workloadAbsent says why a summary has no workload figure of the part
// ("prompt", "arrivals", …).
func workloadAbsent(s *llmmetrics.Summary, part string) string {
	if why := s.Absent["workload."+part]; why != "" {
		return why
	}
	return "the run has no workload " + part
}

// sweepLevel summarizes the runs of one level.
func sweepLevel(level float64, runs []LevelRun, opt llmmetrics.Options) (SweepLevel, error) {
	ps := opt.Percentiles
	if ps == nil {
		ps = llmmetrics.DefaultPercentiles
	}
	for _, p := range []float64{50, 95, 99} {
		if !slices.Contains(ps, llmmetrics.MustPercentile(p)) {
			ps = append(slices.Clone(ps), llmmetrics.MustPercentile(p))
		}
	}
	opt.Percentiles = ps
	lv := SweepLevel{Level: level, Runs: len(runs)}
	values := map[string][]runValue{}
	for _, r := range runs {
		lv.Names = append(lv.Names, r.Name)
		vals, s, whys, err := runValues(r, opt)
		if err != nil {
			return lv, inRun(r.Name, err)
		}
		lv.Summaries = append(lv.Summaries, s)
		for k, v := range vals {
			values[k] = append(values[k], v)
		}
		lv.absent = append(lv.absent, runAbsent(s, whys))
	}
	for i, r := range runs {
		if r.Run != nil {
			continue
		}
		for name := range values { // a run known by figures alone has those given
			if _, ok := r.Figures[name]; !ok {
				lv.absent[i][name] = "the figures given for the run do not include it"
			}
		}
	}
	for _, a := range lv.absent {
		for k, why := range a {
			if lv.Absent == nil {
				lv.Absent = map[string]string{}
			}
			if _, said := lv.Absent[k]; !said {
				lv.Absent[k] = why
			}
		}
	}
	for _, name := range figureOrder(maps.Keys(values)) {
		if len(values[name]) != len(runs) {
			lv.partly = append(lv.partly, name) // a figure some runs lack is not given
			continue
		}
		f, err := levelFigure(name, values[name])
		if err != nil {
			return lv, fmt.Errorf("%s %g: %s: %w", "level", level, name, err)
		}
		lv.Figures = append(lv.Figures, f)
	}
	return lv, nil
}

// runAbsent is what one run lacks and why: its summary's absent figures,
// and the sweep's figures its records do not give whose reason the
// summary does not already say ("user_tps p50": no request of two
// tokens), so that a row the table leaves blank is never unexplained.
func runAbsent(s *llmmetrics.Summary, whys map[string]string) map[string]string {
	out := map[string]string{}
	said := map[string]bool{}
	if s != nil {
		for k, why := range s.Absent {
			why = withoutWindowAdvice(why) // lacking.go
			out[k], said[why] = why, true
		}
	}
	for name, why := range whys {
		if why = withoutWindowAdvice(why); !alreadySaid(why, said) {
			out[name] = why
		}
	}
	return out
}

// alreadySaid reports whether a row's reason is one of the summary's, or
// one of them after a prefix ("the run has no ttft: " + the summary's).
func alreadySaid(why string, said map[string]bool) bool {
	for {
		if said[why] {
			return true
		}
		_, rest, ok := strings.Cut(why, ": ")
		if !ok {
			return false
		}
		why = rest
	}
}

// levelFigure is a figure of a level from its value in each run.
func levelFigure(name string, vals []runValue) (SweepFigure, error) {
	f := SweepFigure{Name: name, Unit: figureUnit(name)}
	vs, most := make([]float64, len(vals)), make([]float64, len(vals))
	known := true // every lower bound says the most it can be
	for i, v := range vals {
		vs[i], most[i] = v.v, v.v
		if v.lower {
			f.LowerBound++
			most[i], known = v.upper, known && v.hasUpper
		}
	}
	var err error
	if f.Spread, err = MedianMAD(vs); err != nil {
		return f, err
	}
	if f.LowerBound > 0 && known {
		up, _ := MedianMAD(most)
		f.Upper = &up.Median
	}
	return f, nil
}

// figureOrder puts figure names in the order a sweep prints them: its
// own figures first, then the others (a server's, say) by name.
func figureOrder(names func(func(string) bool)) []string {
	rank := func(n string) int {
		for i, f := range sweepFigures {
			if f.name == n {
				return i
			}
		}
		return len(sweepFigures)
	}
	return slices.SortedFunc(names, func(a, b string) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// userTPS returns the sorted per-request User TPS, (n − 1)/(t_last −
// t_first), of the measured ok requests with n ≥ 2 and some decode time.
func userTPS(recs []llmmetrics.Record, opt llmmetrics.Options) ([]float64, error) {
	samples, err := llmmetrics.Samples(recs, opt)
	if err != nil {
		return nil, err
	}
	var out []float64
	for i := range samples {
		r := &samples[i]
		if r.CompletionTokens < 2 {
			continue
		}
		if v, err := r.UserTPS(); err == nil {
			out = append(out, float64(v))
		}
	}
	slices.Sort(out)
	return out, nil
}

// environment gathers what the runs' headers say of their environment.
func (sw *Sweep) environment(runs []LevelRun) {
	sw.Env = map[string]string{}
	seen := map[string]map[string]bool{}
	withEnv := 0
	for _, r := range runs {
		if h := r.header(); h == nil || len(h.Env) == 0 {
			sw.EnvMissing++
			continue
		}
		withEnv++
		for k, v := range r.header().Env {
			if seen[k] == nil {
				seen[k] = map[string]bool{}
			}
			seen[k][v] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(seen)) {
		vs := seen[k]
		count := 0
		for _, r := range runs {
			if h := r.header(); h != nil {
				if _, ok := h.Env[k]; ok {
					count++
				}
			}
		}
		if len(vs) == 1 && count == withEnv {
			for v := range vs {
				sw.Env[k] = v
			}
		} else {
			sw.EnvDiffers = append(sw.EnvDiffers, k)
		}
	}
}

// A Capacity is the highest load level of a sweep at which the SLO's
// attainment goal still holds, in DistServe's framing (the largest rate,
// or concurrency, at which attainment ≥ Target): a bracket between the
// highest passing level below the first failing one and that failing
// level, read from the median attainment across each level's repeats.
// It is interpolated only between measured levels, never extrapolated.
type Capacity struct {
	Kind   string
	Target float64
	// Passing is the highest level that meets the target, every level
	// below it meeting it too; nil when the lowest level fails.
	Passing *float64
	// Failing is the first level that misses the target; nil when none
	// does (the capacity is above the highest level measured).
	Failing *float64
	// Crossing is where the median attainment, linear between Passing and
	// Failing, meets the target; nil without both.
	Crossing *float64
	Margins  []Margin
	Reason   string
}

// A Margin is a level's median attainment and its distance from the
// target (positive: meets it); LowerBound when the attainment of some of
// its runs is only a lower bound (Goodput.Unjudged), so that a negative
// margin is no miss unless even the most it can be, Upper (the median
// with every unjudged request good), is below the target.
type Margin struct {
	Level, Attainment, Margin float64
	LowerBound                bool
	Upper                     float64
}

// undecided says whether the margin's level may meet target or not.
func (m Margin) undecided(target float64) bool {
	return m.Margin < 0 && m.LowerBound && m.Upper >= target
}

// Capacity reads the sweep's capacity at an attainment target (0.9 when
// 0). It returns ErrInvalidOption when the sweep was not judged against
// an SLO or the target is not in (0, 1].
func (sw *Sweep) Capacity(target float64) (*Capacity, error) {
	if target == 0 {
		target = 0.9
	}
	if !(target > 0 && target <= 1) {
		return nil, fmt.Errorf("%w: attainment target %v: want a fraction in (0, 1]", llmmetrics.ErrInvalidOption, target)
	}
	c := &Capacity{Kind: sw.Kind, Target: target}
	for _, lv := range sw.Levels {
		f, ok := lv.Figure("attainment")
		if !ok {
			return nil, fmt.Errorf("%w: capacity needs attainment, and so an SLO", llmmetrics.ErrInvalidOption)
		}
		m := Margin{Level: lv.Level, Attainment: f.Spread.Median, Margin: f.Spread.Median - target, LowerBound: f.LowerBound > 0, Upper: 1}
		if f.Upper != nil {
			m.Upper = *f.Upper
		}
		c.Margins = append(c.Margins, m)
	}
	slices.SortFunc(c.Margins, func(a, b Margin) int { return cmp.Compare(a.Level, b.Level) })
	first := slices.IndexFunc(c.Margins, func(m Margin) bool { return m.Margin < 0 })
	switch {
	case len(c.Margins) == 0:
		return nil, fmt.Errorf("%w: a sweep without levels", llmmetrics.ErrInvalidOption)
	case first >= 0 && c.Margins[first].undecided(target):
		m := c.Margins[first]
		if first > 0 {
			c.Passing = &c.Margins[first-1].Level
		}
		c.Reason = fmt.Sprintf("at %s %g the attainment, ≥%.4g, is only a lower bound (requests without a usable token count are unjudged against the TPOT limit): whether it meets %.10g%% cannot be told, so the capacity is not read from there on", sw.Kind, m.Level, m.Attainment, 100*target)
	case first < 0:
		top := c.Margins[len(c.Margins)-1].Level
		c.Passing = &top
		c.Reason = fmt.Sprintf("every level meets %.10g%% attainment: the capacity is at least %s %g, the highest measured (not extrapolated)", 100*target, sw.Kind, top)
	case first == 0:
		low := c.Margins[0].Level
		c.Failing = &low
		c.Reason = fmt.Sprintf("the lowest level measured, %s %g, already misses %.10g%% attainment: the capacity is below it", sw.Kind, low, 100*target)
	case c.Margins[first].LowerBound:
		// A miss whatever the unjudged requests were, by an unknown
		// margin: no crossing is read between the levels.
		p, f := c.Margins[first-1], c.Margins[first]
		c.Passing, c.Failing = &p.Level, &f.Level
		c.Reason = fmt.Sprintf("%.10g%% attainment holds up to %s %g and fails at %g, whose attainment is at most %.4g (at least %.4g: requests without a usable token count are unjudged against the TPOT limit); where it crosses between them is not read",
			100*target, sw.Kind, p.Level, f.Level, f.Upper, f.Attainment)
	default:
		p, f := c.Margins[first-1], c.Margins[first]
		c.Passing, c.Failing = &p.Level, &f.Level
		x := p.Level + (f.Level-p.Level)*p.Margin/(p.Margin-f.Margin)
		c.Crossing = &x
		c.Reason = fmt.Sprintf("%.10g%% attainment holds up to %s %g and fails at %g; linear between them, it crosses at %.4g",
			100*target, sw.Kind, p.Level, f.Level, x)
		if p.LowerBound { // its true margin is larger: the crossing is further on
			c.Reason += fmt.Sprintf(" or above (the attainment at %g, ≥%.4g, is a lower bound)", p.Level, p.Attainment)
		}
		for _, m := range c.Margins[first+1:] {
			if m.Margin >= 0 {
				c.Reason += fmt.Sprintf("; %s %g meets it again (attainment is not monotone in the load: rerun the levels around it)", sw.Kind, m.Level)
				break
			}
		}
	}
	return c, nil
}

// WriteTable writes the sweep with a column per level and a row per
// figure, each "median ±MAD" across the level's runs, then the
// environment and the warnings; each run with records set aside as
// invalid is said above the table ("SET ASIDE: b.jsonl (concurrency 4): 1
// of 31 records …").
func (sw *Sweep) WriteTable(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "per %s level, median ±MAD (raw) across runs; latency percentiles are per run (nearest rank unless said), so a row is the median of per-run percentiles, not a percentile of pooled requests\n", sw.Kind)
	for _, lv := range sw.Levels {
		if lv.Runs == 1 {
			b.WriteString("±? marks a level of one run: its spread between runs is unknown, not zero\n")
			break
		}
	}
	if sw.SLO != nil {
		fmt.Fprintf(&b, "attainment: good / offered against SLO %s, a percentage goodput\n", *sw.SLO)
	}
	for _, line := range sw.setAside() {
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len("prompt_tokens_per_s (tokens/s)")
	for _, name := range sw.figureNames() {
		width = max(width, utf8.RuneCountInString(name+" ("+figureUnit(name)+")"))
	}
	fmt.Fprintf(tw, "%-*s", width, sw.Kind)
	for _, lv := range sw.Levels {
		fmt.Fprintf(tw, "\t%g", lv.Level)
	}
	fmt.Fprintf(tw, "\t\n%-*s", width, "runs")
	for _, lv := range sw.Levels {
		fmt.Fprintf(tw, "\t%d", lv.Runs)
	}
	tw.Write([]byte("\t\n"))
	for _, name := range sw.figureNames() {
		fmt.Fprintf(tw, "%-*s", width, name+" ("+figureUnit(name)+")")
		for _, lv := range sw.Levels {
			switch x, ok := lv.Figure(name); {
			case ok && x.Spread.N == 1: // one run: no spread known
				fmt.Fprintf(tw, "\t%s%s ±?", bound(x.LowerBound), figure(x.Spread.Median, 4))
			case ok:
				fmt.Fprintf(tw, "\t%s%s ±%s", bound(x.LowerBound), figure(x.Spread.Median, 4), figure(x.Spread.MAD, 2))
			default:
				tw.Write([]byte("\t—"))
			}
		}
		tw.Write([]byte("\t\n"))
	}
	tw.Flush()
	for _, note := range sw.lowerNotes() {
		fmt.Fprintf(&b, "≥ marks a lower bound: %s\n", note)
	}
	for _, line := range sw.absentLines() {
		fmt.Fprintf(&b, "absent: %s\n", line)
	}
	b.WriteString("\n")
	switch {
	case len(sw.Env) == 0 && sw.EnvMissing > 0:
		b.WriteString("environment: not recorded\n")
	default:
		b.WriteString("environment:")
		for _, k := range slices.Sorted(maps.Keys(sw.Env)) {
			fmt.Fprintf(&b, " %s=%s", k, sw.Env[k])
		}
		b.WriteString("\n")
		if len(sw.EnvDiffers) > 0 {
			fmt.Fprintf(&b, "  the runs disagree on: %s\n", strings.Join(sw.EnvDiffers, ", "))
		}
		if sw.EnvMissing > 0 {
			fmt.Fprintf(&b, "  %d run(s) recorded no environment\n", sw.EnvMissing)
		}
	}
	for _, warn := range sw.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// absentLines say, for each figure absent at some level, at which levels
// and why: "throughput at concurrency 1, 2: the records carry no send
// times", one line for each reason, where every run of the level lacks
// it; where only some of a level's runs lack it, which: "throughput at
// concurrency 1 in b.jsonl: …".
func (sw *Sweep) absentLines() []string {
	keys := map[string]bool{}
	for _, lv := range sw.Levels {
		for k := range lv.Absent {
			keys[k] = true
		}
	}
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		var whys, some []string
		at := map[string][]string{} // the levels of each reason
		for _, lv := range sw.Levels {
			why, ok := lv.Absent[k]
			if !ok {
				continue
			}
			level := strconv.FormatFloat(lv.Level, 'g', -1, 64)
			if groups, n := lv.lacking(k); n < lv.Runs {
				for _, g := range groups {
					some = append(some, fmt.Sprintf("%s at %s %s in %s", k, sw.Kind, level, g))
				}
				continue
			}
			if at[why] == nil {
				whys = append(whys, why)
			}
			at[why] = append(at[why], level)
		}
		for _, why := range whys {
			lines = append(lines, fmt.Sprintf("%s at %s %s: %s", k, sw.Kind, strings.Join(at[why], ", "), why))
		}
		lines = append(lines, some...)
	}
	return lines
}

// lacking says, for each reason the level's runs give for lacking the
// figure k, which runs lack it: "b.jsonl: why", or "b.jsonl, c.jsonl:
// why" for runs of one reason, in the level's order; and n, how many
// runs lack it.
func (lv SweepLevel) lacking(k string) (groups []string, n int) {
	var whys []string
	by := map[string][]string{}
	for i, a := range lv.absent {
		why := a[k]
		if why == "" {
			continue
		}
		if by[why] == nil {
			whys = append(whys, why)
		}
		by[why] = append(by[why], lv.Names[i])
		n++
	}
	for _, why := range whys {
		groups = append(groups, strings.Join(by[why], ", ")+": "+why)
	}
	return groups, n
}

// lowerNotes say, for each figure that is a lower bound at some level, at
// which levels and in how many of their runs, and what its change across
// levels is then.
func (sw *Sweep) lowerNotes() []string {
	var notes []string
	for _, name := range sw.figureNames() {
		var at []string
		for _, lv := range sw.Levels {
			if f, ok := lv.Figure(name); ok && f.LowerBound > 0 {
				at = append(at, fmt.Sprintf("%g (%d of %d runs)", lv.Level, f.LowerBound, lv.Runs))
			}
		}
		if len(at) > 0 {
			leaves, note := lowerBoundWhy(name)
			notes = append(notes, fmt.Sprintf("%s %s at %s %s; %s", name, leaves, sw.Kind, strings.Join(at, ", "), note))
		}
	}
	return notes
}

// figureNames returns the names of the figures any level has, or some
// run of a level has, in order: a row some runs lack is printed —, with
// its absent line, rather than dropped.
func (sw *Sweep) figureNames() []string {
	seen := map[string]bool{}
	for _, lv := range sw.Levels {
		for _, f := range lv.Figures {
			seen[f.Name] = true
		}
		for _, name := range lv.partly {
			seen[name] = true
		}
	}
	return figureOrder(maps.Keys(seen))
}

// MarshalJSON writes the sweep as {"kind", "levels": [{"level", "runs",
// "names", "requests", "figures": {NAME: {"unit", "median", "mad",
// "scaled_mad", "n"}}}] (mad and scaled_mad null for a level of one
// run), "environment", "environment_differs",
// "environment_missing", "warnings", "note"}, a level's requests a list
// of {"name", "offered", "rejected"}, one per run in names' order (its
// name, the records of its summary, and those set aside as invalid; for
// a run known by figures alone the counts are null, and "absent" says
// why; "absent_figures" maps each figure the run lacks to why), and the
// level's "absent" each such figure to the first run's reason. A figure
// whose value on some run of its level is only a lower bound adds
// "lower_bound": true and "lower_bound_runs" (how many of the level's
// runs), "upper_bound" where the most the median can be is known
// (SweepFigure.Upper), and the sweep "lower_bound_notes".
func (sw *Sweep) MarshalJSON() ([]byte, error) {
	levels := make([]object, len(sw.Levels))
	for i, lv := range sw.Levels {
		figs := object{}
		for _, f := range lv.Figures {
			o := object{{"unit", f.Unit}, {"median", f.Spread.Median}, {"mad", spreadOf(f.Spread, f.Spread.MAD)},
				{"scaled_mad", spreadOf(f.Spread, f.Spread.ScaledMAD)}, {"n", f.Spread.N}}
			if f.LowerBound > 0 {
				o = append(o, field{"lower_bound", true}, field{"lower_bound_runs", f.LowerBound})
			}
			if f.Upper != nil {
				o = append(o, field{"upper_bound", *f.Upper})
			}
			figs = append(figs, field{f.Name, o})
		}
		levels[i] = object{{"level", lv.Level}, {"runs", lv.Runs}, {"names", lv.Names}, {"requests", lv.requests()}, {"figures", figs}}
		if len(lv.Absent) > 0 {
			levels[i] = append(levels[i], field{"absent", lv.Absent})
		}
	}
	out := object{{"kind", sw.Kind}, {"levels", levels}, {"environment", sw.Env},
		{"environment_differs", sw.EnvDiffers}, {"environment_missing", sw.EnvMissing}, {"warnings", sw.Warnings},
		{"note", "latency figures are medians across runs of per-run percentiles, not percentiles of pooled requests"}}
	if notes := sw.lowerNotes(); len(notes) > 0 {
		out = append(out, field{"lower_bound_notes", notes})
	}
	return json.Marshal(out)
}

// String says the capacity in one sentence.
func (c *Capacity) String() string { return c.Reason }

// figure formats a figure with about digits significant digits, without
// an exponent for the sizes latencies in ms and token rates take.
func figure(v float64, digits int) string {
	if a := math.Abs(v); a >= math.Pow(10, float64(digits)) && a < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}
