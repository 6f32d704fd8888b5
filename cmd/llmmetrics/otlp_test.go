package main

import (
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// The push's configuration from the flags and the standard variables.
func TestOTLPConfig(t *testing.T) {
	on := func(protocol string) otlpSignal {
		return otlpSignal{on: true, protocol: protocol, timeout: otlpTimeout, setTimeout: true}
	}
	both := func(endpoint, protocol string) *otlpConfig {
		return &otlpConfig{endpoint: endpoint, metrics: on(protocol), traces: on(protocol), setInterval: true}
	}
	const h, g = "http/protobuf", "grpc"
	for _, c := range []struct {
		name               string
		endpoint, protocol string
		env                map[string]string
		want               *otlpConfig // nil: no push
		err                string
	}{
		{name: "none"},
		{name: "flag", endpoint: "http://127.0.0.1:4318", want: both("http://127.0.0.1:4318", h)},
		{name: "flag grpc", endpoint: "http://127.0.0.1:4317", protocol: "grpc", want: both("http://127.0.0.1:4317", g)},
		{name: "flag http", endpoint: "http://127.0.0.1:4318", protocol: "http", want: both("http://127.0.0.1:4318", h)},
		{name: "env endpoint and protocol", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			want: both("", g)},
		{name: "a signal's own endpoint and protocol", env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://c:4318/v1/metrics",
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/protobuf"},
			want: &otlpConfig{metrics: on(h), setInterval: true}},
		{name: "traces alone", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"},
			want: &otlpConfig{traces: on(g), setInterval: true}},
		{name: "flag over env", endpoint: "http://127.0.0.1:4317", protocol: "grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			want: both("http://127.0.0.1:4317", g)},
		// OTEL_EXPORTER_OTLP_TIMEOUT is in milliseconds; the exporter
		// reads it, and the final flush waits as long.
		{name: "env timeout and interval", endpoint: "http://h:1", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "1500",
			"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "700", "OTEL_METRIC_EXPORT_INTERVAL": "1000"},
			want: &otlpConfig{endpoint: "http://h:1", metrics: otlpSignal{on: true, protocol: h, timeout: 1500 * time.Millisecond},
				traces: otlpSignal{on: true, protocol: h, timeout: 700 * time.Millisecond}}},
		{name: "disabled", endpoint: "http://h:1", protocol: "grpc", env: map[string]string{"OTEL_SDK_DISABLED": "true"}},
		{name: "no metrics exporter", endpoint: "http://h:1", env: map[string]string{"OTEL_METRICS_EXPORTER": "none"},
			want: &otlpConfig{endpoint: "http://h:1", traces: on(h), setInterval: true}},
		{name: "no exporters", endpoint: "http://h:1", env: map[string]string{"OTEL_METRICS_EXPORTER": "none", "OTEL_TRACES_EXPORTER": "none"}},
		{name: "protocol alone", protocol: "grpc", err: "--otlp-protocol needs --otlp-endpoint"},
		{name: "bad protocol", endpoint: "http://h:1", protocol: "thrift", err: `--otlp-protocol "thrift": want grpc or http`},
		{name: "json", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			err: `OTEL_EXPORTER_OTLP_PROTOCOL "http/json"`},
		{name: "no scheme", endpoint: "127.0.0.1:4317", err: `--otlp-endpoint "127.0.0.1:4317": want a URL`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			var o otlpFlags
			o.define(fs)
			*o.otlpEndpoint, *o.otlpProtocol = c.endpoint, c.protocol
			got, err := o.config(func(k string) string { return c.env[k] }, "llmmetrics")
			if c.err != "" {
				require.ErrorIs(t, err, errUsage)
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			if c.want != nil {
				c.want.service = "llmmetrics"
			}
			require.Equal(t, c.want, got)
		})
	}
	assert.Equal(t, "http://h:4318/v1/metrics", signalURL("http://h:4318", "metrics"))
	assert.Equal(t, "https://h/otlp/v1/traces", signalURL("https://h/otlp/", "traces"))
}

// closedPort returns a loopback URL on which nothing listens.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	u := "http://" + l.Addr().String()
	l.Close()
	return u
}

// A collector that refuses the connection neither fails nor stops the
// run: its export is dropped, and said in one warning.
func TestOTLPRefused(t *testing.T) {
	for _, proto := range []string{"grpc", "http"} {
		t.Run(proto, func(t *testing.T) {
			srv, served := fakeLlama(t)
			var warnings strings.Builder
			otlpStderr = &warnings
			defer func() { otlpStderr = os.Stderr }()
			code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
				"--requests", "6", "--concurrency", "2", "--prompt-tokens", "64", "--max-tokens", "4",
				"--otlp-endpoint", closedPort(t), "--otlp-protocol", proto)
			require.Equal(t, 0, code, errs)
			assert.Contains(t, stdout, "TTFT")
			assert.GreaterOrEqual(t, served.Load(), int64(6))
			// One line, counting the last push of the metrics and of
			// the spans, and any export made while the run went on.
			assert.Equal(t, 1, strings.Count(warnings.String(), "\n"), warnings.String())
			m := regexp.MustCompile(`^llmmetrics: warning: (\d+) OTLP export\(s\) to http://127\.0\.0\.1:\d+ failed and were dropped`).FindStringSubmatch(warnings.String())
			require.NotNil(t, m, warnings.String())
			n, _ := strconv.Atoi(m[1])
			assert.GreaterOrEqual(t, n, 2, "the metrics' and the spans' last pushes")
			assert.Contains(t, warnings.String(), "connection refused")
		})
	}
}

// otlpReceiver is an OTLP/HTTP endpoint of metrics and traces that keeps
// what it is sent.
type otlpReceiver struct {
	mu    sync.Mutex
	reqs  []*colmetrics.ExportMetricsServiceRequest
	spans []*tracepb.Span
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not OTLP/HTTP", http.StatusUnsupportedMediaType)
		return
	}
	b, _ := io.ReadAll(r.Body)
	o.mu.Lock()
	defer o.mu.Unlock()
	switch r.URL.Path {
	case "/v1/metrics":
		req := &colmetrics.ExportMetricsServiceRequest{}
		if err := proto.Unmarshal(b, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		o.reqs = append(o.reqs, req)
	case "/v1/traces":
		req := &coltrace.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(b, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				if ss.SchemaUrl != "https://opentelemetry.io/schemas/1.41.0" {
					http.Error(w, "schema "+ss.SchemaUrl, http.StatusBadRequest)
					return
				}
				o.spans = append(o.spans, ss.Spans...)
			}
		}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(nil)
}

// The run's metrics reach the collector at its end, under the resource
// OTEL_SERVICE_NAME names and the conventions' schema URL: the 12
// measured requests ok (12 asked, closed loop, so 12), the 2 warm-up and
// the sizing requests as warm-up, 12 durations and 12 × 8 output tokens.
func TestOTLPPush(t *testing.T) {
	srv, _ := fakeLlama(t)
	var rcv otlpReceiver
	col := httptest.NewServer(&rcv)
	defer col.Close()
	t.Setenv("OTEL_SERVICE_NAME", "bench-a")
	var warnings strings.Builder
	otlpStderr = &warnings
	defer func() { otlpStderr = os.Stderr }()
	code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
		"--requests", "12", "--concurrency", "3", "--warmup", "2", "--prompt-tokens", "64", "--max-tokens", "8",
		"--otlp-endpoint", col.URL)
	require.Equal(t, 0, code, errs)
	assert.Empty(t, warnings.String())
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	require.NotEmpty(t, rcv.reqs)
	last := rcv.reqs[len(rcv.reqs)-1] // cumulative: the last export has it all
	require.Len(t, last.ResourceMetrics, 1)
	rm := last.ResourceMetrics[0]
	assert.Equal(t, "bench-a", attr(rm.Resource.Attributes, "service.name"))
	require.Len(t, rm.ScopeMetrics, 1)
	sm := rm.ScopeMetrics[0]
	assert.Equal(t, "https://opentelemetry.io/schemas/1.41.0", sm.SchemaUrl)
	assert.Equal(t, "github.com/llmmetrics/llmmetrics/live", sm.Scope.Name)
	requests := map[string]int64{}
	var durations uint64
	var outputTokens int64
	for _, m := range sm.Metrics {
		switch m.Name {
		case "llmmetrics.requests":
			for _, dp := range m.GetSum().DataPoints {
				assert.Equal(t, "tiny", attr(dp.Attributes, "gen_ai.request.model"))
				requests[attr(dp.Attributes, "llmmetrics.outcome")] += dp.GetAsInt()
			}
		case "gen_ai.client.operation.duration":
			for _, dp := range m.GetHistogram().DataPoints {
				durations += dp.Count
			}
		case "llmmetrics.output_tokens":
			for _, dp := range m.GetSum().DataPoints {
				outputTokens += dp.GetAsInt()
			}
		}
	}
	assert.Equal(t, int64(12), requests["ok"])
	assert.GreaterOrEqual(t, requests["warmup"], int64(2+1), "the warm-up and at least one sizing request")
	assert.Equal(t, uint64(12), durations)
	assert.Equal(t, int64(12*8), outputTokens)

	// A span a request: the 12, the 2 warm-up and the sizing requests,
	// as many as the metrics counted.
	var offered int64
	for _, n := range requests {
		offered += n
	}
	assert.Len(t, rcv.spans, int(offered))
	var spanTokens int64
	for _, sp := range rcv.spans {
		assert.Equal(t, "chat tiny", sp.Name)
		for _, kv := range sp.Attributes {
			if kv.Key == "gen_ai.usage.output_tokens" && !hasAttr(sp.Attributes, "llmmetrics.outcome", "warmup") {
				spanTokens += kv.Value.GetIntValue()
			}
		}
	}
	assert.Equal(t, int64(12*8), spanTokens)
}

func hasAttr(kvs []*common.KeyValue, key, value string) bool {
	return attr(kvs, key) == value
}

func attr(kvs []*common.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

// The push belongs to a plain run: --search and --ttft-breakdown refuse
// it before anything is sent.
func TestOTLPPlainRunOnly(t *testing.T) {
	for _, mode := range [][]string{{"--search", "concurrency", "--slo", "ttft=1s", "--requests", "4", "--prompt-tokens", "64"}, {"--ttft-breakdown"}} {
		args := append([]string{"run", "--url", "http://127.0.0.1:1/v1/chat/completions", "--model", "m", "--otlp-endpoint", "http://127.0.0.1:4318"}, mode...)
		code, _, errs := runCLI(t, "", args...)
		assert.Equal(t, 2, code, errs)
		assert.Contains(t, errs, "--otlp-endpoint belongs to a plain run")
	}
}
