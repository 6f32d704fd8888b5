package otelcol

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

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
			stdout, stderr := command(t, bins.llmmetrics, []string{"OTEL_SERVICE_NAME=" + service},
				"run", "--url", base+"/v1/chat/completions", "--model", "tiny", "--requests", "8", "--concurrency", "2",
				"--warmup", "2", "--prompt-tokens", "64", "--max-tokens", "12", "--body", `{"temperature":0,"seed":1}`, "--json",
				"--otlp-endpoint", endpoint, "--otlp-protocol", proto)
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
		})
	}
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
