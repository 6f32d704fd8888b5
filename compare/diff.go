package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/llmmetrics/llmmetrics"
)

// DiffOptions control Diff. Summary holds the options every run is
// summarized with (method, percentiles, SLO, warm-up); Alpha is the
// significance level, 0.05 when 0. NamesA and NamesB name each side's
// runs, one per run in order (the files they were read from, say), for
// the lines and the JSON that speak of one run; a side without them
// calls its runs "A run 1", "A run 2", ….
type DiffOptions struct {
	Summary        llmmetrics.Options
	Alpha          float64
	NamesA, NamesB []string
}

// A Diff compares two sets of runs, A (the baseline) and B, as benchstat
// compares Go benchmarks: each figure is computed once per run, and the
// two sides' per-run values are compared with the exact Mann–Whitney U
// test. Requests pooled across runs are not independent samples (on a
// shared machine most of the variance is between runs), so the runs are
// the unit: n is the number of runs.
type Diff struct {
	Alpha      float64
	RunsA      int
	RunsB      int
	Rows       []DiffRow
	SummariesA []*llmmetrics.Summary // one per run, in order
	SummariesB []*llmmetrics.Summary
	// NamesA and NamesB are DiffOptions' names of each side's runs: nil,
	// or one per run.
	NamesA, NamesB []string
	// MinRuns is the smallest number of runs a side, the same on both,
	// with which the exact test can reach a p-value below Alpha: 4 for
	// 0.05 (the smallest p of 3 + 3 runs is 2/20 = 0.1, of 4 + 4 2/70).
	MinRuns int
	// Warnings name each difference between the sides' run headers
	// (load, model, api, lengths, environment), and each side whose runs
	// disagree among themselves or lack a header.
	Warnings []string
	// Skipped names the figures some run lacks, with the runs that lack
	// them and why ("requests_per_s: B run 1 has no throughput window:
	// …"): they are not compared.
	Skipped []string
}

// A DiffRow is one figure of a Diff: a latency percentile of each run
// ("ttft p99" is each run's own p99 TTFT, over that run's requests), or a
// figure a run has once (a token or request rate, the attainment, the
// error rate). A and B are the median ± MAD of the figure across each
// side's runs, and Test compares the per-run values.
type DiffRow struct {
	Name   string // "ttft p50", "output_tokens_per_s", …
	Unit   string // "ms", "tokens/s", "requests/s" or "fraction"
	A, B   Spread[float64]
	Change float64 // (B.Median − A.Median) / A.Median; NaN when A.Median is 0
	Test   RankTest
	// Significant is true when Test's P is below Alpha: the change is
	// unlikely to be noise between runs, and the row's lower bounds
	// (LowerBound), if any, leave no doubt of its direction: a side whose
	// value is a lower bound is significantly above the other, whose is
	// not.
	Significant bool
	// LowerA and LowerB count the runs of each side whose value is only a
	// lower bound of the true figure: an output rate that leaves out the
	// ok requests without a token count. A side with any has a median
	// that is a lower bound too, and the row's change and test are those
	// of lower bounds, not of the figure (LowerBound).
	LowerA, LowerB int
}

// LowerBound reports whether the row's value on any run of either side is
// only a lower bound: its change is then not a change of the figure.
func (r DiffRow) LowerBound() bool { return r.LowerA+r.LowerB > 0 }

// DiffRuns compares the runs of a with those of b, figure by figure, on
// one value per run. It returns ErrNoRecords when a side has no run, and
// the error of any run Run.Summarize refuses, naming its side and
// position. It does not modify the runs.
func DiffRuns(a, b []*llmmetrics.Run, opt DiffOptions) (*Diff, error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, fmt.Errorf("%w: a side of the comparison has no run", llmmetrics.ErrNoRecords)
	}
	alpha := opt.Alpha
	if alpha == 0 {
		alpha = 0.05
	}
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("%w: significance level %v", llmmetrics.ErrInvalidOption, alpha)
	}
	for _, side := range []struct {
		names []string
		runs  int
	}{{opt.NamesA, len(a)}, {opt.NamesB, len(b)}} {
		if side.names != nil && len(side.names) != side.runs {
			return nil, fmt.Errorf("%w: %d names for %d runs", llmmetrics.ErrInvalidOption, len(side.names), side.runs)
		}
	}
	d := &Diff{Alpha: alpha, RunsA: len(a), RunsB: len(b), MinRuns: MinRuns(alpha),
		NamesA: slices.Clone(opt.NamesA), NamesB: slices.Clone(opt.NamesB)}
	var err error
	if d.SummariesA, err = d.summarizeSide(a, "A", opt.Summary); err != nil {
		return nil, err
	}
	if d.SummariesB, err = d.summarizeSide(b, "B", opt.Summary); err != nil {
		return nil, err
	}
	ps := opt.Summary.Percentiles
	if ps == nil {
		ps = llmmetrics.DefaultPercentiles
	}
	var figs []runFigure
	for _, m := range llmmetrics.Metrics() {
		if !m.Headline {
			continue
		}
		for _, p := range ps {
			figs = append(figs, percentileFigure(m, p))
		}
	}
	for _, f := range append(figs, runFigures...) {
		if f.name == "attainment" && opt.Summary.SLO == nil {
			continue // not asked for
		}
		if why := lacking(f, d.SummariesA, d.SummariesB, [2][]string{d.NamesA, d.NamesB}); why != "" {
			d.Skipped = append(d.Skipped, f.name+": "+why)
			continue
		}
		va, _ := f.values(d.SummariesA)
		vb, _ := f.values(d.SummariesB)
		row := DiffRow{Name: f.name, Unit: f.unit}
		row.LowerA, _ = f.bounds(d.SummariesA)
		row.LowerB, _ = f.bounds(d.SummariesB)
		row.A, _ = MedianMAD(va)
		row.B, _ = MedianMAD(vb)
		row.Test, _ = MannWhitney(va, vb)
		d.Rows = append(d.Rows, row.finish(alpha))
	}
	d.Warnings = headerWarnings(a, b, opt.NamesA, opt.NamesB)
	d.Warnings = append(append(d.Warnings, sameRuns("A", a, opt.NamesA)...), sameRuns("B", b, opt.NamesB)...) // sweepsame.go
	d.Warnings = append(d.Warnings, sidesSameRun(a, b, opt.NamesA, opt.NamesB)...)
	return d, nil
}

func (r DiffRow) finish(alpha float64) DiffRow {
	r.Change = math.NaN()
	if r.A.Median != 0 {
		r.Change = (r.B.Median - r.A.Median) / r.A.Median
	}
	r.Significant = r.Test.P < alpha && r.decided()
	return r
}

// decided says whether the row's change says which way the figure went:
// always where no value is a lower bound; where only one side's are, when
// that side's bound is the higher (the true figure is higher still); never
// where both sides' are.
func (r DiffRow) decided() bool {
	switch {
	case r.LowerA > 0 && r.LowerB > 0:
		return false
	case r.LowerB > 0:
		return r.B.Median > r.A.Median
	case r.LowerA > 0:
		return r.A.Median > r.B.Median
	}
	return true
}

// A runError is the error of a named run: its message is the name, then
// the error's own without the package's prefix, so that a command that
// adds the prefix says it once.
type runError struct {
	name string
	err  error
}

func (e *runError) Error() string {
	return e.name + ": " + strings.TrimPrefix(e.err.Error(), "llmmetrics: ")
}

func (e *runError) Unwrap() error { return e.err }

// inRun returns err as the error of the run named name.
func inRun(name string, err error) error { return &runError{name, err} }

// summarizeSide summarizes each run of one side.
func (d *Diff) summarizeSide(runs []*llmmetrics.Run, side string, opt llmmetrics.Options) ([]*llmmetrics.Summary, error) {
	var sums []*llmmetrics.Summary
	for i, run := range runs {
		s, err := run.Summarize(opt)
		if err != nil {
			return nil, inRun(d.runName(side, i), err)
		}
		sums = append(sums, s)
	}
	return sums, nil
}

// MinRuns returns the smallest number of runs a side, the same on both
// sides, with which the exact two-sided Mann–Whitney test can give a
// p-value below alpha: the smallest n with 2 / C(2n, n) < alpha, the p of
// the most extreme split without ties (2, 3, 4, 5 and 6 runs give 0.333,
// 0.1, 0.0286, 0.00794 and 0.00216). With fewer runs no change can be
// significant at alpha, however large. It returns 0 for alpha outside
// (0, 1).
func MinRuns(alpha float64) int {
	if !(alpha > 0 && alpha < 1) {
		return 0
	}
	for n := 1; ; n++ {
		if minP(n, n) < alpha {
			return n
		}
	}
}

// minP is the smallest two-sided p-value of the exact Mann–Whitney test
// of na against nb values without ties: 2 / C(na+nb, na), at most 1.
func minP(na, nb int) float64 {
	c := 1.0 // C(na+nb, na), built as a product of ratios
	for i := 1; i <= na; i++ {
		c = c * float64(nb+i) / float64(i)
	}
	return min(1, 2/c)
}

// headerWarnings compares what the two sides' run headers say of how the
// runs were taken; na and nb name the runs, or are nil.
func headerWarnings(a, b []*llmmetrics.Run, na, nb []string) []string {
	var out []string
	fa, okA := sideFacts(a, "A", na, &out)
	fb, okB := sideFacts(b, "B", nb, &out)
	if !okA || !okB {
		return out
	}
	for _, k := range sortedUnion(fa, fb) {
		va, inA := fa[k]
		vb, inB := fb[k]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("A and B differ in %s: A does not say, B %s", k, vb))
		case !inB:
			out = append(out, fmt.Sprintf("A and B differ in %s: A %s, B does not say", k, va))
		case va != vb:
			out = append(out, fmt.Sprintf("A and B differ in %s: A %s, B %s", k, va, vb))
		}
	}
	return out
}

// sideFacts returns the header facts of a side's runs (see headerFacts),
// and false when a run has no header. Where the side's runs disagree on a
// fact, it warns and the fact's value is the values seen, joined by " | ".
// A run without a header is named by its number, and its name in names.
func sideFacts(runs []*llmmetrics.Run, side string, names []string, warn *[]string) (map[string]string, bool) {
	var all []map[string]string
	var bare []string
	for i, r := range runs {
		if r.Header == nil {
			bare = append(bare, runLabel(i+1, names))
			continue
		}
		all = append(all, headerFacts(r.Header))
	}
	switch {
	case len(bare) == 1:
		*warn = append(*warn, fmt.Sprintf("%s run %s has no run header: how the sides' runs were taken (load, model, lengths, environment) cannot be compared", side, bare[0]))
		return nil, false
	case len(bare) > 1:
		*warn = append(*warn, fmt.Sprintf("%s runs %s have no run header: how the sides' runs were taken (load, model, lengths, environment) cannot be compared", side, strings.Join(bare, ", ")))
		return nil, false
	}
	facts := map[string]string{}
	keys := map[string]bool{}
	for _, f := range all {
		for k := range f {
			keys[k] = true
		}
	}
	for _, k := range sortedKeys(keys) {
		var seen []string
		for _, f := range all {
			v, ok := f[k]
			if !ok {
				v = "(not said)"
			}
			if !slices.Contains(seen, v) {
				seen = append(seen, v)
			}
		}
		if len(seen) > 1 {
			*warn = append(*warn, fmt.Sprintf("%s's runs differ among themselves in %s: %s", side, k, strings.Join(seen, ", ")))
		}
		facts[k] = strings.Join(seen, " | ")
	}
	return facts, true
}

// headerFacts are what a run header says of how the run was taken, by
// name: the model, the API, each key of the load (loop, concurrency,
// rate, lengths) and each key of the environment. The target URL, the
// names of the scrape files and the salt of the synthetic prompts' text
// (prompt_salt, a run's own) differ between runs of one setup and are
// left out.
func headerFacts(h *llmmetrics.RunHeader) map[string]string {
	f := map[string]string{}
	if h.Model != "" {
		f["model"] = h.Model
	}
	if h.API != "" {
		f["api"] = h.API
	}
	for k, v := range h.Load {
		if !strings.HasPrefix(k, "scrape_") && k != "prompt_salt" {
			f["load "+k] = v
		}
	}
	for k, v := range h.Env {
		f["environment "+k] = v
	}
	return f
}

// WriteTable writes the comparison as benchstat does: a row per figure
// with A and B as median ± MAD across runs (the MAD as a percentage of
// the median), and the change with its p-value and the runs behind it, or
// "~" where the change is not significant at Alpha. Each run with records
// set aside as invalid is said above the table ("SET ASIDE: B run 1: 1 of
// 31 records …"), the warnings below it.
func (d *Diff) WriteTable(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "A: %d run(s), B: %d run(s); significance level α = %g\n", d.RunsA, d.RunsB, d.Alpha)
	b.WriteString("each figure is computed per run (a percentile over that run's requests); A and B are the median ± MAD across runs,\n")
	b.WriteString("the change is tested with the exact Mann–Whitney U test on the per-run values, n = runs\n")
	if p := minP(d.RunsA, d.RunsB); d.RunsA < d.MinRuns || d.RunsB < d.MinRuns || p >= d.Alpha {
		fmt.Fprintf(&b, "need ≥ %d runs a side for α = %g: with %d + %d runs the smallest possible p is %.3g, so ", d.MinRuns, d.Alpha, d.RunsA, d.RunsB, p)
		if p >= d.Alpha {
			b.WriteString("no change can be significant\n")
		} else {
			b.WriteString("only a change that separates every run can be\n")
		}
	}
	if d.RunsA == 1 || d.RunsB == 1 {
		b.WriteString("± ? marks a side of one run: its spread between runs is unknown, not zero\n")
	}
	for _, line := range d.setAside() {
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
	width := 0
	for _, r := range d.Rows {
		width = max(width, utf8.RuneCountInString(r.Name)+len(r.Unit)+3)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tA\tB\tvs A\t\n", width, "")
	for _, r := range d.Rows {
		n := fmt.Sprintf("n=%d", r.A.N)
		if r.A.N != r.B.N {
			n = fmt.Sprintf("n=%d+%d", r.A.N, r.B.N)
		}
		verdict := fmt.Sprintf("~ (p=%.3f %s)", r.Test.P, n)
		switch {
		case !r.decided():
			verdict = fmt.Sprintf("? (a lower bound, p=%.3f %s)", r.Test.P, n)
		case r.Significant:
			verdict = fmt.Sprintf("%s%s (p=%.3f %s)", changeBound(r), signedPercent(r.Change), r.Test.P, n)
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t\n", width, r.Name+" ("+r.Unit+")", bound(r.LowerA)+plusMinus(r.A), bound(r.LowerB)+plusMinus(r.B), verdict)
	}
	tw.Flush()
	for _, r := range d.Rows {
		if r.LowerBound() {
			fmt.Fprintf(&b, "≥ marks a lower bound: %s\n", d.lowerNote(r))
		}
	}
	for _, s := range d.Skipped {
		fmt.Fprintf(&b, "not compared: %s\n", s)
	}
	for _, warn := range d.Warnings {
		fmt.Fprintf(&b, "WARNING: %s\n", warn)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// changeBound is what a row's change is of the figure's: "≥" where B's
// values are lower bounds (B's figure is higher still), "≤" where A's are,
// and "" where neither side's is.
func changeBound(r DiffRow) string {
	switch {
	case r.LowerB > 0:
		return "≥"
	case r.LowerA > 0:
		return "≤"
	}
	return ""
}

// bound is "≥" before the value of a side some of whose runs give only a
// lower bound, and "" otherwise.
func bound(lower int) string {
	if lower > 0 {
		return "≥"
	}
	return ""
}

// lowerNote says which runs of a row give only a lower bound, and what
// its change is then.
func (d *Diff) lowerNote(r DiffRow) string {
	leaves, note := lowerBoundWhy(r.Name)
	if r.decided() {
		note = "its direction is sure, and the change is a bound on the figure's (" + changeBound(r) + ")"
	}
	return fmt.Sprintf("%s %s in %d of A's %d runs and %d of B's %d; %s", r.Name, leaves, r.LowerA, d.RunsA, r.LowerB, d.RunsB, note)
}

// plusMinus formats a spread as benchstat does: the median, then ± the
// spread as a percentage of it (here the MAD). One run has no spread: its
// ± is a question mark, not a 0 % that would read as no noise.
func plusMinus(s Spread[float64]) string {
	if s.N == 1 {
		return figure(s.Median, 4) + " ± ?"
	}
	if s.Median == 0 {
		if s.MAD == 0 {
			return "0 ± 0%"
		}
		return fmt.Sprintf("0 ± %s", figure(s.MAD, 2))
	}
	return fmt.Sprintf("%s ± %.0f%%", figure(s.Median, 4), 100*math.Abs(s.MAD/s.Median))
}

func signedPercent(x float64) string {
	if math.IsNaN(x) {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", 100*x)
}

// MarshalJSON writes the comparison as {"alpha", "runs_a", "runs_b",
// "min_runs", "requests": {"a", "b"}, "rows": [{"name", "unit", "a", "b",
// "change", "p", "exact", "significant"}], "not_compared", "warnings"},
// with requests' a and b each a list of {"name", "offered", "rejected"},
// one per run in order (its name, as DiffOptions give it or "B run 1",
// the records of its summary, and those set aside as invalid), the
// rows' a and b each {"median", "mad", "n"} across runs (mad null for a
// side of one run, whose spread is unknown), and change null when A's
// median is 0. A row whose value on some run is only a lower
// bound adds "lower_bound": true, "lower_bound_runs": {"a", "b"} (how
// many runs of each side) and "lower_bound_note".
func (d *Diff) MarshalJSON() ([]byte, error) {
	rows := make([]object, len(d.Rows))
	side := func(s Spread[float64]) object {
		return object{{"median", s.Median}, {"mad", spreadOf(s, s.MAD)}, {"n", s.N}}
	}
	for i, r := range d.Rows {
		o := object{{"name", r.Name}, {"unit", r.Unit}, {"a", side(r.A)}, {"b", side(r.B)}}
		if math.IsNaN(r.Change) {
			o = append(o, field{"change", nil})
		} else {
			o = append(o, field{"change", r.Change})
		}
		o = append(o, field{"p", r.Test.P}, field{"exact", r.Test.Exact}, field{"significant", r.Significant})
		if r.LowerBound() {
			o = append(o, field{"lower_bound", true}, field{"lower_bound_runs", object{{"a", r.LowerA}, {"b", r.LowerB}}},
				field{"lower_bound_note", d.lowerNote(r)})
		}
		rows[i] = o
	}
	return json.Marshal(object{{"alpha", d.Alpha}, {"runs_a", d.RunsA}, {"runs_b", d.RunsB}, {"min_runs", d.MinRuns},
		{"requests", object{{"a", d.requestsOf("A")}, {"b", d.requestsOf("B")}}},
		{"rows", rows}, {"not_compared", orEmpty(d.Skipped)}, {"warnings", orEmpty(d.Warnings)}})
}

// orEmpty is s, or an empty list for nil, so that JSON shows [] not null.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// sortedUnion returns the keys of a and b, sorted.
func sortedUnion(a, b map[string]string) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return sortedKeys(keys)
}

// sortedKeys returns a set's members, sorted.
func sortedKeys(set map[string]bool) []string {
	return slices.Sorted(maps.Keys(set))
}

// spreadOf is v, a spread of s, for JSON: null when s is of one run,
// whose spread between runs is unknown, not 0.
func spreadOf(s Spread[float64], v float64) any {
	if s.N < 2 {
		return nil
	}
	return v
}
