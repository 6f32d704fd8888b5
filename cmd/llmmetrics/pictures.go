package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/charts"
	"github.com/llmmetrics/llmmetrics/compare"
	"github.com/llmmetrics/llmmetrics/server"
)

// pictures holds the flags that turn a report into charts, an HTML page
// or a percentile spectrum.
type pictures struct {
	plot, html, spectrum, timings *string
}

func (p *pictures) define(fs *flag.FlagSet, withReport bool) {
	p.plot = fs.String("plot", "", "write the charts as SVG and PNG files into `dir`")
	p.html = fs.String("html", "", "write one self-contained HTML `file` of the tables and charts (no network, no script)")
	none := ""
	p.spectrum, p.timings = &none, &none
	if withReport {
		p.spectrum = fs.String("spectrum", "", "print only the percentile spectrum of `metric` (ttft, tpot, e2e or max_gap) in HdrHistogram's layout, for plotting elsewhere")
		p.timings = fs.String("timings", "", "with --plot or --html: a timings `file` of the run (llmmetrics run --timings) for the TTFT decomposition chart")
	}
}

func (p *pictures) wanted() bool { return *p.plot != "" || *p.html != "" }

// namedRun is one input file's run.
type namedRun struct {
	name string
	run  *llmmetrics.Run
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
	switch metric {
	case "ttft", "tpot", "e2e", "max_gap":
	default:
		return fmt.Errorf("%w: --spectrum %q: want ttft, tpot, e2e or max_gap", errUsage, metric)
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

// reportCharts draws a report's charts: the CDFs (a line per file), the
// gaps, the timeline of the first file, and the decomposition where
// timings were given. A chart without data is left out.
func reportCharts(runs []namedRun, s *llmmetrics.Summary, timingsPath string) ([]charts.Chart, error) {
	window := "window not derived"
	if t := s.Throughput; t != nil {
		window = fmt.Sprintf("window %.3f s", t.Window.Length.Seconds())
	}
	var out []charts.Chart
	keep := func(c charts.Chart, err error) error {
		switch {
		case errors.Is(err, charts.ErrNoData):
			return nil
		case err != nil:
			return err
		}
		out = append(out, c)
		return nil
	}
	// Each run's records with the warm-up cut applied, once.
	recs := make([][]llmmetrics.Record, len(runs))
	var all []llmmetrics.Record
	for i, r := range runs {
		recs[i] = marked(r, s)
		all = append(all, recs[i]...)
	}
	for _, metric := range []string{"ttft", "tpot", "e2e"} {
		var series []charts.Series
		for i, r := range runs {
			series = append(series, charts.Series{Name: r.name, Values: charts.Samples(recs[i], metric)})
		}
		if err := keep(charts.LatencyCDF(metric, series, s.Method, window)); err != nil {
			return nil, err
		}
	}
	if err := keep(charts.GapHistogram(charts.Gaps(all), window)); err != nil {
		return nil, err
	}
	var cut *time.Duration
	if s.Warmup != nil && s.Requests.Warmup > 0 {
		cut = &s.Warmup.Start
	}
	first := runs[0]
	caption := fmt.Sprintf("%s: %d requests, bars from send to last text chunk", first.name, len(first.run.Records))
	// Without send times there is no timeline (see workload.arrivals in
	// the summary's absent figures): bars all starting at 0 would be made up.
	if !first.run.NoSendTimes {
		if err := keep(charts.Timeline(charts.TimelineOf(recs[0], cut), caption)); err != nil {
			return nil, err
		}
	}
	if timingsPath != "" {
		stacks, caption, err := decompositionStacks(all, timingsPath)
		if err != nil {
			return nil, err
		}
		if err := keep(charts.Decomposition(stacks, caption)); err != nil {
			return nil, err
		}
	}
	return out, nil
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

// writePictures writes the charts into --plot's directory and the page to
// --html's file.
func (p *pictures) write(title, text string, cs []charts.Chart) error {
	if *p.plot != "" {
		for _, c := range cs {
			if _, err := c.WriteFiles(*p.plot); err != nil {
				return err
			}
		}
	}
	if *p.html != "" {
		var b bytes.Buffer
		page := charts.Page{Title: title, Sections: []charts.Section{{Heading: "Figures", Text: text, Charts: cs}}}
		if err := charts.WriteHTML(&b, page); err != nil {
			return err
		}
		return os.WriteFile(*p.html, b.Bytes(), 0o644)
	}
	return nil
}

// sweepCharts draws a sweep's charts.
func sweepCharts(sw *compare.Sweep, c *compare.Capacity) ([]charts.Chart, error) {
	var out []charts.Chart
	for _, draw := range []func() (charts.Chart, error){
		func() (charts.Chart, error) { return charts.SweepLatency(sw, "ttft") },
		func() (charts.Chart, error) { return charts.SweepLatency(sw, "tpot") },
		func() (charts.Chart, error) { return charts.ThroughputLatencyCurve(sw, "e2e p99") },
		func() (charts.Chart, error) { return charts.Attainment(sw, c) },
	} {
		ch, err := draw()
		switch {
		case errors.Is(err, charts.ErrNoData):
			continue
		case err != nil:
			return nil, err
		}
		out = append(out, ch)
	}
	return out, nil
}
