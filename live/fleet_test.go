package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replica is one recorder of a fleet, exporting on its own /metrics.
type replica struct {
	rec    *Recorder
	srv    *httptest.Server
	before *server.Scrape
}

func scrapeOf(t *testing.T, url string) *server.Scrape {
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	s, err := server.ParseScrape(resp.Body)
	require.NoError(t, err)
	return s
}

// promQuery runs an instant PromQL query and returns its single value.
func promQuery(base, expr string) (float64, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return 0, fmt.Errorf("%s: %s", err, b)
	}
	if len(r.Data.Result) != 1 {
		return 0, fmt.Errorf("%d results for %s", len(r.Data.Result), expr)
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	return strconv.ParseFloat(s, 64)
}

// TestFleet runs three recorders as a fleet's replicas, each exporting
// its own /metrics, and a real Prometheus scraping them all. PromQL's
// quantile over the summed buckets equals the quantile the server module
// computes from the replicas' merged histogram, bit for bit; the summed
// goodput counters give the attainment of all the records together; and
// the bucketed quantile is within one bucket of the exact one, while the
// merged sketches are within their 1 % accuracy.
func TestFleet(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary on PATH (apt-get install prometheus; .ci/run installs it): the fleet test needs one")
	}
	slo := llmmetrics.SLO{TTFT: 300 * ms, TPOT: 30 * ms}
	var fleet []*replica
	var all []llmmetrics.Record
	for i := range 3 {
		// Two replicas export through a Collector, one through a
		// PrometheusSink: the same series either way.
		reg := prometheus.NewRegistry()
		var sinks []Sink
		if i == 2 {
			sink, err := NewPrometheusSink(reg, PrometheusOptions{})
			require.NoError(t, err)
			sink.Prepare(chat)
			sinks = append(sinks, sink)
		}
		rec, err := NewRecorder(Options{SLO: &slo, Sinks: sinks})
		require.NoError(t, err)
		if i != 2 {
			require.NoError(t, reg.Register(NewCollector(rec)))
			rec.Record(chat, &llmmetrics.Record{ID: "warm-up", Warmup: true}) // the label set exists from the start
		}
		srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		t.Cleanup(srv.Close)
		r := &replica{rec: rec, srv: srv, before: scrapeOf(t, srv.URL)}
		// Each replica sees different traffic: its share of the requests,
		// at its own speed.
		recs := mixed(300 + 100*i)
		for k := range recs {
			recs[k].ID = fmt.Sprintf("r%d-%s", i, recs[k].ID)
			for c := range recs[k].Chunks {
				recs[k].Chunks[c] += time.Duration(i*40) * ms
			}
			rec.Record(chat, &recs[k])
		}
		all = append(all, recs...)
		fleet = append(fleet, r)
	}

	// The merged histogram, by the server module, from each replica's two
	// scrapes.
	name := "gen_ai_client_operation_time_to_first_chunk_seconds"
	var merged server.Histogram
	for i, r := range fleet {
		w, err := server.Diff(r.before, scrapeOf(t, r.srv.URL), time.Second, nil)
		require.NoError(t, err)
		h := w.Histograms[name]
		if i == 0 {
			merged = server.Histogram{Name: name, Bounds: h.Bounds, Buckets: make([]float64, len(h.Buckets))}
		}
		require.Equal(t, merged.Bounds, h.Bounds)
		for b := range h.Buckets {
			merged.Buckets[b] += h.Buckets[b]
		}
		merged.Count += h.Count
		merged.Sum += h.Sum
		merged.Series += h.Series
	}

	// A real Prometheus scraping the three.
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var targets []string
	for _, r := range fleet {
		targets = append(targets, strconv.Quote(r.srv.Listener.Addr().String()))
	}
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: gateway\n    static_configs:\n      - targets: [%s]\n",
		strings.Join(targets, ", "))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var logs bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	defer func() { cancel(); cmd.Wait() }()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, err := promQuery(base, "sum("+name+"_count)")
		if err == nil && n == merged.Count {
			if up, err := promQuery(base, `count(up{job="gateway"} == 1)`); err == nil && up == 3 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus did not scrape the fleet in time (last: %v, %v): %s", n, err, logs.String())
		}
		time.Sleep(300 * time.Millisecond)
	}

	exact, err := llmmetrics.Summarize(all, llmmetrics.Options{SLO: &slo, Lenient: true,
		Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(90), llmmetrics.MustPercentile(99)}})
	require.NoError(t, err)
	var snaps []Snapshot
	for _, r := range fleet {
		snaps = append(snaps, r.rec.Snapshots(false)[0])
	}
	sketch := Merge(snaps...)
	for i, q := range []float64{0.5, 0.9, 0.99} {
		theirs, err := promQuery(base, fmt.Sprintf("histogram_quantile(%v, sum by (le) (%s_bucket))", q, name))
		require.NoError(t, err)
		ours, _, err := merged.Quantile(q)
		require.NoError(t, err)
		assert.Equal(t, theirs, ours, "q=%v: PromQL over the fleet and the server module's merged histogram, bit for bit", q)

		// What a bucketed quantile can tell: the exact value lies in the
		// same bucket, so the error is at most that bucket's width.
		x := exact.TTFT.Points[i].Value.Seconds()
		lo, hi := bucketAround(DefaultBuckets().Duration, x)
		assert.True(t, theirs >= lo && theirs <= hi, "q=%v: bucketed %v, exact %v, bucket (%v, %v]", q, theirs, x, lo, hi)
		// The merged sketches: within 1 % of the exact value.
		s, err := sketch.TTFT.Quantile(q)
		require.NoError(t, err)
		assert.InDelta(t, x, s.Seconds(), 0.01*x+1e-9, "q=%v sketch", q)
	}
	att, err := promQuery(base, "sum(llmmetrics_goodput_good_total) / sum(llmmetrics_goodput_offered_total)")
	require.NoError(t, err)
	assert.Equal(t, exact.Goodput.Attainment, att, "the fleet's attainment from the summed counters")
	a, _ := sketch.Counts.Attainment()
	assert.Equal(t, exact.Goodput.Attainment, a)
}

// bucketAround returns the bounds of the bucket (lo, hi] that holds x.
func bucketAround(bounds []float64, x float64) (float64, float64) {
	lo := 0.0
	for _, b := range bounds {
		if x <= b {
			return lo, b
		}
		lo = b
	}
	return lo, lo * 2
}
