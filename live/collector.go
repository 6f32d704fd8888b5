package live

import (
	"github.com/prometheus/client_golang/prometheus"
)

// A Collector exports a Recorder's cumulative figures to Prometheus under
// the same names and labels as PrometheusSink, computed at each scrape
// from the recorder's own sharded state: recording touches no state shared
// between goroutines, so its cost does not grow with the cores recording
// at once (PrometheusSink's histograms are shared atomic counters). It
// exports classic buckets, at the recorder's Options.Buckets, and native
// ones too with Options.NativeHistograms.
type Collector struct {
	rec                                                       *Recorder
	hists                                                     [numHists]*prometheus.Desc
	requests, outputTokens, promptTokens, good, judged, basis *prometheus.Desc
	noCount, overflow, inFlight                               *prometheus.Desc
}

// NewCollector returns a Collector of rec, to register with a
// prometheus.Registerer.
func NewCollector(rec *Recorder) *Collector {
	c := &Collector{rec: rec}
	keyLabels := promNames(keyAttrs...)
	desc := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append(append([]string{}, keyLabels...), extra...), nil)
	}
	tokens := desc(histNames[histInput][0], histNames[histInput][1], promName(attrTokenType))
	for h, n := range histNames {
		switch h {
		case histInput, histOutput:
			c.hists[h] = tokens
		case histDuration:
			c.hists[h] = desc(n[0], n[1], promName(attrErrorType))
		default:
			c.hists[h] = desc(n[0], n[1])
		}
	}
	metric := func(m promMetric) *prometheus.Desc {
		if m.bare {
			return prometheus.NewDesc(m.name, m.help, nil, nil)
		}
		return desc(m.name, m.help, m.labels...)
	}
	c.requests, c.outputTokens, c.promptTokens = metric(requestsCounter), metric(outputTokensCounter), metric(promptTokensCounter)
	c.good, c.judged, c.basis = metric(goodCounter), metric(judgedCounter), metric(basisCounter)
	c.noCount, c.overflow, c.inFlight = metric(noCountCounter), metric(overflowCounter), metric(inFlightGauge)
	return c
}

// Describe sends the descriptions of every metric.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for h, d := range c.hists {
		if h != histOutput {
			ch <- d
		}
	}
	for _, d := range []*prometheus.Desc{c.requests, c.outputTokens, c.promptTokens, c.good, c.judged, c.basis, c.noCount, c.overflow, c.inFlight} {
		ch <- d
	}
}

// Collect sends every label set's cumulative figures, and the recorder's
// overflow count and calls in flight.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.overflow, prometheus.CounterValue, float64(c.rec.Overflowed()))
	ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(c.rec.InFlight()))
	for _, s := range c.rec.Snapshots(false) {
		l := s.Key.labels()
		with := func(extra ...string) []string { return append(append([]string{}, l...), extra...) }
		for h, d := range c.hists {
			cum, n := s.hist[h].cumulative(s.bounds[h])
			labels := l
			switch h {
			case histInput:
				labels = with("input")
			case histOutput:
				labels = with("output")
			case histDuration:
				labels = with("")
			}
			if s.native != nil {
				ch <- newMixedHistogram(d, n, s.hist[h].sum, cum, &s.native[h], labels...)
				continue
			}
			ch <- prometheus.MustNewConstHistogram(d, n, s.hist[h].sum, cum, labels...)
		}
		for t, f := range s.fails {
			cum, n := f.dur.cumulative(s.bounds[histDuration])
			ch <- prometheus.MustNewConstHistogram(c.hists[histDuration], n, f.dur.sum, cum, with(t)...)
		}
		for _, t := range statusErrorTypes {
			if s.fails[t] == nil {
				cum, _ := (&buckets{counts: make([]uint64, len(s.bounds[histDuration])+1)}).cumulative(s.bounds[histDuration])
				ch <- prometheus.MustNewConstHistogram(c.hists[histDuration], 0, 0, cum, with(t)...)
			}
		}
		k := s.Counts
		counter := func(d *prometheus.Desc, v int64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
		}
		noCount := k.NoUsage + k.ZeroUsage + k.BelowChunks
		counter(c.requests, k.OK-noCount, with(string(OutcomeOK), "")...)
		counter(c.requests, noCount, with(string(OutcomeNoCount), "")...)
		counter(c.requests, k.ZeroToken, with(string(OutcomeZeroToken), "")...)
		counter(c.requests, k.Rejected, with(string(OutcomeRejected), "")...)
		counter(c.requests, k.Warmup, with(string(OutcomeWarmup), "")...)
		for t, f := range s.fails {
			counter(c.requests, f.n, with(string(OutcomeFailed), t)...)
		}
		for _, t := range statusErrorTypes {
			if s.fails[t] == nil { // exported at zero from the start, as the sink does
				counter(c.requests, 0, with(string(OutcomeFailed), t)...)
			}
		}
		counter(c.outputTokens, k.OutputTokens, l...)
		counter(c.promptTokens, k.PromptTokens, l...)
		counter(c.good, k.Good, l...)
		counter(c.judged, k.Judged, l...)
		counter(c.basis, k.TokenBasis, with("token")...)
		counter(c.basis, k.ChunkBasis, with("chunk")...)
		for i, v := range [...]int64{k.NoUsage, k.ZeroUsage, k.BelowChunks} {
			counter(c.noCount, v, with(reasons[i])...)
		}
	}
}
