package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realTrace returns the path of a real trace, or skips the test when
// ../shared/realdata is absent.
func realTrace(t *testing.T, name string) string {
	path := filepath.Join("..", "..", "..", "shared", "realdata", "traces", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the real trace %s is absent (../shared/realdata is not here): %v", name, err)
	}
	return path
}

// niceLlamaServer is llamaServer at a lower CPU priority (nice 10) and
// one thread: on two busy cores the client, whose lateness is measured,
// gets the CPU first, as it would on a machine of its own.
func niceLlamaServer(t *testing.T) string { return startLlama(t, []string{"nice", "-n", "10"}, 1) }

// replayed plans a replay with --dry-run and sends it to base with
// --json, and returns the plan's requests, the run's measured records by
// their place in the plan, and the report's fidelity.
func replayed(t *testing.T, base string, flags ...string) ([]drive.Request, []llmmetrics.Record, fidelity, string) {
	dir := t.TempDir()
	planFile, out, timings := filepath.Join(dir, "plan.jsonl"), filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "timings.jsonl")
	code, _, errs := runCLI(t, "", append([]string{"run", "--dry-run", "--out", planFile}, flags...)...)
	require.Equal(t, 0, code, errs)
	f, err := os.Open(planFile)
	require.NoError(t, err)
	defer f.Close()
	_, plan, err := drive.ReadPlan(f)
	require.NoError(t, err)

	code, stdout, errs := runCLI(t, "", append([]string{"run", "--url", base + "/v1/chat/completions", "--model", "tiny",
		"--out", out, "--timings", timings, "--json"}, flags...)...)
	require.Equal(t, 0, code, errs)
	var rep struct {
		LoadCheck struct {
			Fidelity *fidelity `json:"fidelity"`
		} `json:"load_check"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	require.NotNil(t, rep.LoadCheck.Fidelity, stdout)
	// report --plan of the saved file gives the section run printed.
	code, reported, errs := runCLI(t, "", "report", "--json", "--plan", planFile, out)
	require.Equal(t, 0, code, errs)
	var again struct {
		LoadCheck struct {
			Fidelity *fidelity `json:"fidelity"`
		} `json:"load_check"`
	}
	require.NoError(t, json.Unmarshal([]byte(reported), &again), reported)
	assert.Equal(t, rep.LoadCheck.Fidelity, again.LoadCheck.Fidelity, "report --plan")

	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	recs := make([]llmmetrics.Record, len(plan))
	for _, r := range run.Records {
		if r.Preflight {
			continue
		}
		n, err := strconv.Atoi(r.ID)
		require.NoError(t, err, r.ID)
		require.True(t, n >= 1 && n <= len(plan) && recs[n-1].ID == "", "record %s once, in the plan", r.ID)
		recs[n-1] = r
	}
	return plan, recs, *rep.LoadCheck.Fidelity, timings
}

// A 20-second replay of the Azure conversation trace (24 s of it at speed
// 1.2, lengths scaled by 0.25 and capped to what the tiny model's slots
// of 2,048 tokens take, outputs at 8 tokens) ends with records equal to
// the plan: every row sent once, at its offset from the first exactly
// (Client.Scheduled), asking its max_tokens and getting it (the tiny
// model never stops early); the client sent each within 50 ms of its
// due time at p99, and the fidelity section has no WARNING.
func TestRealServerReplayAzure(t *testing.T) {
	tr := realTrace(t, "Azure__AzurePublicDataset__AzureLLMInferenceTrace_conv.csv")
	base := niceLlamaServer(t)
	plan, recs, fd, _ := replayed(t, base, "--replay", tr, "--replay-to", "24s", "--speed", "1.2", "--scale-tokens", "0.25",
		"--cap-prompt-tokens", "1000", "--cap-output-tokens", "8")
	require.Greater(t, len(plan), 30, "the window holds the rows of 24 s (39 in the trace)")
	first := recs[0].Client.Scheduled
	for i, q := range plan {
		r := recs[i]
		require.NotEmpty(t, r.ID, "plan row %d (%s) was sent", i+1, q.Source)
		assert.Equal(t, llmmetrics.StatusOK, r.Status, "%s: %s", q.Source, r.Message)
		assert.Equal(t, q.Scheduled, r.Client.Scheduled-first, q.Source)
		assert.Equal(t, q.MaxTokens, r.MaxTokens, q.Source)
		assert.Equal(t, q.MaxTokens, r.CompletionTokens, q.Source)
	}
	assert.Equal(t, len(plan), fd.Asked)
	assert.Equal(t, len(plan), fd.Sent)
	require.NotNil(t, fd.LatenessP99MS)
	t.Logf("%d rows; lateness p50 %.3f ms, p99 %.3f ms", len(plan), *fd.LatenessP50MS, *fd.LatenessP99MS)
	assert.Less(t, *fd.LatenessP99MS, 50.0, "lateness p99 in ms")
	assert.Empty(t, fd.Warnings)
	assert.Zero(t, fd.EarlyStops)
}

// A Mooncake replay against llama-server's prefix cache: 20 s of the
// synthetic trace (990 s to 1010 s, where its multi-turn conversations
// come back; lengths and blocks scaled by 0.05, blocks of 26 tokens).
// The test reads the plan's hash_ids itself: a request whose first two
// blocks were both sent before shares more than the block 0 every
// request begins with, and the server's cached prompt tokens
// (timings.cache_n, from --timings) cover most of its prompt; the others
// get little from the cache. The fidelity section says the same from the
// usage's cached_tokens.
func TestRealServerReplayMooncake(t *testing.T) {
	tr := realTrace(t, "kvcache-ai__Mooncake__synthetic_trace.jsonl")
	base := niceLlamaServer(t)
	plan, recs, fd, timings := replayed(t, base, "--replay", tr, "--replay-from", "990s", "--replay-to", "1010s", "--scale-tokens", "0.05",
		"--cap-prompt-tokens", "1500", "--cap-output-tokens", "4")
	cacheN := map[string]int{}
	b, err := os.ReadFile(timings)
	require.NoError(t, err)
	for _, line := range splitLines(b) {
		var tl struct {
			ID      string `json:"id"`
			Timings struct {
				CacheN int `json:"cache_n"`
			} `json:"timings"`
		}
		require.NoError(t, json.Unmarshal(line, &tl))
		cacheN[tl.ID] = tl.Timings.CacheN
	}
	seen := map[int]bool{}
	var sharing, other struct{ cached, prompt, n int }
	for i, q := range plan {
		r := recs[i]
		require.Equal(t, llmmetrics.StatusOK, r.Status, "%s: %s", q.Source, r.Message)
		k := min(len(q.PrefixBlocks), (q.PromptTokens+25)/26)
		shares := k >= 2 && seen[q.PrefixBlocks[0]] && seen[q.PrefixBlocks[1]]
		for _, id := range q.PrefixBlocks[:k] {
			seen[id] = true
		}
		c, ok := cacheN[r.ID]
		require.True(t, ok, "request %s has its timings", r.ID)
		s := &other
		if shares {
			s = &sharing
		}
		s.cached, s.prompt, s.n = s.cached+c, s.prompt+r.PromptTokens, s.n+1
	}
	t.Logf("sharing: %d requests, %d of %d prompt tokens cached; others: %d, %d of %d", sharing.n, sharing.cached, sharing.prompt, other.n, other.cached, other.prompt)
	require.Greater(t, sharing.n, 10, "the window shares prefixes")
	assert.Greater(t, float64(sharing.cached), 0.5*float64(sharing.prompt), "the requests that share prefixes find them cached")
	assert.Less(t, float64(other.cached), 0.2*float64(other.prompt), "the others do not")

	pr := fd.Prefix
	require.NotNil(t, pr)
	assert.Greater(t, pr.PlannedPct, 30.0)
	require.NotNil(t, pr.SharedCachedPct)
	require.NotNil(t, pr.UnsharedCachedPct)
	assert.Greater(t, *pr.SharedCachedPct, 50.0)
	assert.Less(t, *pr.UnsharedCachedPct, 20.0)
}

// splitLines returns the lines of b that hold something.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	start := 0
	for i, c := range b {
		if c == '\n' {
			if i > start {
				out = append(out, b[start:i])
			}
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, b[start:])
	}
	return out
}
