package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bodyRecorder stands in front of a server and keeps every request body
// it passes on (POSTs only: it answers no GET).
func bodyRecorder(t *testing.T, to string) (*httptest.Server, func() []map[string]any) {
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		json.Unmarshal(b, &m)
		mu.Lock()
		bodies = append(bodies, m)
		mu.Unlock()
		resp, err := http.Post(to+r.URL.Path, "application/json", bytes.NewReader(b))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []map[string]any { mu.Lock(); defer mu.Unlock(); return slices.Clone(bodies) }
}

func writeFile(t *testing.T, name, text string) string {
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// readRecords reads a run file's records by id.
func readRecords(t *testing.T, path string) (*llmmetrics.Run, map[string]llmmetrics.Record) {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	run, err := llmmetrics.ReadJSONL(bytes.NewReader(b))
	require.NoError(t, err)
	byID := map[string]llmmetrics.Record{}
	for _, r := range run.Records {
		byID[r.ID] = r
	}
	return run, byID
}

// A replayed Mooncake trace sends one request per row at its offset from
// the first row, divided by --speed, to the nanosecond on the run's clock
// (each record's Client.Scheduled minus the first's), with a prompt the
// server counts as the row's input length and the row's output length as
// max_tokens and min_tokens, with ignore_eos. The server of fakeLlama
// counts 20 tokens of template plus one a word, the salt a word: with the
// rows' prefix blocks, whose first may hold its salt alone, its shortest
// prompt is 21 tokens, and the row asking 10 is sent at 21, said. Rows 1,
// 2 and 4 begin with block 0's text.
func TestReplayRun(t *testing.T) {
	llama, _ := fakeLlama(t)
	srv, bodies := bodyRecorder(t, llama.URL)
	tr := writeFile(t, "trace.jsonl", `{"timestamp": 1000, "input_length": 30, "output_length": 3, "hash_ids": [0]}
{"timestamp": 1100, "input_length": 64, "output_length": 5, "hash_ids": [0]}
{"timestamp": 1100, "input_length": 10, "output_length": 1, "hash_ids": [1]}
{"timestamp": 1240, "input_length": 100, "output_length": 8, "hash_ids": [0]}
`)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
		"--replay", tr, "--speed", "2", "--out", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "early stop: 0 of 4")
	run, recs := readRecords(t, out)
	// Offsets 0, 100, 100, 240 ms in the trace; at speed 2: 0, 50, 50, 120.
	want := []struct {
		id                string
		at                time.Duration
		prompt, maxTokens int
	}{{"1", 0, 30, 3}, {"2", 50 * time.Millisecond, 64, 5}, {"3", 50 * time.Millisecond, 21, 1}, {"4", 120 * time.Millisecond, 100, 8}}
	base := recs["1"].Client.Scheduled
	for _, w := range want {
		r := recs[w.id]
		require.True(t, r.Client.HasSchedule, w.id)
		assert.Equal(t, w.at, r.Client.Scheduled-base, w.id)
		assert.Equal(t, w.prompt, r.PromptTokens, w.id)
		assert.Equal(t, w.maxTokens, r.MaxTokens, w.id)
		assert.Equal(t, w.maxTokens, r.CompletionTokens, w.id)
	}
	load := run.Header.Load
	assert.Equal(t, "mooncake", load["replay_format"])
	assert.Equal(t, "2", load["speed"])
	assert.Contains(t, load["output_length"], "ignore_eos and min_tokens")
	assert.Contains(t, strings.Join(run.End.Notes, " "), "1 of 4 trace rows ask a prompt shorter than the smallest this server allows, 21 tokens")
	// Three sizing requests (one word, a salt, two salts), then the four
	// rows, each asking exactly its length.
	bs := bodies()
	require.Len(t, bs, 7)
	for _, b := range bs[3:] {
		assert.Equal(t, true, b["ignore_eos"])
		assert.Equal(t, b["max_tokens"], b["min_tokens"])
	}
	content := func(b map[string]any) string {
		return b["messages"].([]any)[0].(map[string]any)["content"].(string)
	}
	first := strings.Fields(content(bs[3]))[0] // row 1's: block 0's salt
	for _, b := range bs[3:] {
		if b["max_tokens"] == 1.0 { // row 3, sent with row 2 in either order
			assert.False(t, strings.HasPrefix(content(b), first), "row 3's block 1 is another text")
		} else {
			assert.True(t, strings.HasPrefix(content(b), first+" hello"), "the row of max_tokens %v begins with block 0", b["max_tokens"])
		}
	}
}

// The own format's round trip: a run file replayed as a plan keeps every
// ok request's send time (from the first) and its usage.
func TestReplayOwnRoundTrip(t *testing.T) {
	llama, _ := fakeLlama(t)
	dir := t.TempDir()
	runFile, planFile := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "plan.jsonl")
	code, _, errs := runCLI(t, "", "run", "--url", llama.URL+"/v1/chat/completions", "--model", "tiny",
		"--requests", "20", "--rate", "200", "--prompt-tokens", "40±40%", "--max-tokens", "6±50%", "--warmup", "3", "--out", runFile)
	require.Equal(t, 0, code, errs)
	code, _, errs = runCLI(t, "", "run", "--dry-run", "--replay", runFile, "--out", planFile)
	require.Equal(t, 0, code, errs)

	run, _ := readRecords(t, runFile)
	var sent []llmmetrics.Record
	for _, r := range run.Records {
		if r.Status == llmmetrics.StatusOK && !r.Preflight {
			sent = append(sent, r)
		}
	}
	slices.SortStableFunc(sent, func(a, b llmmetrics.Record) int { return int(a.Sent - b.Sent) })
	require.Len(t, sent, 23, "3 warm-up and 20 measured, all ok")
	f, err := os.Open(planFile)
	require.NoError(t, err)
	defer f.Close()
	h, reqs, err := drive.ReadPlan(f)
	require.NoError(t, err)
	assert.Equal(t, "llmmetrics", h.Load["replay_format"])
	require.Len(t, reqs, len(sent))
	for i, r := range sent {
		q := reqs[i]
		assert.Equal(t, r.Sent-sent[0].Sent, q.Scheduled, "row %d", i)
		assert.Equal(t, r.PromptTokens, q.PromptTokens, "row %d", i)
		assert.Equal(t, r.CompletionTokens, q.MaxTokens, "row %d", i)
	}
}

// A bad trace is one line naming the file, the line and the field, status
// 2, and nothing is sent.
func TestReplayBadInput(t *testing.T) {
	srv, served := fakeLlama(t)
	az := "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
	for _, c := range []struct {
		name, text string
		args       []string
		want       string
	}{
		{"unsorted.csv", az + "2023-11-16 18:17:04.5,10,10\r\n2023-11-16 18:17:04.1,10,10", nil, `unsorted.csv:3: TIMESTAMP "2023-11-16 18:17:04.1": earlier than the row before it`},
		{"negative.jsonl", `{"timestamp": -5, "input_length": 10, "output_length": 3}` + "\n", nil, `negative.jsonl:1: timestamp "-5": negative`},
		{"missing.csv", "TIMESTAMP,ContextTokens\r\n2023-11-16 18:17:04.5,10\r\n", nil, "missing.csv:1: column GeneratedTokens: missing"},
		{"nan.csv", az + "2023-11-16 18:17:04.5,ten,10\r\n", nil, `nan.csv:2: ContextTokens "ten": not a number`},
		{"zero.jsonl", `{"timestamp": 5, "input_length": 10, "output_length": 0}` + "\n", nil, `zero.jsonl:1: output_length "0": a length of zero`},
		{"window.jsonl", `{"timestamp": 5, "input_length": 10, "output_length": 3}` + "\n", []string{"--replay-from", "1m"}, "window.jsonl: window 1m0s to the end: no row in it"},
		// 0 is not read as 1 in silence.
		{"speed0.jsonl", `{"timestamp": 5, "input_length": 10, "output_length": 3}` + "\n", []string{"--speed", "0"}, "--speed 0: want a positive factor"},
		{"scale0.jsonl", `{"timestamp": 5, "input_length": 10, "output_length": 3}` + "\n", []string{"--scale-tokens", "0"}, "--scale-tokens 0: want a positive factor"},
		// A window backwards is a usage mistake, not an empty window.
		{"backwards.jsonl", `{"timestamp": 5, "input_length": 10, "output_length": 3}` + "\n", []string{"--replay-from", "10s", "--replay-to", "5s"}, "--replay-to 5s comes before --replay-from 10s"},
		{"nothing.jsonl", `{"timestamp": 5, "input_length": 10, "output_length": 3}` + "\n", []string{"--replay-from", "5s", "--replay-to", "5s"}, "--replay-to 5s is --replay-from: the window would hold no time"},
		{"empty.csv", "", nil, "empty.csv: the file is empty: no line holds anything"},
	} {
		path := writeFile(t, c.name, c.text)
		args := append([]string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--replay", path}, c.args...)
		code, _, errs := runCLI(t, "", args...)
		assert.Equal(t, 2, code, c.name)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "%s: one line: %q", c.name, errs)
		assert.Contains(t, errs, c.want, c.name)
	}
	assert.Zero(t, served.Load(), "nothing is sent")
}

// Flags that do not go together are refused, status 2.
func TestReplayFlagConflicts(t *testing.T) {
	tr := writeFile(t, "t.jsonl", `{"timestamp": 5, "input_length": 10, "output_length": 3}`+"\n")
	for _, args := range [][]string{
		{"--replay", tr, "--requests", "5"},
		{"--replay", tr, "--prompt-tokens", "50"},
		{"--replay", tr, "--warmup", "2"},
		{"--speed", "2", "--requests", "5", "--concurrency", "1", "--prompt-tokens", "50"},
		{"--arrivals", "pareto:alpha=1.5,rate=20", "--rate", "5", "--requests", "5", "--prompt-tokens", "50"},
		{"--arrivals", "pareto:alpha=0.5,rate=20", "--requests", "5", "--prompt-tokens", "50"},
		{"--dry-run", "--search", "concurrency", "--slo", "ttft=1s", "--requests", "5", "--prompt-tokens", "50"},
		{"--dry-run", "--duration", "1m", "--concurrency", "2", "--prompt-tokens", "50"},
		{"--replay", tr, "--replay-format", "splitwise"},
	} {
		code, _, errs := runCLI(t, "", append([]string{"run", "--dry-run", "--model", "m"}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, errs)
	}
}

// A dry run needs no server: ON-OFF's plan puts nothing in the OFF
// windows, the arrivals and the seed are in its header, and report
// describes the file.
func TestDryRunArrivals(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--dry-run", "--arrivals", "onoff:on=2s,off=8s,rate=40", "--requests", "300",
		"--prompt-tokens", "512±25%", "--max-tokens", "128", "--seed", "9", "--out", plan)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "PLAN "+plan+" (nothing sent): 300 requests")
	f, err := os.Open(plan)
	require.NoError(t, err)
	defer f.Close()
	h, reqs, err := drive.ReadPlan(f)
	require.NoError(t, err)
	assert.Equal(t, "onoff:on=2s,off=8s,rate=40", h.Load["arrivals"])
	assert.Equal(t, "9", h.Load["seed"])
	assert.Equal(t, "8", h.Load["rate_per_s"], "40 a second for 2 s of every 10")
	require.Len(t, reqs, 300)
	for _, q := range reqs {
		assert.Less(t, q.Scheduled%(10*time.Second), 2*time.Second)
		assert.InDelta(t, 512, q.PromptTokens, 128)
		assert.Equal(t, 128, q.MaxTokens)
	}
	code, again, errs := runCLI(t, "", "report", plan)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, stdout, again)
	// Without --out, the plan is the output.
	code, stdout, errs = runCLI(t, "", "run", "--dry-run", "--arrivals", "pareto:alpha=1.5,rate=20", "--requests", "3", "--concurrency", "2", "--prompt-tokens", "64")
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(stdout, drive.PlanPrefix), stdout)
	assert.Equal(t, 4, strings.Count(stdout, "\n"), "the plan alone: no description mixed in")
	// An --out that exists is refused in one line, as run's outputs are.
	code, _, errs = runCLI(t, "", "run", "--dry-run", "--requests", "3", "--concurrency", "2", "--prompt-tokens", "64", "--out", plan)
	assert.Equal(t, 2, code)
	assert.Equal(t, "llmmetrics: --out "+plan+" exists; --force overwrites it\n", errs)
}

// help run documents every flag of a replay, of the arrivals and of the
// dry run.
func TestHelpRunReplayFlags(t *testing.T) {
	code, stdout, _ := runCLI(t, "", "help", "run")
	require.Equal(t, 0, code)
	doc, err := os.ReadFile("../../docs/run.md")
	require.NoError(t, err)
	for _, fl := range []string{"arrivals", "replay", "replay-format", "speed", "replay-from", "replay-to", "replay-rows", "scale-tokens", "cap-prompt-tokens", "cap-output-tokens", "replay-stream", "dry-run"} {
		assert.Contains(t, stdout, "-"+fl, fl)
		assert.True(t, strings.Contains(string(doc), "--"+fl), "docs/run.md names --%s", fl)
	}
}

// A dry run's plan is not a run: convert says so in one line, status 1,
// and report --json describes it as JSON.
func TestPlanConvertAndReportJSON(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.jsonl")
	code, _, errs := runCLI(t, "", "run", "--dry-run", "--rate", "4", "--requests", "5", "--prompt-tokens", "64", "--max-tokens", "8",
		"--seed", "3", "--model", "m", "--out", plan)
	require.Equal(t, 0, code, errs)

	code, _, errs = runCLI(t, "", "convert", plan, filepath.Join(dir, "plan.parquet"))
	assert.Equal(t, 1, code)
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	assert.Contains(t, errs, plan+": a dry run's plan, not a run: nothing to convert (report describes it)")
	assert.NoFileExists(t, filepath.Join(dir, "plan.parquet"))

	code, stdout, errs := runCLI(t, "", "report", "--json", plan)
	require.Equal(t, 0, code, errs)
	var got struct {
		Plan     string            `json:"plan"`
		Requests int               `json:"requests"`
		Load     map[string]string `json:"load"`
		Schedule *struct {
			FirstS float64 `json:"first_s"`
		} `json:"schedule"`
		MaxToks struct{ Min, Max int } `json:"max_tokens"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	assert.Equal(t, plan, got.Plan)
	assert.Equal(t, 5, got.Requests)
	assert.Equal(t, "4", got.Load["rate_per_s"])
	assert.NotNil(t, got.Schedule, "an open loop's schedule")
	assert.Equal(t, 8, got.MaxToks.Min)
	assert.Equal(t, 8, got.MaxToks.Max)
}

// The replay's note says the lengths as sent: scaled and capped when
// --scale-tokens and the caps say so.
func TestReplayNoteScaled(t *testing.T) {
	tr := writeFile(t, "t.jsonl", `{"timestamp": 5, "input_length": 1000, "output_length": 300}`+"\n"+
		`{"timestamp": 9, "input_length": 2000, "output_length": 30}`+"\n")
	code, stdout, errs := runCLI(t, "", "run", "--dry-run", "--model", "m", "--replay", tr, "--scale-tokens", "0.1",
		"--cap-output-tokens", "20", "--out", filepath.Join(t.TempDir(), "plan.jsonl"))
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, stdout, "as the trace gives them")
	assert.Contains(t, stdout, "its prompt and output lengths the trace's times 0.1 (--scale-tokens), rounded, at least 1, then capped: outputs at most 20 tokens.")
	// 1000 and 2000 times 0.1: 100 and 200; 300 and 30: 30 (capped at 20) and 3.
	assert.Contains(t, stdout, "prompt tokens      min 100, p50 100, mean 150.0, p99 200, max 200 (2 requests)")
	assert.Contains(t, stdout, "max tokens         min 3, p50 3, mean 11.5, p99 20, max 20 (2 requests)")

	code, stdout, errs = runCLI(t, "", "run", "--dry-run", "--model", "m", "--replay", tr, "--out", filepath.Join(t.TempDir(), "plan.jsonl"))
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "its prompt and output lengths as the trace gives them.")
}

// A gateway's file where an ok call lacks usage replays the others, the
// ones left out counted in the plan's notes; none with usage is refused.
// The advice fits the file's origin: the gateway's --include-usage for a
// file the gateway recorded, the server's silence for a run's.
func TestReplayRunFileNoUsage(t *testing.T) {
	withUsage := `{"id":"1","sent_ns":5,"first_text_ns":1,"last_text_ns":2,"prompt_tokens":7,"completion_tokens":3}` + "\n"
	without := `{"id":"2","sent_ns":9,"first_text_ns":1,"last_text_ns":2,"prompt_tokens":7}` + "\n"
	head := func(tool string) string {
		return `{"llmmetrics_run":{"tool":"` + tool + `","start":"2026-01-01T00:00:00Z"}}` + "\n"
	}
	for _, c := range []struct{ name, header, why string }{
		{"gateway", head("llmmetrics examples/gateway"), "record with the gateway's --include-usage"},
		{"run", head("llmmetrics (devel) go1.26.8"), "the server sent no usage in its answers to llmmetrics run"},
	} {
		prod := writeFile(t, "prod.jsonl", c.header+withUsage+without+withUsage)
		plan := filepath.Join(t.TempDir(), "p.jsonl")
		code, stdout, errs := runCLI(t, "", "run", "--replay", prod, "--dry-run", "--model", "m", "--out", plan)
		require.Equal(t, 0, code, errs)
		assert.Contains(t, stdout, "PLAN "+plan+" (nothing sent): 2 requests", c.name)
		assert.Contains(t, stdout, "note: 1 ok request without a usage count left out: "+c.why, c.name)

		none := writeFile(t, "none.jsonl", c.header+without)
		code, _, errs = runCLI(t, "", "run", "--replay", none, "--dry-run", "--model", "m", "--out", plan+"2")
		assert.Equal(t, 2, code, c.name)
		assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
		assert.Contains(t, errs, "none.jsonl:2: completion_tokens: missing: the server gave no usage for the one ok request: "+c.why, c.name)
	}
	code, stdout, _ := runCLI(t, "", "run", "--replay", writeFile(t, "bare.jsonl", withUsage+without), "--dry-run", "--model", "m", "--out", filepath.Join(t.TempDir(), "p.jsonl"))
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "left out: the file has no run header to say what recorded it; a file of the gateway needs its --include-usage")
}

// The replay window's lines are the file's first and last of its rows,
// whatever order they are sent in (a run file is written as requests end,
// sent in the order they were sent), with a word when lines between are
// not rows of the window.
func TestFileLines(t *testing.T) {
	rows := func(lines ...int) []drive.Request {
		var reqs []drive.Request
		for _, n := range lines {
			reqs = append(reqs, drive.Request{Source: fmt.Sprintf("dir:x/t.jsonl:%d", n)})
		}
		return reqs
	}
	for _, c := range []struct {
		lines []int
		want  string
	}{
		{[]int{7}, "line 7 of the file"},
		{[]int{4, 5, 6}, "lines 4 to 6 of the file"},
		{[]int{4, 3}, "lines 3 to 4 of the file"},          // sent in the other order
		{[]int{2, 4, 1}, "among lines 1 to 4 of the file"}, // line 3 is not a row
	} {
		assert.Equal(t, c.want, fileLines(rows(c.lines...)), "%v", c.lines)
	}
}
