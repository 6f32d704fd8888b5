package main

import (
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replayFile is a run file of llmmetrics' JSONL with a header whose start
// is 2025-03-04T05:06:07.123456789Z: two streamed ok requests, one failed
// without chunks and one warm-up.
const replayFile = `{"llmmetrics_run":{"tool":"llmmetrics","model":"tiny","api":"chat","target":"http://10.0.0.5:8080/v1/chat/completions","start":"2025-03-04T05:06:07.123456789Z"}}
{"id":"w","status":"ok","warmup":true,"sent_ns":1000,"chunk_arrivals_ns":[5000000,6000000],"prompt_tokens":10,"completion_tokens":2}
{"id":"a","status":"ok","sent_ns":2000000007,"chunk_arrivals_ns":[123456789,150000000,170000001],"prompt_tokens":10,"completion_tokens":3}
{"id":"b","status":"ok","sent_ns":3500000000,"chunk_arrivals_ns":[987654321,1000000000],"prompt_tokens":12,"completion_tokens":2}
{"id":"c","status":"error","sent_ns":4000000000,"message":"HTTP 503: overloaded"}
`

// The records' send times and TTFTs, by id, from replayFile: the span's
// start is the header's start plus the send (no client wait recorded),
// its time_to_first_chunk the first chunk's arrival.
var replayWant = map[string]struct {
	sent, ttft time.Duration
	hasTTFT    bool
}{
	"w": {sent: 1000, ttft: 5000000, hasTTFT: true},
	"a": {sent: 2000000007, ttft: 123456789, hasTTFT: true},
	"b": {sent: 3500000000, ttft: 987654321, hasTTFT: true},
	"c": {sent: 4000000000},
}

func writeReplayFile(t *testing.T, body string) string {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path
}

// report --otlp pushes one span a record to an OTLP/HTTP receiver, each
// at the header's start plus its send, with its TTFT to the nanosecond,
// after printing the report as usual.
func TestReportOTLPReplay(t *testing.T) {
	var rcv otlpReceiver
	col := httptest.NewServer(&rcv)
	defer col.Close()
	t.Setenv("OTEL_SERVICE_NAME", "replayed")
	var warnings strings.Builder
	otlpStderr = &warnings
	defer func() { otlpStderr = os.Stderr }()
	code, stdout, errs := runCLI(t, "", "report", "--otlp", "--otlp-endpoint", col.URL, writeReplayFile(t, replayFile))
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "TTFT")
	assert.Equal(t, "llmmetrics: pushed 4 spans to "+col.URL+"\n", warnings.String())

	start := time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC)
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	assert.Empty(t, rcv.reqs, "a replay pushes no metrics")
	require.Len(t, rcv.spans, len(replayWant))
	// The spans carry no record id: they are told apart by their start.
	byStart := map[time.Time]string{}
	for id, w := range replayWant {
		byStart[start.Add(w.sent)] = id
	}
	seen := map[string]bool{}
	for _, sp := range rcv.spans {
		at := time.Unix(0, int64(sp.StartTimeUnixNano)).UTC()
		id, ok := byStart[at]
		require.True(t, ok, "a span starting at %s, at no record's send", at)
		seen[id] = true
		w := replayWant[id]
		assert.Equal(t, "chat tiny", sp.Name)
		assert.Equal(t, "10.0.0.5", attr(sp.Attributes, "server.address"))
		var ttft float64
		found := false
		for _, kv := range sp.Attributes {
			if kv.Key == "gen_ai.response.time_to_first_chunk" {
				ttft, found = kv.Value.GetDoubleValue(), true
			}
		}
		require.Equal(t, w.hasTTFT, found, id)
		if found {
			assert.Equal(t, w.ttft, time.Duration(math.Round(ttft*1e9)), id)
		}
	}
	assert.Len(t, seen, len(replayWant))
	assert.True(t, hasAttr(rcv.spans[0].Attributes, "gen_ai.operation.name", "chat"))
}

// A file without a run header has no wall clock: --otlp refuses it in one
// line, before any report, unless --otlp-epoch gives one.
func TestReportOTLPEpoch(t *testing.T) {
	headless := replayFile[strings.Index(replayFile, "\n")+1:]
	path := writeReplayFile(t, headless)
	code, stdout, errs := runCLI(t, "", "report", "--otlp", "--otlp-endpoint", "http://127.0.0.1:4318", path)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	assert.Contains(t, errs, "no run header, so no wall-clock start for its spans: give --otlp-epoch")

	var rcv otlpReceiver
	col := httptest.NewServer(&rcv)
	defer col.Close()
	var warnings strings.Builder
	otlpStderr = &warnings
	defer func() { otlpStderr = os.Stderr }()
	code, _, errs = runCLI(t, "", "report", "--otlp", "--otlp-epoch", "2030-01-02T03:04:05Z", "--otlp-endpoint", col.URL, path)
	require.Equal(t, 0, code, errs)
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	require.Len(t, rcv.spans, 4)
	epoch := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	var earliest time.Time
	for _, sp := range rcv.spans {
		at := time.Unix(0, int64(sp.StartTimeUnixNano)).UTC()
		if earliest.IsZero() || at.Before(earliest) {
			earliest = at
		}
	}
	assert.Equal(t, epoch.Add(1000), earliest, "the warm-up, sent 1000 ns after the epoch")
}

// A collector that refuses the connection does not fail the report: it
// prints, exits 0, and one warning says the spans were dropped.
func TestReportOTLPRefused(t *testing.T) {
	for _, proto := range []string{"grpc", "http"} {
		t.Run(proto, func(t *testing.T) {
			var warnings strings.Builder
			otlpStderr = &warnings
			defer func() { otlpStderr = os.Stderr }()
			code, stdout, errs := runCLI(t, "", "report", "--otlp", "--otlp-endpoint", closedPort(t), "--otlp-protocol", proto,
				writeReplayFile(t, replayFile))
			require.Equal(t, 0, code, errs)
			assert.Contains(t, stdout, "TTFT")
			assert.Equal(t, 1, strings.Count(warnings.String(), "\n"), warnings.String())
			assert.Regexp(t, regexp.MustCompile(`^llmmetrics: warning: pushed 0 of 4 spans to http://127\.0\.0\.1:\d+: 1 OTLP export\(s\) failed and were dropped`), warnings.String())
			assert.Contains(t, warnings.String(), "connection refused")
		})
	}
}

// The flags' mistakes are usage errors, before anything is read or sent.
func TestReportOTLPFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		err  string
	}{
		{args: []string{"--otlp"}, err: "--otlp needs --otlp-endpoint"},
		{args: []string{"--otlp-epoch", "2025-01-01T00:00:00Z"}, err: "go with --otlp"},
		{args: []string{"--otlp", "--otlp-epoch", "yesterday", "--otlp-endpoint", "http://h:1"}, err: "want an RFC3339 time"},
		{args: []string{"--otlp", "--otlp-endpoint", "h:1"}, err: "want a URL"},
		{args: []string{"--otlp", "--dialect", "vllm", "--otlp-endpoint", "http://h:1"}, err: "not a --dialect summary"},
		{args: []string{"--otlp"}, env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://h:1"}, err: "--otlp needs --otlp-endpoint"},
	} {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		args := append([]string{"report"}, c.args...)
		code, _, errs := runCLI(t, "", append(args, "../../testdata/sample_run.jsonl")...)
		assert.Equal(t, 2, code, "%v: %s", c.args, errs)
		assert.Contains(t, errs, c.err, c.args)
	}
}

// OTEL_SDK_DISABLED turns the push off: the report says so in one line.
func TestReportOTLPDisabled(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", closedPort(t))
	t.Setenv("OTEL_SDK_DISABLED", "true")
	var warnings strings.Builder
	otlpStderr = &warnings
	defer func() { otlpStderr = os.Stderr }()
	code, _, errs := runCLI(t, "", "report", "--otlp", writeReplayFile(t, replayFile))
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "llmmetrics: --otlp: no span pushed: OTEL_SDK_DISABLED=true\n", warnings.String())
}

// The project's CSV and other tools' files replay too, given an epoch: a
// span a record (goodput_cohort.csv holds 5, the AIPerf export 2); a file
// that stores no send times (LLMPerf's) has none, said in a note.
func TestReportOTLPFormats(t *testing.T) {
	for _, c := range []struct {
		file  string
		spans int
		note  string
	}{
		{file: "../../testdata/seeds/goodput_cohort.csv", spans: 5},
		{file: "../../formats/testdata/aiperf_profile_export.jsonl", spans: 2},
		{file: "../../formats/testdata/llmperf_individual_responses.json", note: "stores no send times: its 3 records have no time and no span"},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			var rcv otlpReceiver
			col := httptest.NewServer(&rcv)
			defer col.Close()
			var warnings strings.Builder
			otlpStderr = &warnings
			defer func() { otlpStderr = os.Stderr }()
			code, _, errs := runCLI(t, "", "report", "--otlp", "--otlp-epoch", "2025-01-01T00:00:00Z", "--otlp-endpoint", col.URL, c.file)
			require.Equal(t, 0, code, errs)
			assert.Contains(t, warnings.String(), c.note)
			assert.Contains(t, warnings.String(), "llmmetrics: pushed "+strconv.Itoa(c.spans)+" spans to "+col.URL)
			rcv.mu.Lock()
			defer rcv.mu.Unlock()
			assert.Len(t, rcv.spans, c.spans)
		})
	}
}
