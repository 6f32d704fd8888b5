package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// A Prometheus reads windows from a Prometheus server's HTTP query API,
// for a fleet whose server metrics are already collected there.
type Prometheus struct {
	URL    string       // the server's base URL, such as http://127.0.0.1:9090
	Client *http.Client // nil means http.DefaultClient
}

// Window reads the window [start, end] of the vLLM series sel picks. It
// takes the instant value of every vllm: series (and
// process_start_time_seconds) at start and at end and computes the window
// from the two exactly as Diff does from two scrapes, so that the two
// paths give the same figures; PromQL's increase() is not used, because it
// extrapolates to the window's edges. In addition it asks Prometheus for
// resets() over the window, which sees a restart that the two end points
// alone would hide.
func (p *Prometheus) Window(ctx context.Context, start, end time.Time, sel Selector) (*Window, error) {
	if !end.After(start) {
		return nil, fmt.Errorf("%w: %v to %v", ErrWindow, start, end)
	}
	match := `{__name__=~"vllm:.+|process_start_time_seconds"` + sel.promql() + `}`
	before, err := p.snapshot(ctx, match, start)
	if err != nil {
		return nil, err
	}
	after, err := p.snapshot(ctx, match, end)
	if err != nil {
		return nil, err
	}
	w, err := Diff(before, after, end.Sub(start), sel)
	if err != nil {
		return nil, err
	}
	secs := strconv.FormatInt(int64(math.Ceil(end.Sub(start).Seconds())), 10)
	for _, short := range slices.Sorted(maps.Keys(w.Counters)) {
		name := w.Counters[short].Name
		res, err := p.query(ctx, "sum(resets("+name+"{"+strings.TrimPrefix(sel.promql(), ",")+"}["+secs+"s]))", end)
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			if v, _ := r.value(); v > 0 {
				return nil, fmt.Errorf("%w: Prometheus saw %v resets of %s inside the window", ErrCounterReset, v, name)
			}
		}
	}
	return w, nil
}

// Quantile asks Prometheus itself for histogram_quantile(q, …) of a
// histogram over the window, from the difference of its buckets at end and
// start (the same data Window uses), so that this package's quantiles can
// be checked against PromQL's.
func (p *Prometheus) Quantile(ctx context.Context, histogram string, q float64, start, end time.Time, sel Selector) (float64, error) {
	// The offset is the window's exact length in milliseconds (the
	// precision of Prometheus' timestamps): rounded to seconds, it could
	// land on a sample before the window's start when scrapes jitter.
	ms := end.Sub(start).Milliseconds()
	b := histogram + "_bucket{" + strings.TrimPrefix(sel.promql(), ",") + "}"
	expr := fmt.Sprintf("histogram_quantile(%g, sum by (le) (%s - %s offset %dms))", q, b, b, ms)
	res, err := p.query(ctx, expr, end)
	if err != nil {
		return 0, err
	}
	if len(res) != 1 {
		return 0, fmt.Errorf("%w: %s returned %d series", ErrMissing, expr, len(res))
	}
	return res[0].value()
}

// promql renders the selector as PromQL label matchers, each preceded by a
// comma.
func (sel Selector) promql() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		fmt.Fprintf(&b, ",%s=%q", k, sel[k])
	}
	return b.String()
}

type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

func (s sample) value() (float64, error) {
	str, ok := s.Value[1].(string)
	if !ok {
		return 0, fmt.Errorf("%w: a sample value that is not a string", ErrScrape)
	}
	return strconv.ParseFloat(str, 64)
}

// query runs an instant query at t.
func (p *Prometheus) query(ctx context.Context, expr string, t time.Time) ([]sample, error) {
	u := strings.TrimSuffix(p.URL, "/") + "/api/v1/query?" + url.Values{
		"query": {expr}, "time": {strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)},
	}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	c := p.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("server: querying Prometheus: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string   `json:"resultType"`
			Result     []sample `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("%w: Prometheus answered %s: %v", ErrScrape, resp.Status, err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("%w: Prometheus: %s", ErrScrape, r.Error)
	}
	if r.Data.ResultType != "vector" {
		return nil, fmt.Errorf("%w: Prometheus returned a %s, want a vector", ErrScrape, r.Data.ResultType)
	}
	return r.Data.Result, nil
}

// snapshot reads the instant values of the matched series at t as a
// Scrape: series named *_bucket, *_sum and *_count with a *_bucket sibling
// form histograms; *_total are counters; the rest are gauges.
func (p *Prometheus) snapshot(ctx context.Context, match string, t time.Time) (*Scrape, error) {
	res, err := p.query(ctx, match, t)
	if err != nil {
		return nil, err
	}
	hist := map[string]bool{}
	for _, s := range res {
		if n, ok := strings.CutSuffix(s.Metric["__name__"], "_bucket"); ok {
			hist[n] = true
		}
	}
	fams := map[string]*dto.MetricFamily{}
	family := func(name string, typ dto.MetricType) *dto.MetricFamily {
		f, ok := fams[name]
		if !ok {
			f = &dto.MetricFamily{Name: proto.String(name), Type: typ.Enum()}
			fams[name] = f
		}
		return f
	}
	hseries := map[string]*dto.Metric{} // histogram series by name and labels
	for _, s := range res {
		name := s.Metric["__name__"]
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		var labels []*dto.LabelPair
		le := ""
		for _, k := range slices.Sorted(maps.Keys(s.Metric)) {
			switch k {
			case "__name__":
			case "le":
				le = s.Metric[k]
			default:
				labels = append(labels, &dto.LabelPair{Name: proto.String(k), Value: proto.String(s.Metric[k])})
			}
		}
		base, part := histogramPart(name, hist)
		if part != "" {
			key := base + seriesKey(&dto.Metric{Label: labels})
			m, ok := hseries[key]
			if !ok {
				m = &dto.Metric{Label: labels, Histogram: &dto.Histogram{}}
				hseries[key] = m
				f := family(base, dto.MetricType_HISTOGRAM)
				f.Metric = append(f.Metric, m)
			}
			switch part {
			case "bucket":
				ub, err := strconv.ParseFloat(le, 64)
				if err != nil {
					return nil, fmt.Errorf("%w: %s le=%q", ErrScrape, name, le)
				}
				m.Histogram.Bucket = append(m.Histogram.Bucket, &dto.Bucket{UpperBound: proto.Float64(ub), CumulativeCountFloat: proto.Float64(v)})
			case "sum":
				m.Histogram.SampleSum = proto.Float64(v)
			case "count":
				m.Histogram.SampleCountFloat = proto.Float64(v)
			}
			continue
		}
		m := &dto.Metric{Label: labels}
		switch {
		case strings.HasSuffix(name, "_total"):
			m.Counter = &dto.Counter{Value: proto.Float64(v)}
			f := family(name, dto.MetricType_COUNTER)
			f.Metric = append(f.Metric, m)
		default:
			m.Gauge = &dto.Gauge{Value: proto.Float64(v)}
			f := family(name, dto.MetricType_GAUGE)
			f.Metric = append(f.Metric, m)
		}
	}
	for _, m := range hseries {
		slices.SortFunc(m.Histogram.Bucket, func(a, b *dto.Bucket) int {
			switch {
			case a.GetUpperBound() < b.GetUpperBound():
				return -1
			case a.GetUpperBound() > b.GetUpperBound():
				return 1
			}
			return 0
		})
	}
	return &Scrape{families: fams}, nil
}

// histogramPart splits a histogram's series name into the histogram's name
// and the part (bucket, sum or count), or returns "" for another series.
func histogramPart(name string, hist map[string]bool) (string, string) {
	for _, part := range []string{"bucket", "sum", "count"} {
		if base, ok := strings.CutSuffix(name, "_"+part); ok && hist[base] {
			return base, part
		}
	}
	return "", ""
}
