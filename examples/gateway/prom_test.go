package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// prom queries a Prometheus over its HTTP API with every query evaluated
// at one time, at (now when zero), so that the answers are of one moment,
// which a failure message can name.
type prom struct {
	base string
	at   time.Time
}

// query runs expr and decodes its result into out.
func (p prom) query(expr string, out any) error {
	q := url.Values{"query": {expr}}
	if !p.at.IsZero() {
		q.Set("time", strconv.FormatFloat(float64(p.at.UnixMilli())/1000, 'f', 3, 64))
	}
	resp, err := http.Get(p.base + "/api/v1/query?" + q.Encode())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("%s: %s: %w", expr, resp.Status, err)
	}
	if r.Status != "success" {
		return fmt.Errorf("%s: %s: %s", expr, resp.Status, r.Error)
	}
	return json.Unmarshal(r.Data, out)
}

// vector runs an instant query and returns its results by the value of
// one label ("" for the whole).
func (p prom) vector(expr, by string) (map[string]float64, error) {
	var d struct {
		Result []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	}
	if err := p.query(expr, &d); err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range d.Result {
		v, _ := strconv.ParseFloat(fmt.Sprint(s.Value[1]), 64)
		out[s.Metric[by]] = v
	}
	return out, nil
}

// samples runs a range selector of one series and returns its samples by
// their time in milliseconds.
func (p prom) samples(expr string) (map[int64]float64, error) {
	var d struct {
		Result []struct {
			Values [][2]any `json:"values"`
		} `json:"result"`
	}
	if err := p.query(expr, &d); err != nil {
		return nil, err
	}
	if len(d.Result) > 1 {
		return nil, fmt.Errorf("%s: %d series, not one", expr, len(d.Result))
	}
	out := map[int64]float64{}
	for _, r := range d.Result {
		for _, s := range r.Values {
			ts, _ := s[0].(float64)
			v, _ := strconv.ParseFloat(fmt.Sprint(s[1]), 64)
			out[int64(ts*1000+0.5)] = v
		}
	}
	return out, nil
}

// A scrape is one response of the gateway's /metrics.
type scrape struct {
	status int
	took   time.Duration
	bytes  int
	gone   bool // the scraper had hung up by the response's end
}

// scrapeLog wraps the gateway to record every response of its /metrics, so
// that whether the gateway answered every scrape is known from its side,
// whatever the scraper made of it.
type scrapeLog struct {
	mu   sync.Mutex
	list []scrape
}

func (l *scrapeLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			h.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		start := time.Now()
		h.ServeHTTP(sw, r)
		s := scrape{status: sw.status, took: time.Since(start), bytes: sw.bytes, gone: r.Context().Err() != nil}
		l.mu.Lock()
		l.list = append(l.list, s)
		l.mu.Unlock()
	})
}

// failures returns the scrapes the gateway did not answer with a 200.
func (l *scrapeLog) failures() []scrape {
	l.mu.Lock()
	defer l.mu.Unlock()
	var bad []scrape
	for _, s := range l.list {
		if s.status != http.StatusOK {
			bad = append(bad, s)
		}
	}
	return bad
}

// String summarizes the scrapes for a failure message.
func (l *scrapeLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	statuses := map[int]int{}
	var slowest time.Duration
	largest, gone := 0, 0
	for _, s := range l.list {
		statuses[s.status]++
		slowest, largest = max(slowest, s.took), max(largest, s.bytes)
		if s.gone {
			gone++
		}
	}
	return fmt.Sprintf("%d scrapes answered, by status %v; the slowest took %v, the largest was %d bytes; the scraper hung up on %d",
		len(l.list), statuses, slowest.Round(time.Millisecond), largest, gone)
}

func (s scrape) String() string {
	return fmt.Sprintf("%d after %v (%d bytes, scraper gone: %v)", s.status, s.took.Round(time.Millisecond), s.bytes, s.gone)
}

type statusWriter struct {
	http.ResponseWriter
	status, bytes int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// checkScrapes checks that /metrics answered every scrape: the gateway
// answered each with a 200, and every scrape Prometheus recorded as
// failed (up 0) failed by its timeout — Prometheus waited the whole
// timeout for it (scrape_duration_seconds) — which on a busy machine says
// how fast the machine was, not whether the gateway answered. Such
// scrapes are logged, not failed.
func checkScrapes(t *testing.T, p prom, job string, timeout time.Duration, log *scrapeLog) {
	t.Helper()
	up, err := p.samples(fmt.Sprintf(`up{job=%q}[1h]`, job))
	if err != nil {
		t.Fatal(err)
	}
	took, err := p.samples(fmt.Sprintf(`scrape_duration_seconds{job=%q}[1h]`, job))
	if err != nil {
		t.Fatal(err)
	}
	var failed, timedOut []string
	for ts, v := range up {
		if v == 1 {
			continue
		}
		d := time.Duration(took[ts] * float64(time.Second))
		s := fmt.Sprintf("%s after %v", time.UnixMilli(ts).Format("15:04:05.000"), d.Round(time.Millisecond))
		if d >= timeout-time.Millisecond {
			timedOut = append(timedOut, s)
		} else {
			failed = append(failed, s)
		}
	}
	sort.Strings(failed)
	if len(up) == 0 {
		t.Errorf("Prometheus recorded no scrape of the gateway (%s)", log)
	}
	if len(failed) > 0 {
		t.Errorf("/metrics failed %d of %d scrapes before Prometheus' %v timeout, at %s (the gateway's side: %s)",
			len(failed), len(up), timeout, strings.Join(failed, ", "), log)
	}
	if bad := log.failures(); len(bad) > 0 {
		t.Errorf("the gateway answered %d scrapes with other than 200: %v", len(bad), bad)
	}
	if len(timedOut) > 0 {
		t.Logf("%d of %d scrapes outlasted Prometheus' %v timeout on this machine, not a failure of the gateway (%s)",
			len(timedOut), len(up), timeout, log)
	}
}
