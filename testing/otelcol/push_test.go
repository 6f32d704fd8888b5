package otelcol

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemaURL is the conventions' schema the meter declares (live follows
// the GenAI conventions of semconv v1.41.0).
const schemaURL = "https://opentelemetry.io/schemas/1.41.0"

// report is what the tests read of run --json.
type report struct {
	Requests struct {
		Offered, OK, Warmup, Preflight int64
	} `json:"requests"`
	TTFT struct {
		N int64 `json:"n"`
	} `json:"ttft_ms"`
	Throughput struct {
		OutputTokens int64 `json:"output_tokens"`
	} `json:"throughput"`
}

// run's metrics reach a real collector over either protocol, and agree
// with run's own report of the same requests: every request offered is
// counted by outcome (the test or sizing requests and the warm-up under
// warmup), the ok ones have a duration and a TTFT each, and the output
// tokens add up to the report's.
func TestRunPushes(t *testing.T) {
	base := llamaServer(t)
	for _, proto := range []string{"grpc", "http"} {
		t.Run(proto, func(t *testing.T) {
			col := startCollector(t)
			endpoint := map[string]string{"grpc": col.GRPC, "http": col.HTTP}[proto]
			service := "otelcol-test-" + proto
			out := filepath.Join(t.TempDir(), "run.jsonl")
			stdout, stderr := command(t, bins.llmmetrics, []string{"OTEL_SERVICE_NAME=" + service},
				"run", "--url", base+"/v1/chat/completions", "--model", "tiny", "--requests", "8", "--concurrency", "2",
				"--warmup", "2", "--prompt-tokens", "64", "--max-tokens", "12", "--body", `{"temperature":0,"seed":1}`, "--json",
				"--out", out, "--otlp-endpoint", endpoint, "--otlp-protocol", proto)
			assert.NotContains(t, stderr, "OTLP")
			var rep report
			require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
			require.Equal(t, int64(8), rep.Requests.OK, stdout)
			col.stop(t)

			ss := readMetrics(t, col.Out)
			require.NotEmpty(t, ss, "the collector received no metrics")
			for _, s := range ss {
				assert.Equal(t, service, s.service, s.metric)
				assert.Equal(t, "github.com/llmmetrics/llmmetrics/live", s.scope, s.metric)
				assert.Equal(t, schemaURL, s.schema, s.metric)
			}
			model := "gen_ai.request.model=tiny"
			t.Logf("report: %+v; collector: %d requests, %d ok, %d output tokens", rep, total(ss, "llmmetrics.requests", model),
				total(ss, "llmmetrics.requests", model, "llmmetrics.outcome=ok"), total(ss, "llmmetrics.output_tokens", model))
			assert.Equal(t, rep.Requests.Offered, total(ss, "llmmetrics.requests", model))
			assert.Equal(t, rep.Requests.OK, total(ss, "llmmetrics.requests", model, "llmmetrics.outcome=ok"))
			assert.Equal(t, rep.Requests.Warmup+rep.Requests.Preflight, total(ss, "llmmetrics.requests", model, "llmmetrics.outcome=warmup"))
			assert.Equal(t, rep.Requests.OK, total(ss, "gen_ai.client.operation.duration", model))
			assert.Equal(t, rep.TTFT.N, total(ss, "gen_ai.client.operation.time_to_first_chunk", model))
			assert.Equal(t, rep.Throughput.OutputTokens, total(ss, "llmmetrics.output_tokens", model))
			assert.Equal(t, rep.Requests.OK, total(ss, "gen_ai.client.token.usage", model, "gen_ai.token.type=output"))

			checkSpans(t, readSpans(t, col.Out), readRecords(t, out), rep, service)
		})
	}
}

// A run stopped by SIGINT pushes what it measured before it exits: a
// span for each request it wrote, and every one counted.
func TestRunPushesOnSignal(t *testing.T) {
	base := llamaServer(t)
	col := startCollector(t)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	cmd := exec.Command(bins.llmmetrics, "run", "--url", base+"/v1/chat/completions", "--model", "tiny", "--duration", "2m",
		"--concurrency", "2", "--prompt-tokens", "64", "--max-tokens", "12", "--grace", "5s", "--out", out,
		"--otlp-endpoint", col.GRPC, "--otlp-protocol", "grpc")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	// Wait for a few records (the header line, the sizing requests and
	// some of the load), then interrupt.
	for lines := 0; lines < 6; {
		select {
		case <-exited:
			t.Fatalf("run ended before its interrupt: %s", stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		b, _ := os.ReadFile(out)
		lines = strings.Count(string(b), "\n")
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	<-exited // its status is the report's; the records are what counts
	assert.NotContains(t, stderr.String(), "OTLP")
	col.stop(t)

	recs := readRecords(t, out)
	require.NotEmpty(t, recs)
	assert.Len(t, readSpans(t, col.Out), len(recs), "a span a record")
	assert.Equal(t, int64(len(recs)), total(readMetrics(t, col.Out), "llmmetrics.requests"), "every record counted")
}

// readRecords reads run's records, the test and sizing requests and the
// warm-up among them.
func readRecords(t *testing.T, path string) []llmmetrics.Record {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	run, err := llmmetrics.ReadJSONL(f)
	require.NoError(t, err)
	return run.Records
}

// checkSpans holds the spans of run's requests against its records and
// report: one span a request offered, named and of kind CLIENT as the
// conventions have an inference span, with their required attributes;
// the output tokens of the measured ones add up to the report's; and
// each one's time to first chunk is its record's TTFT to the nanosecond
// (as a set: a span does not name its record).
func checkSpans(t *testing.T, spans []span, recs []llmmetrics.Record, rep report, service string) {
	t.Helper()
	require.Len(t, spans, int(rep.Requests.Offered), "a span a request offered")
	require.Len(t, recs, int(rep.Requests.Offered))
	var tokens int64
	var spanTTFT, recTTFT []time.Duration
	for _, sp := range spans {
		assert.Equal(t, "chat tiny", sp.Name)
		assert.Equal(t, 3, sp.Kind, "SPAN_KIND_CLIENT")
		assert.Equal(t, service, sp.service)
		assert.Equal(t, schemaURL, sp.schema)
		assert.Len(t, sp.TraceID, 32)
		for k, v := range map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
			"gen_ai.request.model": "tiny", "gen_ai.response.model": "tiny", "server.address": "127.0.0.1"} {
			assert.Equal(t, v, str(sp.Attributes, k), k)
		}
		assert.NotEmpty(t, str(sp.Attributes, "server.port"))
		if str(sp.Attributes, "llmmetrics.outcome") == "ok" {
			n, err := strconv.ParseInt(str(sp.Attributes, "gen_ai.usage.output_tokens"), 10, 64)
			require.NoError(t, err)
			tokens += n
		}
		if s, ok := double(sp.Attributes, "gen_ai.response.time_to_first_chunk"); ok {
			spanTTFT = append(spanTTFT, time.Duration(math.Round(s*1e9)))
		}
	}
	for i := range recs {
		if d, err := recs[i].TTFT(); err == nil {
			recTTFT = append(recTTFT, d)
		}
	}
	assert.Equal(t, rep.Throughput.OutputTokens, tokens, "gen_ai.usage.output_tokens of the measured requests")
	slices.Sort(spanTTFT)
	slices.Sort(recTTFT)
	require.Len(t, recTTFT, len(recs), "every request has a TTFT")
	assert.Equal(t, recTTFT, spanTTFT, "gen_ai.response.time_to_first_chunk, to the nanosecond")
}

// promNames are the Prometheus names of the histograms the gateway
// exports both ways.
var promNames = map[string]string{
	"gen_ai.client.operation.duration":              "gen_ai_client_operation_duration_seconds",
	"gen_ai.client.operation.time_to_first_chunk":   "gen_ai_client_operation_time_to_first_chunk_seconds",
	"gen_ai.client.operation.time_per_output_chunk": "gen_ai_client_operation_time_per_output_chunk_seconds",
	"gen_ai.client.token.usage":                     "gen_ai_client_token_usage",
	"llmmetrics.time_per_output_token":              "llmmetrics_time_per_output_token_seconds",
	"llmmetrics.max_gap":                            "llmmetrics_max_gap_seconds",
}

// The gateway pushes over OTLP what it serves at /metrics: for the same
// traffic (a run through it to llama-server), each histogram's count
// over all its series in the collector equals the Prometheus
// Collector's, and so does every request counted; the last push comes
// as it stops on SIGTERM.
func TestGatewayPushes(t *testing.T) {
	base := llamaServer(t)
	col := startCollector(t)
	port := freePort(t)
	gw := exec.Command(bins.gateway, "--upstream", base, "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--otlp-endpoint", col.HTTP)
	gw.Env = append(os.Environ(), "OTEL_SERVICE_NAME=gateway-under-test")
	logPath := filepath.Join(t.TempDir(), "gateway.log")
	logf, err := os.Create(logPath)
	require.NoError(t, err)
	defer logf.Close()
	gw.Stdout, gw.Stderr = logf, logf
	require.NoError(t, gw.Start())
	done := false
	t.Cleanup(func() {
		if !done {
			gw.Process.Kill()
			gw.Wait()
		}
	})
	waitListening(t, fmt.Sprintf("127.0.0.1:%d", port), logPath)
	gwURL := fmt.Sprintf("http://127.0.0.1:%d", port)

	stdout, _ := command(t, bins.llmmetrics, nil, "run", "--url", gwURL+"/v1/chat/completions", "--model", "tiny",
		"--requests", "8", "--concurrency", "2", "--prompt-tokens", "64", "--max-tokens", "12", "--json")
	var rep report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	prom := scrapeCounts(t, gwURL+"/metrics")

	require.NoError(t, gw.Process.Signal(syscall.SIGTERM))
	require.NoError(t, gw.Wait(), "the gateway's exit on SIGTERM")
	done = true
	col.stop(t)
	b, _ := os.ReadFile(logPath)
	assert.NotContains(t, string(b), "warning", "the gateway's log")

	ss := readMetrics(t, col.Out)
	require.NotEmpty(t, ss, "the collector received no metrics")
	for _, s := range ss {
		assert.Equal(t, "gateway-under-test", s.service, s.metric)
		assert.Equal(t, schemaURL, s.schema, s.metric)
	}
	// Every request the run offered went through the gateway: the sizing
	// requests too.
	require.Equal(t, rep.Requests.Offered, prom["gen_ai_client_operation_duration_seconds_count"], "the Prometheus Collector's count")
	for otlp, name := range promNames {
		assert.Equal(t, prom[name+"_count"], total(ss, otlp), otlp)
		t.Logf("%s: %d observations in both", otlp, total(ss, otlp))
	}
	assert.Equal(t, prom["llmmetrics_requests_total"], total(ss, "llmmetrics.requests"))
	assert.Equal(t, prom["llmmetrics_output_tokens_total"], total(ss, "llmmetrics.output_tokens"))

	// A span a call, with the output tokens the metrics counted. The
	// upstream's request carried each span's trace (traceparent, see
	// examples/gateway's TestOTLPTraceparent); llama-server keeps no
	// record of it to compare with.
	spans := readSpans(t, col.Out)
	require.Len(t, spans, int(rep.Requests.Offered), "a span a call")
	var tokens int64
	for _, sp := range spans {
		assert.Equal(t, "chat tiny", sp.Name)
		assert.Equal(t, "gateway-under-test", sp.service)
		n, err := strconv.ParseInt(str(sp.Attributes, "gen_ai.usage.output_tokens"), 10, 64)
		require.NoError(t, err)
		tokens += n
	}
	assert.Equal(t, prom["llmmetrics_output_tokens_total"], tokens)
}

// scrapeCounts reads a Prometheus text exposition, adding up each
// name's samples over its series (integers only: counts and counters).
func scrapeCounts(t *testing.T, url string) map[string]int64 {
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	out := map[string]int64{}
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 64<<20))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line[:strings.IndexAny(line, "{ ")]
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		require.NoError(t, err, line)
		if v == float64(int64(v)) {
			out[name] += int64(v)
		}
	}
	require.NoError(t, sc.Err())
	return out
}
