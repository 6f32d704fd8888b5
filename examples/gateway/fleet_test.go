package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/live"
	"github.com/llmmetrics/llmmetrics/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fleet test lives here, in a module that requires both live and
// server, so that live's own go.mod needs no server module.

// replica is one recorder of a fleet, exporting on its own /metrics.
type replica struct {
	rec    *live.Recorder
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

// replicaRecords is one replica's traffic: one request of each outcome
// but ok, then n ok requests of varied speed, later by shift.
func replicaRecords(replica, n int, shift time.Duration) []llmmetrics.Record {
	const ms = time.Millisecond
	recs := []llmmetrics.Record{
		{Status: llmmetrics.StatusError, Message: "boom"},
		{Status: llmmetrics.StatusTimeout},
		{FirstText: 10 * ms, LastText: 10 * ms}, // zero tokens
		{Warmup: true, Chunks: []time.Duration{ms}, CompletionTokens: 1},
		{Chunks: []time.Duration{20 * ms, 10 * ms}, CompletionTokens: 2}, // arrivals go back: rejected
	}
	for i := range n {
		ttft := shift + time.Duration(50+i*7%400)*ms
		var chunks []time.Duration
		for k := range 5 {
			chunks = append(chunks, ttft+time.Duration(k*(10+i%30))*ms)
		}
		recs = append(recs, llmmetrics.Record{Sent: time.Duration(i) * 10 * ms, Chunks: chunks, CompletionTokens: 5 + i%3*5, PromptTokens: 100 + i})
	}
	for i := range recs {
		recs[i].ID = fmt.Sprintf("r%d-%d", replica, i)
	}
	return recs
}

// TestFleet runs three recorders as a fleet's replicas, each exporting
// its own /metrics, and a real Prometheus scraping them all. PromQL's
// quantile over the summed buckets equals the quantile the server module
// computes from the replicas' merged histogram, bit for bit; the summed
// goodput counters give the attainment of all the records together; and
// the bucketed quantile is within one bucket of the exact one, while the
// merged sketches are within their 1 % accuracy.
func TestFleet(t *testing.T) {
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary on PATH (apt-get install prometheus; .ci/run installs it): the fleet test needs one")
	}
	ctx := testContext(t)
	chat := live.Key{Operation: "chat", Provider: "openai", Model: "m", Endpoint: "127.0.0.1", Port: 8000}
	slo := llmmetrics.SLO{TTFT: 300 * time.Millisecond, TPOT: 30 * time.Millisecond}
	var fleet []*replica
	var all []llmmetrics.Record
	for i := range 3 {
		// Two replicas export through a Collector, one through a
		// PrometheusSink: the same series either way.
		reg := prometheus.NewRegistry()
		var sinks []live.Sink
		if i == 2 {
			sink, err := live.NewPrometheusSink(reg, live.PrometheusOptions{})
			require.NoError(t, err)
			sinks = append(sinks, sink)
		}
		rec, err := live.NewRecorder(live.Options{SLO: &slo, Sinks: sinks})
		require.NoError(t, err)
		if i != 2 {
			require.NoError(t, reg.Register(live.NewCollector(rec)))
		}
		rec.Declare(chat) // the label set exists from the start
		srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		t.Cleanup(srv.Close)
		r := &replica{rec: rec, srv: srv, before: scrapeOf(t, srv.URL)}
		// Each replica sees different traffic: its share of the requests,
		// at its own speed.
		recs := replicaRecords(i, 300+100*i, time.Duration(i*40)*time.Millisecond)
		for k := range recs {
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

	// A real Prometheus scraping the three. Each query takes every
	// series' last sample (last_over_time), which a failed scrape, on a
	// busy machine, does not hide.
	var targets []string
	for _, r := range fleet {
		targets = append(targets, strconv.Quote(r.srv.Listener.Addr().String()))
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: fleet\n    static_configs:\n      - targets: [%s]\n",
		strings.Join(targets, ", "))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644))
	promServer := startChild(ctx, t, promBin, func(port int) []string {
		return []string{"--config.file=" + filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path=" + filepath.Join(dir, "data"),
			fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn"}
	}, "/-/ready")
	last := func(series string) string { return "last_over_time(" + series + "[1h])" }
	p := prom{base: promServer.base}
	one := func(expr string) float64 {
		r, err := p.vector(expr, "")
		require.NoError(t, err)
		return r[""]
	}
	waitFor(ctx, t, "Prometheus scraped every replica", func() (bool, string) {
		r, err := p.vector("sum("+last(name+"_count")+")", "")
		if err != nil {
			return false, err.Error()
		}
		return r[""] == merged.Count, fmt.Sprintf("%v of %v", r, merged.Count)
	})

	exact, err := llmmetrics.Summarize(all, llmmetrics.Options{SLO: &slo, Lenient: true,
		Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(90), llmmetrics.MustPercentile(99)}})
	require.NoError(t, err)
	var snaps []live.Snapshot
	for _, r := range fleet {
		snaps = append(snaps, r.rec.Snapshots(false)[0])
	}
	sketch := live.Merge(snaps...)
	for i, q := range []float64{0.5, 0.9, 0.99} {
		theirs := one(fmt.Sprintf("histogram_quantile(%v, sum by (le) (%s))", q, last(name+"_bucket")))
		ours, _, err := merged.Quantile(q)
		require.NoError(t, err)
		assert.Equal(t, theirs, ours, "q=%v: PromQL over the fleet and the server module's merged histogram, bit for bit", q)

		// What a bucketed quantile can tell: the exact value lies in the
		// same bucket, so the error is at most that bucket's width.
		x := exact.TTFT.Points[i].Value.Seconds()
		lo, hi := bucketAround(live.DefaultBuckets().Duration, x)
		assert.True(t, theirs >= lo && theirs <= hi, "q=%v: bucketed %v, exact %v, bucket (%v, %v]", q, theirs, x, lo, hi)
		// The merged sketches: within 1 % of the exact value.
		s, err := sketch.TTFT.Quantile(q)
		require.NoError(t, err)
		assert.InDelta(t, x, s.Seconds(), 0.01*x+1e-9, "q=%v sketch", q)
	}
	att := one("sum(" + last("llmmetrics_goodput_good_total") + ") / sum(" + last("llmmetrics_goodput_offered_total") + ")")
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
