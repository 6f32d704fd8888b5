package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
	"github.com/llmmetrics/llmmetrics/charts"
	"github.com/llmmetrics/llmmetrics/compare"
	"github.com/llmmetrics/llmmetrics/server"
)

// pictures holds the flags that turn a report into charts, an HTML page
// or a percentile spectrum.
type pictures struct {
	plot, html, spectrum, timings *string
	labels                        list
}

// define declares the flags of command ("report", "diff" or "sweep"):
// --plot and --html for all three, --label where lines are named by file
// (report and diff), --spectrum and --timings for report.
func (p *pictures) define(fs *flag.FlagSet, command string) {
	p.plot = fs.String("plot", "", "write the charts as SVG and PNG files into `dir`")
	p.html = fs.String("html", "", "write one self-contained HTML `file` of the tables and charts (no network, no script)")
	if command != "sweep" {
		fs.Var(&p.labels, "label", "with --plot or --html: the `name` of a file's line in the charts, in the order of the files (repeatable; default the file's base name)")
	}
	none := ""
	p.spectrum, p.timings = &none, &none
	if command == "report" {
		p.spectrum = fs.String("spectrum", "", "print only the percentile spectrum of `metric` (ttft, tpot, e2e or max_gap) in HdrHistogram's layout, for plotting elsewhere")
		p.timings = fs.String("timings", "", "with --plot or --html: a timings `file` of the run (llmmetrics run --timings) for the TTFT decomposition chart")
	}
}

func (p *pictures) wanted() bool { return *p.plot != "" || *p.html != "" }

// seriesName names the i-th file's line in the charts: its --label, or
// its base name.
func (p *pictures) seriesName(i int, file string) string {
	if i < len(p.labels) {
		return p.labels[i]
	}
	return filepath.Base(file)
}

// drawn gathers the charts of a page, and the reasons of those left out.
type drawn struct {
	charts []charts.Chart
	notes  []string
}

// keep adds a chart, or the reason it could not be drawn: a chart is never
// a reason to fail the command whose figures are already printed.
func (d *drawn) keep(what string, c charts.Chart, err error) {
	if err != nil {
		d.notes = append(d.notes, fmt.Sprintf("%s: not drawn, %s", what, strings.TrimPrefix(err.Error(), "charts: ")))
		return
	}
	d.charts = append(d.charts, c)
}

// namedRun is one input file's run.
type namedRun struct {
	name string
	run  *llmmetrics.Run
	// file, for a file merged in bounded memory, is what the first pass
	// found of it; its run then holds no record (boundedmerge.go), and
	// head its first batch's.
	file *bounded.File
	head []llmmetrics.Record
}

// marked returns the run's records with the summary's warm-up cut applied.
func marked(r namedRun, s *llmmetrics.Summary) []llmmetrics.Record {
	if s.Warmup != nil {
		return s.Warmup.Apply(r.run.Records)
	}
	return r.run.Records
}

// writeSpectrum prints the spectrum of a metric over the measured ok
// requests of the runs.
func writeSpectrum(w io.Writer, metric string, runs []namedRun, s *llmmetrics.Summary) error {
	if m, ok := metricOf(metric); !ok || !m.PerRequest {
		return fmt.Errorf("%w: --spectrum %q: want %s", errUsage, metric, metricKeys(func(m llmmetrics.Metric) bool { return m.PerRequest }))
	}
	var xs []time.Duration
	for _, r := range runs {
		xs = append(xs, charts.Samples(marked(r, s), metric)...)
	}
	if len(xs) == 0 {
		return fmt.Errorf("--spectrum %s: no ok request has a %s", metric, metric)
	}
	fmt.Fprintf(w, "# llmmetrics %s spectrum over %d ok requests, ms\n", metric, len(xs))
	return compare.WriteSpectrum(w, xs)
}

// reportCharts draws a report's charts: the CDFs and the percentile
// spectra (a line per file), the gaps, the timeline of the first file, and
// the decomposition where timings were given. A chart that cannot be drawn
// is left out with its reason.
func (p *pictures) reportCharts(runs []namedRun, s *llmmetrics.Summary) (drawn, error) {
	var d drawn
	window := "window not derived"
	if t := s.Throughput; t != nil {
		window = fmt.Sprintf("window %.3f s", t.Window.Length.Seconds())
	}
	if len(runs) == 0 {
		return d, nil
	}
	// Each run's records with the warm-up cut applied, once.
	recs := make([][]llmmetrics.Record, len(runs))
	var all []llmmetrics.Record
	for i, r := range runs {
		recs[i] = marked(r, s)
		all = append(all, recs[i]...)
	}
	for _, metric := range headlineKeys() {
		var series []charts.Series
		for i, r := range runs {
			series = append(series, charts.Series{Name: p.seriesName(i, r.name), Values: charts.Samples(recs[i], metric)})
		}
		c, err := charts.LatencyCDF(metric, series, s.Method, window)
		d.keep(metric+" distribution", c, err)
		c, err = charts.Spectrum(metric, series, s.Method, s.Percentiles, window)
		d.keep(metric+" spectrum", c, err)
	}
	c, err := charts.GapHistogram(charts.Gaps(all), window)
	d.keep("gap distribution", c, err)
	var cut *time.Duration
	if s.Warmup != nil && s.Requests.Warmup > 0 {
		cut = &s.Warmup.Start
	}
	first := runs[0]
	caption := fmt.Sprintf("%s: %d requests, each a bar from its send to its last text chunk (a tick without text), coloured by outcome; the black step line counts the ok requests in flight", p.seriesName(0, first.name), len(first.run.Records))
	// Without send times there is no timeline (see workload.arrivals in
	// the summary's absent figures): bars all starting at 0 would be made up.
	if first.run.NoSendTimes {
		d.notes = append(d.notes, "timeline: not drawn, the records carry no send times")
	} else {
		c, err = charts.Timeline(charts.TimelineOf(recs[0], cut), caption)
		d.keep("timeline", c, err)
	}
	if *p.timings != "" {
		stacks, caption, err := decompositionStacks(all, *p.timings)
		if err != nil {
			return d, err
		}
		c, err := charts.Decomposition(stacks, caption)
		d.keep("decomposition", c, err)
	}
	return d, nil
}

// decompositionStacks decomposes the TTFT of the median request and of
// the slowest, by client TTFT among those with server timings, and adds
// each one's decode (E2E − TTFT).
func decompositionStacks(recs []llmmetrics.Record, timingsPath string) ([]charts.Stack, string, error) {
	timings, err := readTimings(timingsPath)
	if err != nil {
		return nil, "", err
	}
	rep := server.DecomposeAll(recs, timings, nil)
	if len(rep.Rows) == 0 {
		return nil, "", nil
	}
	rows := slices.Clone(rep.Rows)
	slices.SortStableFunc(rows, func(a, b server.Decomposition) int { return int(min(max(a.ClientTTFT-b.ClientTTFT, -1), 1)) })
	byID := map[string]*llmmetrics.Record{}
	for i := range recs {
		byID[recs[i].ID] = &recs[i]
	}
	unknown := map[string]bool{}
	stack := func(label string, d server.Decomposition) charts.Stack {
		st := charts.Stack{Label: fmt.Sprintf("%s (%s)", label, d.ID)}
		for _, p := range []struct {
			name string
			v    *time.Duration
		}{{"queue", d.Queue}, {"prefill", d.Prefill}, {"residual", d.Residual}, {"client overhead", d.ClientOverhead}} {
			if p.v == nil {
				unknown[p.name] = true
				continue
			}
			st.Parts = append(st.Parts, charts.Part{Name: p.name, Value: *p.v})
		}
		if r := byID[d.ID]; r != nil {
			if e2e, err := r.E2E(); err == nil {
				st.Parts = append(st.Parts, charts.Part{Name: "decode (E2E − TTFT)", Value: e2e - d.ClientTTFT})
			}
		}
		return st
	}
	median := rows[(len(rows)-1)/2]
	stacks := []charts.Stack{stack("median request", median)}
	if slowest := rows[len(rows)-1]; slowest.ID != median.ID {
		stacks = append(stacks, stack("slowest request", slowest))
	}
	caption := "ms; client TTFT = queue + prefill + residual + client overhead, by the server's per-request timings, then the decode"
	var names []string
	for _, n := range []string{"queue", "prefill", "residual", "client overhead"} {
		if unknown[n] {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		caption += fmt.Sprintf("; unknown, so not drawn: %v", names)
	}
	return stacks, caption, nil
}

// write writes the charts into --plot's directory (with a file naming
// the charts left out, if any) and the page to --html's file.
func (p *pictures) write(page charts.Page, d drawn) error {
	if *p.plot != "" {
		for _, c := range d.charts {
			if _, err := c.WriteFiles(*p.plot); err != nil {
				return err
			}
		}
		if len(d.notes) > 0 {
			text := "Charts not drawn:\n- " + strings.Join(d.notes, "\n- ") + "\n"
			if err := os.WriteFile(filepath.Join(*p.plot, "not_drawn.txt"), []byte(text), 0o644); err != nil {
				return err
			}
		}
	}
	if *p.html != "" {
		var b bytes.Buffer
		if err := charts.WriteHTML(&b, page); err != nil {
			return err
		}
		return os.WriteFile(*p.html, b.Bytes(), 0o644)
	}
	return nil
}

// writeReport writes a report's charts and page, with --plot or --html.
func (p *pictures) writeReport(title string, s *llmmetrics.Summary, runs []namedRun) error {
	d, err := p.reportCharts(runs, s)
	if err != nil {
		return err
	}
	return p.write(charts.ReportPage(title, s, d.charts, d.notes), d)
}

// sweepCharts draws a sweep's charts: TTFT and TPOT against the level,
// output tokens/s against p99 TTFT and E2E with the SLO and the capacity
// bracket, and the attainment.
func sweepCharts(sw *compare.Sweep, c *compare.Capacity) drawn {
	var d drawn
	ch, err := charts.SweepLatency(sw, "ttft")
	d.keep("TTFT by level", ch, err)
	ch, err = charts.SweepLatency(sw, "tpot")
	d.keep("TPOT by level", ch, err)
	ch, err = charts.ThroughputLatencyCurve(sw, "ttft p99", c)
	d.keep("throughput against TTFT p99", ch, err)
	ch, err = charts.ThroughputLatencyCurve(sw, "e2e p99", c)
	d.keep("throughput against E2E p99", ch, err)
	ch, err = charts.Attainment(sw, c)
	d.keep("attainment", ch, err)
	return d
}

// writeSweep writes a sweep's charts and page, with --plot or --html.
func (p *pictures) writeSweep(sw *compare.Sweep, c *compare.Capacity, runs int, notes []string) error {
	d := sweepCharts(sw, c)
	return p.write(charts.SweepPage(fmt.Sprintf("llmmetrics sweep: %d runs", runs), sw, c, d.charts, notes, d.notes), d)
}

// writeDiff writes a diff's charts and page, with --plot or --html: for
// each latency metric, the percentile spectra of A and B overlaid, each
// side's runs pooled.
func (p *pictures) writeDiff(sides [2][]*llmmetrics.Run, names [2]string, opt llmmetrics.Options, diff *compare.Diff) error {
	if !p.wanted() {
		return nil
	}
	var table bytes.Buffer
	if err := diff.WriteTable(&table); err != nil {
		return err
	}
	text := table.String()
	var d drawn
	for _, metric := range headlineKeys() {
		var series []charts.Series
		for k, side := range sides {
			var xs []time.Duration
			for _, run := range side {
				recs := run.Records
				if opt.Warmup != nil {
					if s, err := run.Summarize(opt); err == nil && s.Warmup != nil {
						recs = s.Warmup.Apply(recs)
					}
				}
				xs = append(xs, charts.Samples(recs, metric)...)
			}
			name := p.seriesName(k, names[k])
			series = append(series, charts.Series{Name: []string{"A: ", "B: "}[k] + name, Values: xs})
		}
		ps := opt.Percentiles
		if ps == nil {
			ps = llmmetrics.DefaultPercentiles
		}
		c, err := charts.Spectrum(metric, series, opt.Method, ps, "each side's runs pooled")
		if err == nil {
			c.Name = "diff_" + c.Name
			c.Title = "A against B: " + c.Title
		}
		d.keep(metric+" spectra", c, err)
	}
	page := charts.Page{Title: "llmmetrics diff: A = " + names[0] + ", B = " + names[1], Sections: []charts.Section{
		{Heading: "Figures", Text: text},
		{Heading: "Latency", Charts: d.charts},
		{Heading: "Notes", Paragraphs: d.notes},
	}}
	return p.write(page, d)
}
