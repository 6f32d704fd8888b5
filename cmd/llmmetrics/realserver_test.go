package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/llmmetrics/llmmetrics/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// llamaServer starts llama.cpp's llama-server with the tiny generated model
// on 127.0.0.1 and returns its base URL. .ci/run builds both (see
// ../shared/realserver/README.md) and names them in LLMMETRICS_LLAMA_SERVER
// and LLMMETRICS_TINY_MODEL; without them the test is skipped.
func llamaServer(t *testing.T) string { return startLlama(t, nil, 2) }

// startLlama starts llama-server with threads threads, its command line
// after prefix (nice, say), and returns its base URL once it is healthy.
func startLlama(t *testing.T, prefix []string, threads int) string {
	bin, model := os.Getenv("LLMMETRICS_LLAMA_SERVER"), os.Getenv("LLMMETRICS_TINY_MODEL")
	if bin == "" || model == "" {
		t.Skip("no real server: set LLMMETRICS_LLAMA_SERVER and LLMMETRICS_TINY_MODEL (.ci/run builds llama-server and the tiny model from ../shared/realserver and sets them)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	args := append(slices.Clone(prefix), bin, "-m", model, "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--metrics",
		"-a", "tiny", "-np", "2", "-c", "4096", "-n", "256", "-t", fmt.Sprint(threads), "--no-webui")
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	logf, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = logf, logf
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cancel(); cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("llama-server did not become healthy: %s", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRealServer drives a real llama-server through the command and the
// library: chat and completions, with and without include_usage, closed
// and open loops, kept-alive connections, a timeout and a cancelled run. Every request sent is in
// the output exactly once; the tiny model never stops early, so n equals
// max_tokens; Σ usage completion tokens equals the delta of
// llamacpp:tokens_predicted_total over the measured window (the known-output
// check); and the streams' timings feed the TTFT decomposition.
func TestRealServer(t *testing.T) {
	base := llamaServer(t)
	dir := t.TempDir()

	for _, c := range []struct {
		name string
		args []string
	}{
		{"chat closed loop", []string{"--url", base + "/v1/chat/completions", "--concurrency", "2", "--requests", "30"}},
		{"completions closed loop", []string{"--url", base + "/v1/completions", "--concurrency", "2", "--requests", "30"}},
		{"chat open loop", []string{"--url", base + "/v1/chat/completions", "--rate", "40", "--requests", "30", "--concurrency", "4"}},
		// llama-server closes every connection after its streamed response;
		// a request that finds its reused connection closed is sent again
		// on a fresh one, and only then (the known-output check counts).
		{"chat keep-alive", []string{"--url", base + "/v1/chat/completions", "--concurrency", "2", "--requests", "30", "--keep-alive"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, timings := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "timings.jsonl")
			args := append([]string{"run", "--model", "tiny", "--warmup", "3", "--prompt-tokens", "64", "--max-tokens", "24",
				"--body", `{"temperature":0,"seed":1}`, "--scrape", base + "/metrics", "--out", out, "--timings", timings, "--force", "--json"}, c.args...)
			code, stdout, errs := runCLI(t, "", args...)
			require.Equal(t, 0, code, errs)
			var got struct {
				Client struct {
					Requests llmmetrics.Accounting `json:"requests"`
				} `json:"client"`
				Server struct {
					Known struct {
						Agree        bool    `json:"agree"`
						ServerTokens float64 `json:"server_generation_tokens"`
						ClientTokens int64   `json:"client_completion_tokens"`
					} `json:"known_output"`
				} `json:"server"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
			a := got.Client.Requests
			assert.Equal(t, 30, a.OK, "%+v", a)
			assert.Equal(t, 3, a.Warmup, "3 warm-up requests")
			assert.Equal(t, 2, a.Preflight, "2 sizing requests")
			assert.Equal(t, a.Offered, a.OK+a.Warmup+a.Preflight)
			assert.True(t, got.Server.Known.Agree, "%+v", got.Server.Known)
			assert.Equal(t, float64(30*24), got.Server.Known.ServerTokens)

			run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
			require.NoError(t, err)
			ids := map[string]bool{}
			for _, r := range run.Records {
				require.False(t, ids[r.ID], "id %s twice", r.ID)
				ids[r.ID] = true
				if !r.Warmup {
					assert.Equal(t, 24, r.CompletionTokens, "the tiny model runs to max_tokens")
					assert.Len(t, r.Chunks, 24, "one token per event")
				}
			}
			assert.Len(t, ids, 35)

			// The timings decompose TTFT: llama.cpp reports prefill (prompt_ms).
			tm := readTimingsFile(t, timings)
			assert.Len(t, tm, 35)
			d := server.DecomposeAll(run.Records, tm, []int{128})
			require.NotEmpty(t, d.Rows)
			for _, row := range d.Rows {
				assert.NotNil(t, row.Prefill, row.ID)
			}
		})
	}

	// The lessons' TTFT breakdown: llama-server ignores cache_salt and says
	// so through timings.cache_n, so each prompt begins with its own text;
	// prompt_ms grows with the prompt; a prompt longer than a slot's
	// context (-c 4096 over -np 2 slots) fails, and what follows is
	// skipped.
	t.Run("ttft breakdown", func(t *testing.T) {
		out := filepath.Join(dir, "breakdown.jsonl")
		code, stdout, errs := runCLI(t, "", "run", "--ttft-breakdown", "--url", base+"/v1/chat/completions", "--model", "tiny",
			"--prompt-lengths", "128,1024,3000,3500", "--repeats", "3", "--settle", "100ms", "--out", out, "--json")
		require.Equal(t, 0, code, errs)
		var got breakdownJSON
		require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
		b := got.B
		assert.Equal(t, "text", b.Salt, b.SaltNote)
		assert.Contains(t, b.SaltNote, "ignores cache_salt")
		require.Len(t, b.Lengths, 4)
		// The least of each length's three prefills: a busy machine only
		// delays a prefill, so the least is the work's, and grows with it.
		prefill := func(i int) float64 {
			l := b.Lengths[i]
			require.Equal(t, 3, l.Decomposed, "%+v", l)
			least := math.Inf(1)
			for k, r := range l.Decomposition.Rows {
				require.NotNil(t, r.Prefill)
				assert.Less(t, *r.Prefill, r.ClientTTFT, "the prefill is inside the client's TTFT")
				// The tiny model counts 6 tokens a word ("hello" and its space, one a
				// character), so the nearest size is within 3 tokens.
				assert.InDelta(t, l.Asked, l.ServerPrompt[k], 3, "sized as the server counts")
				require.NotNil(t, l.Cached[k])
				assert.Less(t, *l.Cached[k], 16, "cold: at most the chat template's start is reused")
				least = math.Min(least, *r.Prefill)
			}
			return least
		}
		short, long := prefill(0), prefill(1)
		assert.Greater(t, long, short, "prompt_ms grows with prompt_n")
		failedAt := -1
		for i, l := range b.Lengths {
			if l.Failed > 0 {
				failedAt = i
				break
			}
		}
		require.GreaterOrEqual(t, failedAt, 2, "a prompt beyond the slot's 2048 tokens fails: %s", stdout)
		assert.NotEmpty(t, b.Lengths[failedAt].Failure)
		for _, l := range b.Lengths[failedAt+1:] {
			assert.Equal(t, 3, l.Skipped)
			assert.Equal(t, fmt.Sprintf("after the failure at %d tokens", b.Lengths[failedAt].Asked), l.SkipReason)
		}
	})

	// The capacity search runs its probes against the real server, and
	// every probe's requests are answered.
	t.Run("capacity search", func(t *testing.T) {
		code, stdout, errs := runCLI(t, "", "run", "--search", "concurrency", "--slo", "ttft=30s", "--search-max", "2", "--repeats", "1",
			"--url", base+"/v1/chat/completions", "--model", "tiny", "--requests", "4", "--prompt-tokens", "64", "--max-tokens", "8", "--json")
		require.Equal(t, 0, code, errs)
		var got struct {
			Search struct {
				Probes []struct {
					Level      float64
					Attainment float64
				}
				Passing *float64
			}
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
		require.Len(t, got.Search.Probes, 2)
		for _, p := range got.Search.Probes {
			assert.Equal(t, 1.0, p.Attainment, "the tiny model answers within 30 s")
		}
		require.NotNil(t, got.Search.Passing)
		assert.Equal(t, 2.0, *got.Search.Passing)
	})

	// --prompt-tokens N gives prompts of N tokens as the server counts
	// them, within 5% or 8 tokens, from the smallest the chat template
	// allows (a smaller N is refused with the template's own size) to near
	// a slot's context (2,048 tokens); the sizing requests are never longer
	// than the prompts. The prompts' count is the nearest that whole words
	// give: within half a word's tokens of N, measured here apart (issue
	// #21, point 5: for 41 and 42 it sent the one-word 35, not 41).
	t.Run("prompt sizing", func(t *testing.T) {
		count := func(prompt string) int {
			res, err := drive.TestRequest(context.Background(), drive.Plan{URL: base + "/v1/chat/completions", API: observe.Chat, Model: "tiny", Prompts: []string{prompt}})
			require.NoError(t, err)
			return res.Record.PromptTokens
		}
		word := count("00000000 hello") - count("00000000") // the tokens of a word
		require.Greater(t, word, 0)
		args := func(n int) []string {
			return []string{"run", "--url", base + "/v1/chat/completions", "--model", "tiny", "--requests", "2", "--concurrency", "1",
				"--max-tokens", "1", "--prompt-tokens", fmt.Sprint(n), "--out", filepath.Join(dir, "sizing.jsonl"), "--force"}
		}
		code, _, errs := runCLI(t, "", args(1)...)
		require.Equal(t, 1, code, errs)
		var smallest int
		_, err := fmt.Sscanf(errs[strings.Index(errs, "a one-word prompt counts "):], "a one-word prompt counts %d tokens", &smallest)
		require.NoError(t, err, errs)
		require.Greater(t, smallest, 1)
		for _, n := range []int{smallest, smallest + 3, smallest + 5, smallest + 6, smallest + 7, smallest + 8, 64, 300, 1000, 1900} {
			code, _, errs := runCLI(t, "", args(n)...)
			require.Equal(t, 0, code, errs)
			run, err := llmmetrics.ReadJSONL(mustOpen(t, filepath.Join(dir, "sizing.jsonl")))
			require.NoError(t, err)
			tol := max(8, 0.05*float64(n))
			for _, r := range run.Records {
				if r.Warmup {
					assert.LessOrEqual(t, r.PromptTokens, max(n, smallest), "sizing request %s for %d", r.ID, n)
					continue
				}
				assert.InDelta(t, n, r.PromptTokens, tol, "prompt of %d tokens asked", n)
				assert.InDelta(t, n, r.PromptTokens, float64(word)/2, "prompt of %d tokens asked: the nearest whole words (%d tokens a word)", n, word)
			}
		}
	})

	t.Run("chat without include_usage", func(t *testing.T) {
		p := drive.Plan{URL: base + "/v1/chat/completions", API: observe.Chat, Model: "tiny", MaxTokens: 8, Prompts: []string{"hi"},
			Requests: 4, Concurrency: 2, Extra: map[string]json.RawMessage{"stream_options": json.RawMessage(`{"include_usage":false}`)}}
		out, err := drive.Run(context.Background(), p)
		require.NoError(t, err)
		require.Len(t, out.Results, 4)
		for _, r := range out.Results {
			assert.False(t, r.UsageKnown, "no usage: n unknown, never a chunk count")
			assert.Len(t, r.Record.Chunks, 8)
			assert.Equal(t, "llama.cpp", r.TimingsSource, "timings ride on the finish chunk")
		}
		// Kept for what needs no count, and counted apart (issue 20).
		s, err := observe.Run(out.Results).Summarize(llmmetrics.Options{})
		require.NoError(t, err)
		assert.Equal(t, 4, s.Requests.Uncounted.NoUsage)
		assert.Equal(t, 4, s.TTFT.N)
		assert.Nil(t, s.TPOT)
	})

	t.Run("timeout and cancel", func(t *testing.T) {
		p := drive.Plan{URL: base + "/v1/chat/completions", API: observe.Chat, Model: "tiny", MaxTokens: 200, Prompts: []string{"hi"},
			Requests: 2, Concurrency: 2, Timeout: time.Millisecond}
		out, err := drive.Run(context.Background(), p)
		require.NoError(t, err)
		for _, r := range out.Results {
			assert.Equal(t, llmmetrics.StatusTimeout, r.Record.Status, r.Record.Message)
		}
		p.Timeout, p.Requests, p.Duration, p.Grace = 0, 0, time.Minute, time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		out, err = drive.Run(ctx, p)
		require.NoError(t, err)
		assert.True(t, out.Interrupted)
		ok, cancelled := 0, 0
		for _, r := range out.Results {
			switch r.Record.Status {
			case llmmetrics.StatusOK:
				ok++
			case llmmetrics.StatusCancelled:
				cancelled++
			}
		}
		assert.Equal(t, len(out.Results), ok+cancelled)
		assert.Positive(t, cancelled, "the requests in flight at the interrupt")
	})
}

func mustOpen(t *testing.T, path string) *os.File {
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func readTimingsFile(t *testing.T, path string) map[string]server.Timings {
	f := mustOpen(t, path)
	out := map[string]server.Timings{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		id, tm, err := server.ParseTimingsLine(sc.Bytes())
		require.NoError(t, err)
		out[id] = tm
	}
	return out
}
