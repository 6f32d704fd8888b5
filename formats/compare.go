package formats

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// A Comparison puts llmmetrics' figures for a file beside the figures the
// file's own tool computes (its dialect), metric by metric, and says why
// they differ.
type Comparison struct {
	Tool    Tool
	Method  llmmetrics.Method // the percentile method of the llmmetrics column
	Rows    []ComparisonRow
	Reasons []string // one sentence per difference in convention that applies to this file
	Summary *llmmetrics.Summary
	// Sample is set when the file keeps only some of its requests (see
	// File.Sample): the llmmetrics column is recomputed from the sample,
	// and the tool's column holds the figures the file states (Stated),
	// which cover every request.
	Sample *Sample
	// Stated is true when the tool's column holds the file's own figures
	// rather than the tool's formulas applied to the file's requests.
	Stated bool
}

// A ComparisonRow is one metric in both conventions. A value that one side
// does not define is absent (its Has flag is false), never 0.
type ComparisonRow struct {
	Metric   string // what the row measures, with its unit
	Ours     float64
	HasOurs  bool
	Theirs   float64
	HasTheir bool
	Key      string // the tool's key for the figure
}

// comparePercentiles are the percentiles a comparison shows.
var comparePercentiles = []llmmetrics.Percentile{llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(99)}

// Compare summarizes the file's records under llmmetrics' conventions with
// opt (its Percentiles are set to p50 and p99) and puts the result beside
// the tool's own summary.
func Compare(f *File, opt llmmetrics.Options) (*Comparison, error) {
	if f.compare == nil {
		return nil, fmt.Errorf("%w (%s)", ErrNoRecords, f.Tool)
	}
	run, err := f.Records()
	if err != nil && !errors.Is(err, llmmetrics.ErrRejected) {
		return nil, err
	}
	opt.Percentiles = comparePercentiles
	opt.Notes = f.Notes
	s, err := run.Summarize(opt)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Tool: f.Tool, Method: opt.Method, Summary: s}
	if err := f.compare(c); err != nil {
		return nil, err
	}
	if n := s.Requests.Rejected; n > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Rejected records: %d records failed llmmetrics' validation (listed in its report) and are left out of its column; %s kept them.", n, f.Tool))
	}
	return c, nil
}

// row adds a row from a figure of ours and a key of the dialect.
func (c *Comparison) row(metric string, ours float64, hasOurs bool, d *Dialect, key string) {
	theirs, has := d.Lookup(key)
	c.Rows = append(c.Rows, ComparisonRow{Metric: metric, Ours: ours, HasOurs: hasOurs, Theirs: theirs, HasTheir: has, Key: key})
}

// distRows adds the mean, std, p50 and p99 rows of one metric, whose
// figures the tool reports in milliseconds.
func (c *Comparison) distRows(name string, d *llmmetrics.Distribution, dialect *Dialect, mean, std, p50, p99 string) {
	c.distRowsScaled(name, d, dialect, 1, mean, std, p50, p99)
}

// distRowsScaled is distRows for a tool that reports in milliseconds/scale
// (1000 for seconds). An empty key means the tool has no such figure.
func (c *Comparison) distRowsScaled(name string, d *llmmetrics.Distribution, dialect *Dialect, scale float64, mean, std, p50, p99 string) {
	ms := func(v time.Duration) float64 { return float64(v) / 1e6 }
	var m, sd, a, b float64
	ok := d != nil
	if ok {
		m, sd = ms(d.Mean), ms(d.Std)
		v50, _ := d.At(comparePercentiles[0])
		v99, _ := d.At(comparePercentiles[1])
		a, b = ms(v50), ms(v99)
	}
	for _, r := range []struct {
		stat string
		v    float64
		key  string
	}{{"mean", m, mean}, {"std", sd, std}, {"p50", a, p50}, {"p99", b, p99}} {
		theirs, has := dialect.Lookup(r.key)
		c.Rows = append(c.Rows, ComparisonRow{Metric: name + " " + r.stat + " (ms)", Ours: r.v, HasOurs: ok,
			Theirs: theirs * scale, HasTheir: has && r.key != "", Key: r.key})
	}
}

func (c *Comparison) throughputRows(d *Dialect, requests, output string) {
	s := c.Summary
	var rps, ops float64
	if t := s.Throughput; t != nil {
		rps, ops = float64(t.RequestsPerSecond), float64(t.OutputTokensPerSecond)
	}
	c.row("requests/s", rps, s.Throughput != nil, d, requests)
	if output != "" {
		c.row("output tokens/s", ops, s.Throughput != nil, d, output)
	}
}

func (c *Comparison) methodReason(theirs string) {
	if c.Method == llmmetrics.NearestRank {
		c.Reasons = append(c.Reasons, "Percentile method: llmmetrics takes the value at rank ⌈p·N/100⌉, a real request; "+
			theirs+" (--method linear removes this difference).")
	}
}

// WriteTable writes the comparison for people: one row per metric, a column
// for llmmetrics and one for the tool, and under it the reasons.
func (c *Comparison) WriteTable(w io.Writer) error {
	var b strings.Builder
	width := len("metric")
	for _, r := range c.Rows {
		width = max(width, len(r.Metric))
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	ours, theirs := fmt.Sprintf("llmmetrics (%s)", c.Method), string(c.Tool)
	if c.Sample != nil {
		ours = fmt.Sprintf("llmmetrics (%s; SAMPLE of %s)", c.Method, c.Sample)
	}
	if c.Stated {
		theirs += " (as the file states)"
	}
	fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s key\t\n", width, "metric", ours, theirs, c.Tool)
	cell := func(v float64, ok bool) string {
		if !ok {
			return "—"
		}
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	for _, r := range c.Rows {
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t\n", width, r.Metric, cell(r.Ours, r.HasOurs), cell(r.Theirs, r.HasTheir), r.Key)
	}
	tw.Flush()
	b.WriteString("\nwhy they differ:\n")
	for _, r := range c.Reasons {
		fmt.Fprintf(&b, "  - %s\n", r)
	}
	if len(c.Summary.Notes) > 0 {
		b.WriteString("\nwhat the file cannot tell:\n")
		for _, n := range c.Summary.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MarshalJSON writes the comparison as one object: the tool, the method,
// the rows (absent values are null) and the reasons.
func (c *Comparison) MarshalJSON() ([]byte, error) {
	type row struct {
		Metric     string   `json:"metric"`
		LLMMetrics *float64 `json:"llmmetrics"`
		Tool       *float64 `json:"tool"`
		ToolKey    string   `json:"tool_key"`
	}
	rows := make([]row, len(c.Rows))
	for i, r := range c.Rows {
		rows[i] = row{Metric: r.Metric, ToolKey: r.Key}
		if r.HasOurs {
			rows[i].LLMMetrics = &c.Rows[i].Ours
		}
		if r.HasTheir {
			rows[i].Tool = &c.Rows[i].Theirs
		}
	}
	type sample struct {
		Kept   int    `json:"kept"`
		Of     int    `json:"of"`
		Detail string `json:"detail"`
	}
	var smp *sample
	if c.Sample != nil {
		smp = &sample{c.Sample.Kept, c.Sample.Of, c.Sample.Detail}
	}
	column := ""
	if c.Stated {
		column = "stated by the file"
	}
	return json.Marshal(struct {
		Tool    Tool     `json:"tool"`
		Method  string   `json:"percentile_method"`
		Rows    []row    `json:"rows"`
		Reasons []string `json:"reasons"`
		Notes   []string `json:"notes"`
		// Sample: the llmmetrics column is recomputed from kept of the
		// file's requests; the tool's column is then stated by the file.
		Sample     *sample `json:"llmmetrics_sample,omitempty"`
		ToolColumn string  `json:"tool_column,omitempty"`
	}{c.Tool, c.Method.String(), rows, c.Reasons, c.Summary.Notes, smp, column})
}

// gapCount is the number of gaps llmmetrics pooled.
func gapCount(s *llmmetrics.Summary) int {
	if s.ITL == nil {
		return 0
	}
	return s.ITL.N
}

// basis is the basis of llmmetrics' pooled gaps, or "none".
func basis(s *llmmetrics.Summary) string {
	if s.ITL == nil {
		return "none"
	}
	return s.ITL.Basis.String()
}
