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
	"maps"
	"math"
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
	// ErrNoFiniteBuckets means a histogram has no finite bucket, so no
	// quantile can be interpolated (PromQL returns NaN).
	ErrNoFiniteBuckets = errors.New("server: no finite bucket")
	// ErrQuantileRange means a quantile outside [0, 1], or NaN (PromQL
	// returns −Inf, +Inf or NaN).
	ErrQuantileRange = errors.New("server: quantile outside [0, 1]")
	// ErrQuantileUndefined means the 0-quantile of a histogram whose
	// lowest bucket is empty and has a positive bound: PromQL computes 0/0
	// there and returns NaN.
	ErrQuantileUndefined = errors.New("server: quantile undefined")
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
	// ErrBadValue means a counter or histogram value in a scrape that is
	// NaN, infinite, or a negative count.
	ErrBadValue = errors.New("server: bad value in a scrape")
	// ErrNoSeries means the scrapes hold no counter or histogram series that
	// the selector picks: a selector that matches nothing, or empty scrapes.
	ErrNoSeries = errors.New("server: no series picked")
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
	for _, name := range slices.Sorted(maps.Keys(fams)) {
		if err := checkFamily(fams[name]); err != nil {
			return nil, err
		}
	}
	return &Scrape{families: fams}, nil
}

// checkFamily refuses what the parser accepts but a window cannot use: a
// series that appears twice in one scrape (the parser keeps both, and
// which one a window used would be chance), and a counter or histogram
// value that is NaN or infinite, or a counter or count that is negative.
func checkFamily(f *dto.MetricFamily) error {
	seen := map[string]bool{}
	for _, m := range f.GetMetric() {
		series := f.GetName() + seriesKey(m)
		if seen[series] {
			return fmt.Errorf("%w: series %s appears twice in one scrape", ErrScrape, series)
		}
		seen[series] = true
		bad := func(field string, v float64, nonNegative bool) error {
			if math.IsNaN(v) || math.IsInf(v, 0) || nonNegative && v < 0 {
				return fmt.Errorf("%w: series %s: %s is %v", ErrBadValue, series, field, v)
			}
			return nil
		}
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			if err := bad("the counter", m.GetCounter().GetValue(), true); err != nil {
				return err
			}
		case dto.MetricType_HISTOGRAM:
			h := m.GetHistogram()
			if err := bad("_sum", h.GetSampleSum(), false); err != nil {
				return err
			}
			if err := bad("_count", float64(h.GetSampleCount())+h.GetSampleCountFloat(), true); err != nil {
				return err
			}
			for _, bk := range h.GetBucket() {
				field := fmt.Sprintf("bucket le=%q", fmt.Sprint(bk.GetUpperBound()))
				if math.IsNaN(bk.GetUpperBound()) {
					return fmt.Errorf("%w: series %s: a bucket's le is NaN", ErrBadValue, series)
				}
				if err := bad(field, float64(bk.GetCumulativeCount())+bk.GetCumulativeCountFloat(), true); err != nil {
					return err
				}
			}
		}
	}
	return nil
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

// String writes the selector as ParseSelector reads it, names sorted:
// model_name="a",engine="0".
func (sel Selector) String() string {
	parts := make([]string, 0, len(sel))
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, sel[k]))
	}
	return strings.Join(parts, ",")
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
