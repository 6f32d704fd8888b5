package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/llmmetrics/llmmetrics"
)

// DiffOptions control Diff. Summary holds the options every run is
// summarized with (method, percentiles, SLO, warm-up); Alpha is the
// significance level, 0.05 when 0.
type DiffOptions struct {
	Summary llmmetrics.Options
	Alpha   float64
}

// A Diff compares two sets of runs, A (the baseline) and B, as benchstat
// compares Go benchmarks: per figure, A, B, the relative change and
// whether it is significant at Alpha.
type Diff struct {
	Alpha      float64
	RunsA      int
	RunsB      int
	Rows       []DiffRow
	SummariesA []*llmmetrics.Summary // one per run, in order
	SummariesB []*llmmetrics.Summary
}

// A DiffRow is one figure of a Diff.
//
// Latency rows are over the per-request values pooled from every run of a
// side (ok requests; TPOT over those with n ≥ 2): A and B are percentiles
// of the pooled values (nearest-rank or linear, as the summary options
// say), never averages of per-run percentiles. The p50 rows are tested
// with the Mann–Whitney U test on the pooled values; other percentiles are
// shown but not tested (a tail percentile's change needs a test of its
// own). Rate rows (output and prompt tokens/s, requests/s, attainment,
// error rate) have one value per run: A and B are the medians across runs,
// and the test is Mann–Whitney U on the per-run values, which with one or
// two runs a side can never be significant.
type DiffRow struct {
	Name   string // "ttft p50", "output_tokens_per_s", …
	Unit   string // "ms", "tokens/s", "requests/s" or "fraction"
	A, B   float64
	Change float64 // (B − A) / A; NaN when A is 0
	Test   *RankTest
	// Significant is true when Test's P is below Alpha: the change is
	// unlikely to be noise. A row without a test is never significant.
	Significant bool
	NA, NB      int // values behind A and B: requests, or runs
}

// DiffRuns compares the runs of a with those of b. It returns ErrNoRecords
// when a side has no run, and the error of any run Run.Summarize refuses,
// naming its side and position. It does not modify the runs.
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
	d := &Diff{Alpha: alpha, RunsA: len(a), RunsB: len(b)}
	sa, pa, err := diffSide(a, "A", opt.Summary)
	if err != nil {
		return nil, err
	}
	sb, pb, err := diffSide(b, "B", opt.Summary)
	if err != nil {
		return nil, err
	}
	d.SummariesA, d.SummariesB = sa, sb
	ps := opt.Summary.Percentiles
	if ps == nil {
		ps = llmmetrics.DefaultPercentiles
	}
	for _, m := range []string{"ttft", "tpot", "e2e"} {
		if len(pa[m]) == 0 || len(pb[m]) == 0 {
			continue
		}
		da, _ := llmmetrics.Describe(pa[m], opt.Summary.Method, ps...)
		db, _ := llmmetrics.Describe(pb[m], opt.Summary.Method, ps...)
		for i, p := range ps {
			row := DiffRow{Name: m + " " + p.Key(), Unit: "ms", A: millis(da.Points[i].Value), B: millis(db.Points[i].Value),
				NA: da.N, NB: db.N}
			if p == llmmetrics.MustPercentile(50) {
				t, _ := MannWhitney(pa[m], pb[m])
				row.Test = &t
			}
			d.Rows = append(d.Rows, row.finish(alpha))
		}
	}
	for _, f := range runFigures {
		va, vb := f.values(sa), f.values(sb)
		if len(va) == 0 || len(vb) == 0 {
			continue
		}
		ma, _ := MedianMAD(va)
		mb, _ := MedianMAD(vb)
		t, _ := MannWhitney(va, vb)
		row := DiffRow{Name: f.name, Unit: f.unit, A: ma.Median, B: mb.Median, Test: &t, NA: len(va), NB: len(vb)}
		d.Rows = append(d.Rows, row.finish(alpha))
	}
	return d, nil
}

func (r DiffRow) finish(alpha float64) DiffRow {
	r.Change = math.NaN()
	if r.A != 0 {
		r.Change = (r.B - r.A) / r.A
	}
	r.Significant = r.Test != nil && r.Test.P < alpha
	return r
}

// diffSide summarizes each run of one side and pools its per-request
// latencies.
func diffSide(runs []*llmmetrics.Run, side string, opt llmmetrics.Options) ([]*llmmetrics.Summary, map[string][]time.Duration, error) {
	pooled := map[string][]time.Duration{}
	var sums []*llmmetrics.Summary
	for i, run := range runs {
		recs := run.Records
		s, err := run.Summarize(opt)
		if err != nil {
			return nil, nil, fmt.Errorf("%s run %d: %w", side, i+1, err)
		}
		sums = append(sums, s)
		samples, err := llmmetrics.Samples(recs, opt)
		if err != nil {
			return nil, nil, err
		}
		for k := range samples {
			r := &samples[k]
			ttft, _ := r.TTFT()
			e2e, _ := r.E2E()
			pooled["ttft"] = append(pooled["ttft"], ttft)
			pooled["e2e"] = append(pooled["e2e"], e2e)
			if r.CompletionTokens >= 2 {
				tpot, _ := r.TPOT()
				pooled["tpot"] = append(pooled["tpot"], tpot)
			}
		}
	}
	return sums, pooled, nil
}

// WriteTable writes the comparison as benchstat does: a row per figure
// with A, B and the change, or "~" where the change is not significant at
// Alpha, with the p-value and the number of values behind each side.
func (d *Diff) WriteTable(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "A: %d run(s), B: %d run(s); significance level α = %g\n", d.RunsA, d.RunsB, d.Alpha)
	b.WriteString("latencies: percentiles of the per-request values pooled over each side's runs; p50 tested with Mann–Whitney U on them\n")
	b.WriteString("rates: median over runs, tested with Mann–Whitney U on the per-run values\n")
	if d.RunsA < 3 || d.RunsB < 3 {
		b.WriteString("fewer than 3 runs a side: a rate's change cannot be significant (the lessons ask for ≥ 3 repeats)\n")
	}
	b.WriteString("\n")
	width := 0
	for _, r := range d.Rows {
		width = max(width, utf8.RuneCountInString(r.Name)+len(r.Unit)+3)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tA\tB\tvs A\t\n", width, "")
	for _, r := range d.Rows {
		verdict := ""
		switch {
		case r.Test == nil:
			verdict = fmt.Sprintf("%s (not tested)", signedPercent(r.Change))
		case r.Significant:
			verdict = fmt.Sprintf("%s (p=%.3f n=%d+%d)", signedPercent(r.Change), r.Test.P, r.NA, r.NB)
		default:
			verdict = fmt.Sprintf("~ (p=%.3f n=%d+%d)", r.Test.P, r.NA, r.NB)
		}
		fmt.Fprintf(tw, "%-*s\t%.4g\t%.4g\t%s\t\n", width, r.Name+" ("+r.Unit+")", r.A, r.B, verdict)
	}
	tw.Flush()
	_, err := w.Write(b.Bytes())
	return err
}

func signedPercent(x float64) string {
	if math.IsNaN(x) {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", 100*x)
}

// MarshalJSON writes the comparison as {"alpha", "runs_a", "runs_b",
// "rows": [{"name", "unit", "a", "b", "change", "p", "exact",
// "significant", "n_a", "n_b"}]}, with p and exact absent for an untested
// row and change null when A is 0.
func (d *Diff) MarshalJSON() ([]byte, error) {
	rows := make([]object, len(d.Rows))
	for i, r := range d.Rows {
		o := object{{"name", r.Name}, {"unit", r.Unit}, {"a", r.A}, {"b", r.B}}
		if math.IsNaN(r.Change) {
			o = append(o, field{"change", nil})
		} else {
			o = append(o, field{"change", r.Change})
		}
		if r.Test != nil {
			o = append(o, field{"p", r.Test.P}, field{"exact", r.Test.Exact})
		}
		rows[i] = append(o, field{"significant", r.Significant}, field{"n_a", r.NA}, field{"n_b", r.NB})
	}
	return json.Marshal(object{{"alpha", d.Alpha}, {"runs_a", d.RunsA}, {"runs_b", d.RunsB}, {"rows", rows}})
}
