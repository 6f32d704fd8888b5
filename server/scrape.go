// Package server reads the server side of an LLM serving run from two
// Prometheus scrapes of a vLLM server: counter deltas and rates over the
// window between them, histogram deltas with PromQL's histogram_quantile,
// and the known-output check that compares the server's token counter with
// the tokens the client received. Every figure it produces is a server
// figure: an aggregate over the window that cannot be joined to client
// records, and that never mixes with client figures.
//
// It is a module of its own, so that importers of the llmmetrics library do
// not carry its Prometheus parser (github.com/prometheus/common/expfmt).
package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sentinel errors. Errors of this package wrap one of them.
var (
	// ErrScrape means a scrape could not be parsed.
	ErrScrape = errors.New("server: bad scrape")
	// ErrCounterReset means a counter decreased between the scrapes, or the
	// process or a series was recreated: the server restarted, which
	// invalidates the latency run too.
	ErrCounterReset = errors.New("server: counter reset or restart between the scrapes")
	// ErrSeriesMismatch means a series is present in only one scrape.
	ErrSeriesMismatch = errors.New("server: series present in only one scrape")
	// ErrBucketMismatch means a histogram's bucket layout changed between
	// the scrapes.
	ErrBucketMismatch = errors.New("server: histogram bucket layout changed")
	// ErrNoFiniteBuckets means a histogram has fewer than two finite
	// buckets, so no quantile can be interpolated.
	ErrNoFiniteBuckets = errors.New("server: fewer than two finite buckets")
	// ErrNoSamples means a histogram observed nothing in the window.
	ErrNoSamples = errors.New("server: no observations in the window")
	// ErrNotACounter means a rate was asked of a metric that is not a
	// counter; the error says what the metric is.
	ErrNotACounter = errors.New("server: not a counter")
	// ErrMissing means a metric the caller asked for is in neither scrape.
	ErrMissing = errors.New("server: metric not in the scrapes")
	// ErrWindow means a window of zero or negative length.
	ErrWindow = errors.New("server: window of zero or negative length")
	// ErrSelector means a label selector that cannot be parsed.
	ErrSelector = errors.New("server: bad label selector")
)

// A Scrape is one parsed Prometheus text exposition of a server.
type Scrape struct {
	families map[string]*dto.MetricFamily
}

// ParseScrape parses a scrape in the Prometheus text format (version
// 0.0.4), the format vLLM's /metrics serves, with the well-kept parser of
// github.com/prometheus/common, or in the OpenMetrics text format (a scrape
// that ends in "# EOF"), whose counters and _created series it reads too.
// The first malformed line fails the whole scrape, with its line number.
func ParseScrape(r io.Reader) (*Scrape, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrScrape, err)
	}
	if isOpenMetrics(b) {
		if b, err = openMetricsToText(b); err != nil {
			return nil, err
		}
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrScrape, err)
	}
	return &Scrape{families: fams}, nil
}

// Names returns the metric family names of the scrape, sorted.
func (s *Scrape) Names() []string {
	names := make([]string, 0, len(s.families))
	for n := range s.families {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// A Selector picks series by exact label values, such as
// model_name="Qwen/Qwen2.5-3B-Instruct"; the empty Selector picks every
// series.
type Selector map[string]string

// ParseSelector parses "name=value,name=value" (values may be quoted).
func ParseSelector(s string) (Selector, error) {
	sel := Selector{}
	if strings.TrimSpace(s) == "" {
		return sel, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: %q is not name=value", ErrSelector, part)
		}
		if _, dup := sel[k]; dup {
			return nil, fmt.Errorf("%w: %s given twice", ErrSelector, k)
		}
		sel[k] = strings.Trim(strings.TrimSpace(v), `"`)
	}
	return sel, nil
}

func (sel Selector) matches(m *dto.Metric) bool {
	for k, v := range sel {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == k {
				found = l.GetValue() == v
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// seriesKey names a series by its labels, sorted; le and quantile are not
// part of a histogram's or summary's series.
func seriesKey(m *dto.Metric) string {
	var parts []string
	for _, l := range m.GetLabel() {
		parts = append(parts, l.GetName()+"="+fmt.Sprintf("%q", l.GetValue()))
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

// gauge returns the value of an unlabelled (or first) sample of a gauge
// family, if the scrape has it.
func (s *Scrape) gauge(name string) (float64, bool) {
	f, ok := s.families[name]
	if !ok || len(f.GetMetric()) == 0 {
		return 0, false
	}
	m := f.GetMetric()[0]
	switch {
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue(), true
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue(), true
	}
	return 0, false
}
