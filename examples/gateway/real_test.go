package main

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
	"sync"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics/live"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitFor polls cond every 200 ms until it holds or the safety deadline
// passes; no verdict depends on how fast it comes.
func waitFor(t *testing.T, what string, limit time.Duration, cond func() (bool, string)) {
	deadline := time.Now().Add(limit)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v (last: %s)", what, limit, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// query runs an instant PromQL query and returns its results by the value
// of one label (or "" for the whole).
func query(base, expr, by string) (map[string]float64, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range r.Data.Result {
		v, _ := strconv.ParseFloat(fmt.Sprint(s.Value[1]), 64)
		out[s.Metric[by]] = v
	}
	return out, nil
}

// TestGatewayRealServer runs the gateway in front of llama.cpp's
// llama-server (with the tiny generated model) and a real Prometheus
// scraping it every second, and sends what real clients send: OpenAI-style
// streams without include_usage, non-streaming calls, requests the server
// refuses with a 400 (llama-server serves any model name, so an invalid
// request stands for the unknown model), a model name of invalid UTF-8
// (which llama-server refuses with a 500, though the label set exists),
// 1,000 distinct model names, and a stream cut by killing the upstream.
// Prometheus must find: every successful stream in the time-to-first-chunk
// histogram, every request in the duration histogram with its error_type,
// up = 1 at every scrape (/metrics stayed 200), and the label sets within
// the limit. It skips without the server (see .ci/run) or prometheus.
func TestGatewayRealServer(t *testing.T) {
	bin, model := os.Getenv("LLMMETRICS_LLAMA_SERVER"), os.Getenv("LLMMETRICS_TINY_MODEL")
	if bin == "" || model == "" {
		t.Skip("LLMMETRICS_LLAMA_SERVER and LLMMETRICS_TINY_MODEL are not set (.ci/run sets them)")
	}
	if raceDetector {
		t.Skip("skipped under the race detector: its plain run covers it, and TestGateway runs the same paths raced")
	}
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus on PATH (apt-get install prometheus; .ci/run installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	port := freePort(t)
	var serverLog bytes.Buffer
	server := exec.CommandContext(ctx, bin, "-m", model, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"-a", "tiny", "-np", "2", "-c", "8192", "-n", "16", "-t", "2", "--no-webui")
	server.Stdout, server.Stderr = &serverLog, &serverLog
	require.NoError(t, server.Start())
	defer func() { server.Process.Kill(); server.Wait() }()
	upstream := fmt.Sprintf("http://127.0.0.1:%d", port)
	probe := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	waitFor(t, "llama-server ready", time.Minute, func() (bool, string) {
		resp, err := probe.Get(upstream + "/health")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})

	g, err := newGateway(upstream, live.Options{}, false)
	require.NoError(t, err)
	gw := httptest.NewServer(g)
	defer gw.Close()

	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: gateway\n    static_configs:\n      - targets: [%q]\n",
		gw.Listener.Addr().String())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644))
	promPort := freePort(t)
	var promLog bytes.Buffer
	prom := exec.CommandContext(ctx, promBin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), fmt.Sprintf("--web.listen-address=127.0.0.1:%d", promPort), "--log.level=warn")
	prom.Stdout, prom.Stderr = &promLog, &promLog
	require.NoError(t, prom.Start())
	defer func() { prom.Process.Kill(); prom.Wait() }()
	promBase := fmt.Sprintf("http://127.0.0.1:%d", promPort)

	chat := func(body string) int { return send(t, gw.URL, body) }
	msg := `"messages":[{"role":"user","content":"Hi"}]`
	for range 5 { // as most OpenAI clients send: no stream_options
		require.Equal(t, http.StatusOK, chat(`{"model":"tiny","stream":true,"max_tokens":4,`+msg+`}`))
	}
	for range 3 {
		require.Equal(t, http.StatusOK, chat(`{"model":"tiny","max_tokens":4,`+msg+`}`))
	}
	for range 2 {
		require.Equal(t, http.StatusBadRequest, chat(`{"model":"no-such-model","stream":true,"messages":"Hi"}`))
	}
	// llama-server refuses a body of invalid UTF-8 with a 500 (its JSON
	// parser's error): a failure the gateway records as such.
	require.Equal(t, http.StatusInternalServerError, chat("{\"model\":\"bad\xff\xfename\",\"stream\":true,\"max_tokens\":2,"+msg+"}"))
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 1000; i += 2 {
				chat(fmt.Sprintf(`{"model":"m-%d","stream":true,"max_tokens":1,%s}`, i, msg))
			}
		}()
	}
	wg.Wait()

	// A long stream, cut by killing the upstream once its first event has
	// come through the gateway.
	resp, err := http.Post(gw.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"tiny","stream":true,"max_tokens":6000,`+msg+`}`))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	buf := make([]byte, 1)
	_, err = io.ReadFull(resp.Body, buf)
	require.NoError(t, err, "the first byte of the long stream")
	require.NoError(t, server.Process.Kill())
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	const offered = 5 + 3 + 2 + 1 + 1000 + 1

	waitFor(t, "Prometheus scraped every request", 90*time.Second, func() (bool, string) {
		r, err := query(promBase, "sum(llmmetrics_requests_total)", "")
		if err != nil {
			return false, err.Error()
		}
		return r[""] == offered, fmt.Sprint(r, promLog.String())
	})
	ttfc, err := query(promBase, "sum(gen_ai_client_operation_time_to_first_chunk_seconds_count)", "")
	require.NoError(t, err)
	assert.Equal(t, float64(5+1000), ttfc[""], "every successful stream")
	byType, err := query(promBase, "sum by (error_type) (gen_ai_client_operation_duration_seconds_count)", "error_type")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"": 5 + 3 + 1000, "400": 2, "500": 1, "_OTHER": 1, "timeout": 0, "cancelled": 0}, byType)
	up, err := query(promBase, `min_over_time(up{job="gateway"}[10m])`, "")
	require.NoError(t, err)
	assert.Equal(t, 1.0, up[""], "/metrics answered at every scrape")
	sets, err := query(promBase, "count(llmmetrics_output_tokens_total)", "")
	require.NoError(t, err)
	assert.LessOrEqual(t, sets[""], float64(live.DefaultMaxLabelSets+1))
	overflow, err := query(promBase, "llmmetrics_label_set_overflow_total", "")
	require.NoError(t, err)
	assert.Greater(t, overflow[""], 800.0)
	noCount, err := query(promBase, `sum(llmmetrics_requests_total{llmmetrics_outcome="no_count"})`, "")
	require.NoError(t, err)
	assert.Equal(t, float64(5+1000), noCount[""], "the streams without usage keep TTFT and say why they have no TPOT")
	odd, err := query(promBase, `count(llmmetrics_requests_total{gen_ai_request_model="bad\ufffdname"})`, "")
	require.NoError(t, err)
	assert.NotZero(t, odd[""], "the invalid UTF-8 model name, made valid")
}
