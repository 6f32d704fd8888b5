package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

// TestGatewayRealServer runs the gateway in front of llama.cpp's
// llama-server (with the tiny generated model) and a real Prometheus
// scraping it every second, and sends what real clients send: OpenAI-style
// streams without include_usage, non-streaming calls, requests the server
// refuses with a 400 (llama-server serves any model name, so an invalid
// request stands for the unknown model), a model name of invalid UTF-8
// (which llama-server refuses with a 500, though the label set exists),
// 1,000 distinct model names, and a stream cut by killing the upstream.
// The gateway declares tiny (--models tiny). Prometheus must find, in the
// first scrape that holds every request: every successful stream in the
// time-to-first-chunk histogram, every request in the duration histogram
// with its error_type, the identities within the limit, and tiny's
// requests in its two declared label sets; and /metrics must have
// answered every scrape (a 200 from the gateway each time, and no scrape
// failed but by Prometheus' own timeout, which measures the machine). No
// verdict depends on the machine's speed. It skips without the server
// (see .ci/run) or prometheus.
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
	ctx := testContext(t)

	// --context-shift lets a stream run past the context, so that the
	// long stream below runs until it is cut, however slowly the test
	// gets to cut it: without it, a slot's 4,096 tokens end it in seconds.
	server := startChild(ctx, t, bin, func(port int) []string {
		return []string{"-m", model, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
			"-a", "tiny", "-np", "2", "-c", "8192", "-n", "16", "-t", "2", "--no-webui", "--context-shift"}
	}, "/health")

	g, err := newGateway(config{upstream: server.base, models: []string{"tiny"}})
	require.NoError(t, err)
	var scrapes scrapeLog
	gw := httptest.NewServer(scrapes.wrap(g))
	defer gw.Close()

	// Prometheus scrapes every second and gives a scrape the whole second;
	// no verdict depends on its scrapes being that fast (checkScrapes).
	const scrapeTimeout = time.Second
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: %v\nscrape_configs:\n  - job_name: gateway\n    static_configs:\n      - targets: [%q]\n",
		scrapeTimeout, gw.Listener.Addr().String())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644))
	promServer := startChild(ctx, t, promBin, func(port int) []string {
		return []string{"--config.file=" + filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path=" + filepath.Join(dir, "data"),
			fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=debug"}
	}, "/-/ready")

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
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		bad []string
	)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 1000; i += 2 {
				code, err := post(gw.URL, fmt.Sprintf(`{"model":"m-%d","stream":true,"max_tokens":1,%s}`, i, msg))
				if code != http.StatusOK {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("m-%d: %d %v", i, code, err))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	require.Empty(t, bad, "the streams of the 1,000 model names, all expected to be 200; llama-server's log ends:\n%s", server.log.tail(1000))

	// A stream that would run for hours, cut by killing the upstream once
	// its first byte has come through the gateway.
	resp, err := http.Post(gw.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"tiny","stream":true,"max_tokens":10000000,`+msg+`}`))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	buf := make([]byte, 1)
	_, err = io.ReadFull(resp.Body, buf)
	require.NoError(t, err, "the first byte of the long stream")
	require.NoError(t, server.cmd.Process.Kill())
	<-server.exited
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Error(t, err, "the long stream ended cleanly after %d more bytes: it was not cut", n)
	const offered = 5 + 3 + 2 + 1 + 1000 + 1

	// Wait for a scrape that has every request, and ask everything else of
	// that moment: the gateway recorded each request before its client
	// saw the response's end, so that one scrape holds all of them. Each
	// query takes every series' last sample (last_over_time): a scrape
	// that fails, however late, marks the target's series stale, and an
	// instant query of a series would then find nothing.
	last := func(series string) string { return "last_over_time(" + series + "[1h])" }
	p := prom{base: promServer.base}
	waitFor(ctx, t, "Prometheus scraped every request", func() (bool, string) {
		at := time.Now()
		r, err := prom{base: p.base, at: at}.vector("sum("+last("llmmetrics_requests_total")+")", "")
		if err != nil {
			return false, err.Error()
		}
		p.at = at
		return r[""] == offered, fmt.Sprintf("%v of %d requests; %s", r, offered, &scrapes)
	})
	vector := func(expr, by string) map[string]float64 {
		r, err := p.vector(expr, by)
		require.NoError(t, err)
		return r
	}
	assert.Equal(t, float64(5+1000), vector("sum("+last("gen_ai_client_operation_time_to_first_chunk_seconds_count")+")", "")[""],
		"every successful stream")
	byType := vector("sum by (error_type) ("+last("gen_ai_client_operation_duration_seconds_count")+")", "error_type")
	// The killed server's kernel ends the connection with a FIN (the
	// chunked body is cut: unexpected_eof) or, when the server had not
	// read all it was sent, a reset: either names the cause.
	cut := byType["unexpected_eof"] + byType["connection_reset"]
	delete(byType, "unexpected_eof")
	delete(byType, "connection_reset")
	assert.Equal(t, 1.0, cut, "the cut stream, unexpected_eof or connection_reset")
	assert.Equal(t, map[string]float64{"": 5 + 3 + 1000, "400": 2, "500": 1, "_OTHER": 0, "timeout": 0, "cancelled": 0}, byType,
		"every other request by its error_type")
	assert.LessOrEqual(t, vector("count(count by (gen_ai_operation_name, gen_ai_provider_name, gen_ai_request_model, server_address, server_port) ("+
		last("llmmetrics_output_tokens_total")+"))", "")[""], float64(live.DefaultMaxLabelSets+1),
		"identities (label sets without their response model) of llmmetrics_output_tokens_total, and _OTHER")
	// tiny was declared (--models tiny), and llama-server was started
	// with -a tiny, so that it names tiny in its replies (without an
	// alias it names the model file's path): tiny's requests are all in
	// its two declared label sets, the cut stream among the ok one's,
	// since its first chunk named the model.
	assert.Equal(t, map[string]float64{"": 0, "tiny": 5 + 3 + 1},
		vector(`sum by (gen_ai_response_model) (`+last(`llmmetrics_requests_total{gen_ai_request_model="tiny"}`)+`)`, "gen_ai_response_model"),
		"tiny's requests by response model")
	assert.Greater(t, vector(last("llmmetrics_label_set_overflow_total"), "")[""], 800.0, "llmmetrics_label_set_overflow_total")
	assert.Equal(t, float64(5+1000), vector("sum("+last(`llmmetrics_requests_total{llmmetrics_outcome="no_count"}`)+")", "")[""],
		"the streams without usage keep TTFT and say why they have no TPOT")
	assert.NotZero(t, vector("count("+last(`llmmetrics_requests_total{gen_ai_request_model="bad\ufffdname"}`)+")", "")[""],
		"the invalid UTF-8 model name, made valid")
	checkScrapes(t, p, "gateway", scrapeTimeout, &scrapes)
	if t.Failed() {
		t.Logf("queried at %s; %s\nPrometheus' failed scrapes:\n%s\nllama-server's log ends:\n%s",
			p.at.Format("15:04:05.000"), &scrapes, failedScrapeLines(promServer.log.tail(1<<20)), server.log.tail(1000))
	}
}

// failedScrapeLines returns the lines of Prometheus' debug log that say
// why a scrape failed.
func failedScrapeLines(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "Scrape failed") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
