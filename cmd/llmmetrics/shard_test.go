package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
)

// A shard's share of a plan, by hand: concurrency 5 over 3 shards is 2, 2
// and 1; 10 requests are 4, 3 and 3; a rate of 3 is 1 each; every shard
// has the same plan id, and another plan another.
func TestShareOfPlan(t *testing.T) {
	ids := map[string]bool{}
	for i, want := range []struct{ conc, reqs int }{{2, 4}, {2, 3}, {1, 3}} {
		fs, f := newRunFlags()
		require.NoError(t, fs.Parse([]string{"--url", "http://h/v1/chat/completions", "--concurrency", "5", "--rate", "3", "--requests", "10",
			"--shard", fmt.Sprintf("%d/3", i+1), "--out", fmt.Sprintf("s%d.jsonl", i)}))
		p := drive.Plan{Concurrency: 5, Requests: 10, Rate: 3, Seed: 1}
		sh, err := f.shardFlags.apply(fs, &p)
		require.NoError(t, err)
		assert.Equal(t, want.conc, p.Concurrency)
		assert.Equal(t, want.reqs, p.Requests)
		assert.Equal(t, 1.0, p.Rate)
		assert.Equal(t, 1+uint64(i)*1_000_003, p.Seed, "arrivals seeded apart")
		ids[sh.plan] = true
	}
	assert.Len(t, ids, 1, "one plan id for every shard, whatever its --out")

	fs, f := newRunFlags()
	require.NoError(t, fs.Parse([]string{"--url", "http://h/v1/chat/completions", "--concurrency", "6", "--requests", "10", "--shard", "1/3"}))
	p := drive.Plan{Concurrency: 6, Requests: 10}
	sh, err := f.shardFlags.apply(fs, &p)
	require.NoError(t, err)
	assert.NotContains(t, ids, sh.plan, "another plan, another id")

	for _, bad := range [][]string{{"--shard", "0/3"}, {"--shard", "4/3"}, {"--shard", "x"}, {"--shard", "3/4", "--concurrency", "2"},
		{"--start-at", "tomorrow"}} {
		fs, f := newRunFlags()
		require.NoError(t, fs.Parse(bad))
		p := drive.Plan{Concurrency: 2, Requests: 10}
		_, err := f.shardFlags.apply(fs, &p)
		assert.ErrorIs(t, err, errUsage, "%v", bad)
	}
	code, _, errs := runCLI(t, "", "run", "--url", "http://h/x", "--requests", "3", "--prompt-tokens", "8", "--search", "concurrency", "--slo", "ttft=1s", "--shard", "1/2")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--shard and --start-at belong to a plain run")
	past := share{startAt: time.Now().Add(-time.Minute)}
	assert.ErrorIs(t, past.wait(t.Context()), errUsage)
}

// runShards runs a plan as three shard processes' worth of run commands,
// started together, and returns their files.
func runShards(t *testing.T, dir string, args ...string) []string {
	start := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	files := make([]string, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		files[i] = filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i+1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, errs := runCLI(t, "", append([]string{"run", "--shard", fmt.Sprintf("%d/3", i+1), "--start-at", start, "--out", files[i]}, args...)...)
			assert.Equal(t, 0, code, errs)
		}()
	}
	wg.Wait()
	return files
}

// mergedReport is what the shard tests read of a report.
type mergedReport struct {
	Requests llmmetrics.Accounting
	TTFT     struct {
		P50 float64
		IDs map[string]string `json:"request_ids"`
	} `json:"ttft_ms"`
	Notes []string
}

// slowLlama is a fake server whose every reply streams 4 tokens 25 ms
// apart: a shard's 4 requests in a row span about 400 ms, so that the
// shards' windows overlap however late the scheduler starts one of them
// (the fake server of run_test.go answers in a few ms).
func slowLlama(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		served.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 4 {
			time.Sleep(25 * time.Millisecond)
			fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":" t%d"}}]}`+"\n\n", i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, `data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &served
}

// Three shards against a fake server merge into one run of the whole
// plan: 12 requests (4 a shard), each shard's ids prefixed, one plan id.
// Each shard also sends its test request first (max_tokens 1), written to
// its file and marked preflight: the server receives 12 + 3 = 15 requests and
// the merged file offers the same 15.
func TestShardsMerge(t *testing.T) {
	srv, served := slowLlama(t)
	dir := t.TempDir()
	args := []string{"--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--requests", "12", "--concurrency", "3",
		"--prompts", promptsFile(t), "--max-tokens", "4"}
	files := runShards(t, dir, args...)
	assert.Equal(t, int64(15), served.Load())
	for i, f := range files {
		run, _, err := readRuns(f, false)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("%d/3", i+1), run.Header.Load["shard"])
		assert.Equal(t, "1", run.Header.Load["concurrency"])
		assert.Equal(t, "4", run.Header.Load["requests"])
		assert.Len(t, run.Header.Load["plan"], 12)
		for _, r := range run.Records {
			assert.True(t, strings.HasPrefix(r.ID, fmt.Sprintf("s%d-", i+1)), r.ID)
		}
	}
	code, out, errs := runCLI(t, "", append([]string{"report", "--json", "--merge"}, files...)...)
	require.Equal(t, 0, code, errs)
	var got mergedReport
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, 15, got.Requests.Offered)
	assert.Equal(t, 0, got.Requests.Warmup)
	assert.Equal(t, 3, got.Requests.Preflight, "each share's test request")
	assert.Equal(t, 12, got.Requests.OK)
	// The merged run states the whole plan's load: 1 + 1 + 1 in flight,
	// 4 + 4 + 4 requests.
	var h struct {
		Run struct{ Load map[string]string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &h))
	assert.Equal(t, "3", h.Run.Load["concurrency"])
	assert.Equal(t, "12", h.Run.Load["requests"])
	assert.Equal(t, "3", h.Run.Load["shards"])
	assert.NotContains(t, h.Run.Load, "shard")
}

// The test: three shard processes against the real llama-server
// merge to figures that match one process sending the whole plan within
// run-to-run noise, and the merged run's accounting is exact. The noise
// bound is generous (a factor of 5 either way on the median TTFT: three
// client processes and the server share two busy cores, and ratios from
// 0.67 to 2.85 were seen) so that the verdict does not hang on the
// machine's load; the accounting is exact.
func TestShardsRealServer(t *testing.T) {
	base := llamaServer(t)
	dir := t.TempDir()
	args := []string{"--url", base + "/v1/chat/completions", "--model", "tiny", "--requests", "24", "--concurrency", "3",
		"--warmup", "1", "--prompts", promptsFile(t), "--max-tokens", "8"}
	// Three processes of the built command, as three machines would run it.
	bin := filepath.Join(dir, "llmmetrics")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// Five seconds for three processes to start: a safety net, not a
	// measurement (a start past is refused, and the test would fail).
	start := time.Now().Add(5 * time.Second).UTC().Format(time.RFC3339Nano)
	var files []string
	var procs []*exec.Cmd
	for i := range 3 {
		files = append(files, filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i+1)))
		cmd := exec.Command(bin, append([]string{"run", "--shard", fmt.Sprintf("%d/3", i+1), "--start-at", start, "--out", files[i]}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		procs = append(procs, cmd)
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		defer func() {
			if t.Failed() {
				t.Logf("shard %d: %s", i+1, stderr.String())
			}
		}()
	}
	for i, cmd := range procs {
		assert.NoError(t, cmd.Wait(), "shard %d", i+1)
	}
	whole := filepath.Join(dir, "whole.jsonl")
	code, _, errs := runCLI(t, "", append([]string{"run", "--out", whole}, args...)...)
	require.Equal(t, 0, code, errs)

	var merged, one mergedReport
	code, out, errs := runCLI(t, "", append([]string{"report", "--json", "--merge"}, files...)...)
	require.Equal(t, 0, code, errs)
	require.NoError(t, json.Unmarshal([]byte(out), &merged))
	code, out, errs = runCLI(t, "", "report", "--json", whole)
	require.Equal(t, 0, code, errs)
	require.NoError(t, json.Unmarshal([]byte(out), &one))

	// 24 measured requests; a process sends one warm-up request and its
	// test request (marked preflight): 3 warm-up and 3 preflight in the
	// merge, 1 and 1 in one.
	m, o := merged.Requests, one.Requests
	assert.Equal(t, 24, m.Offered-m.Warmup-m.Preflight)
	assert.Equal(t, 3, m.Warmup)
	assert.Equal(t, 3, m.Preflight)
	assert.Equal(t, 1, o.Warmup)
	assert.Equal(t, 1, o.Preflight)
	assert.Equal(t, o.Offered-o.Warmup-o.Preflight, m.Offered-m.Warmup-m.Preflight)
	assert.Equal(t, m.Offered, m.OK+m.ZeroToken+m.Failed+m.Rejected+m.Warmup+m.Preflight)
	require.Positive(t, one.TTFT.P50)
	ratio := merged.TTFT.P50 / one.TTFT.P50
	t.Logf("median TTFT: 3 shards merged %.2f ms, one process %.2f ms (ratio %.2f)", merged.TTFT.P50, one.TTFT.P50, ratio)
	assert.True(t, ratio > 0.2 && ratio < 5, "ratio %.2f", ratio)
	for _, f := range files {
		_, err := os.Stat(f)
		assert.NoError(t, err)
	}
}
