package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrometheusAgrees runs a real Prometheus (Debian's prometheus
// package; .ci/run installs it) on 127.0.0.1 scraping, every second, an
// exporter that replays the six real vLLM scrapes in order. The window
// Prometheus gives between the samples of snapshot 2 and snapshot 5 must
// equal the window of the two scrapes themselves, and Prometheus's own
// histogram_quantile must equal this package's.
func TestPrometheusAgrees(t *testing.T) {
	snaps := snapshots(t)
	texts := snapshotTexts(t)
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary on PATH (apt-get install prometheus): the Prometheus-server path is not tested here")
	}

	// The exporter: each snapshot for two scrapes in a row (so that one
	// failed scrape on a busy machine loses nothing), then the last again.
	var mu sync.Mutex
	served := 0
	exporter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := min(served/2, len(texts)-1)
		served++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write(texts[i])
	}))
	defer exporter.Close()

	dir := t.TempDir()
	port := freePort(t)
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: vllm\n    static_configs:\n      - targets: [%q]\n",
		exporter.Listener.Addr().String())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address=127.0.0.1:"+port, "--log.level=warn")
	require.NoError(t, cmd.Start())
	defer func() { cancel(); cmd.Wait() }()
	base := "http://127.0.0.1:" + port
	p := &Prometheus{URL: base}

	// Wait until the last snapshot has been scraped.
	last := snaps[5].families["vllm:generation_tokens_total"].GetMetric()[0].GetCounter().GetValue()
	var points [][2]float64
	deadline := time.Now().Add(60 * time.Second)
	for {
		points = rangeSamples(t, base, "vllm:generation_tokens_total[5m]")
		if len(points) > 0 && points[len(points)-1][1] == last {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus did not scrape the six snapshots in time: %v", points)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// The first sample holding snapshot k's value is snapshot k.
	at := func(k int) time.Time {
		v := snaps[k].families["vllm:generation_tokens_total"].GetMetric()[0].GetCounter().GetValue()
		for _, pt := range points {
			if pt[1] == v {
				return time.UnixMilli(int64(pt[0] * 1000))
			}
		}
		t.Fatalf("no sample of snapshot %d", k+1)
		return time.Time{}
	}
	start, end := at(1), at(4)
	sel := Selector{"model_name": "Qwen/Qwen2.5-3B-Instruct"}

	fromProm, err := p.Window(ctx, start, end, sel)
	require.NoError(t, err)
	fromScrapes, err := Diff(snaps[1], snaps[4], end.Sub(start), sel)
	require.NoError(t, err)
	assert.Equal(t, 315.0, fromScrapes.Counters["generation_tokens"].Delta) // 59 + 128 + 128
	for name, c := range fromScrapes.Counters {
		assert.Equal(t, c.Delta, fromProm.Counters[name].Delta, name)
		assert.Equal(t, c.PerSecond, fromProm.Counters[name].PerSecond, name)
	}
	assert.Equal(t, fromScrapes.Finished, fromProm.Finished)
	for name, h := range fromScrapes.Histograms {
		ph, ok := fromProm.Histograms[name]
		require.True(t, ok, name)
		assert.Equal(t, h.Bounds, ph.Bounds, name)
		assert.Equal(t, h.Buckets, ph.Buckets, name)
		assert.Equal(t, h.Count, ph.Count, name)
		assert.InDelta(t, h.Sum, ph.Sum, 1e-9*max(1, h.Sum), name)
	}
	// Prometheus's own histogram_quantile against this package's: bit for bit equal.
	for _, name := range []string{"time_to_first_token_seconds", "inter_token_latency_seconds", "e2e_request_latency_seconds"} {
		for _, q := range ReportQuantiles {
			ours, lowerBound, err := fromScrapes.Histograms[name].Quantile(q)
			require.NoError(t, err)
			theirs, err := p.Quantile(ctx, "vllm:"+name, q, start, end, sel)
			require.NoError(t, err)
			assert.Equal(t, theirs, ours, "%s q=%v (lower bound %v): bit for bit", name, q, lowerBound)
		}
	}
}

// snapshotTexts returns the bytes of the six real scrapes, in order.
func snapshotTexts(t *testing.T) [][]byte {
	files, _ := filepath.Glob(filepath.Join(realdata, "*snapshot*.txt"))
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		out = append(out, b)
	}
	return out
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// rangeSamples returns the (time, value) samples of a range-vector query's
// first series, or nil while Prometheus is not ready.
func rangeSamples(t *testing.T, base, expr string) [][2]float64 {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Values [][2]any `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil || len(r.Data.Result) == 0 {
		return nil
	}
	var out [][2]float64
	for _, v := range r.Data.Result[0].Values {
		ts, _ := v[0].(float64)
		val, _ := strconv.ParseFloat(fmt.Sprint(v[1]), 64)
		out = append(out, [2]float64{ts, val})
	}
	return out
}
