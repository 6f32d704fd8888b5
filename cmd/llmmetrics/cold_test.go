package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// contents returns the user message of each body recorded, in order.
func contents(bodies []map[string]any) []string {
	var out []string
	for _, b := range bodies {
		out = append(out, b["messages"].([]any)[0].(map[string]any)["content"].(string))
	}
	return out
}

// A run repeated with the same flags is cold: its synthetic prompts have
// salts of its own, so a server's prefix cache holds nothing of the run
// before; the header's load gives the salt, and --prompt-salt sends a
// run's very prompts again. Within one run, two requests of one prefix
// group share their block's text; across runs they do not.
func TestRunColdPrompts(t *testing.T) {
	llama, _ := fakeLlama(t)
	srv, bodies := bodyRecorder(t, llama.URL)
	dir := t.TempDir()
	send := func(extra ...string) (salt string, prompts []string) {
		t.Helper()
		before := len(bodies())
		out := filepath.Join(dir, fmt.Sprintf("run%d.jsonl", before))
		args := append([]string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--requests", "6", "--concurrency", "1",
			"--prompt-tokens", "80", "--max-tokens", "2", "--out", out}, extra...)
		code, _, errs := runCLI(t, "", args...)
		require.Equal(t, 0, code, errs)
		run, _ := readRecords(t, out)
		return run.Header.Load["prompt_salt"], contents(bodies()[before:])
	}
	saltA, a := send()
	saltB, b := send()
	require.Len(t, a, 8, "two sizing requests, then six")
	require.Len(t, saltA, 16)
	assert.NotEqual(t, saltA, saltB, "each run draws its own salt")
	for i := range a {
		assert.NotEqual(t, strings.Fields(a[i])[0], strings.Fields(b[i])[0], "request %d: the same flags, another salt", i+1)
	}
	saltC, c := send("--prompt-salt", saltA)
	assert.Equal(t, saltA, saltC)
	assert.Equal(t, a, c, "the same salt: the same prompts, the sizing requests' too")

	// Prefix groups: one group's members share their block within a run;
	// the next run's block of that group is another text.
	groups := []string{"--prefix-groups", "1", "--prefix-tokens", "50"}
	_, g1 := send(groups...)
	_, g2 := send(groups...)
	block := func(p string) string { return strings.Join(strings.Fields(p)[:30], " ") } // 20 + 1 + 29 = 50: the salt and 29 words
	require.Len(t, g1, 9, "three sizing requests, then six")
	assert.Equal(t, block(g1[3]), block(g1[4]), "one block, one text within a run")
	assert.NotEqual(t, block(g1[3]), block(g2[3]), "another run, another block text")

	// The plan knows nothing of the salt.
	plan := func(extra ...string) string {
		path := filepath.Join(t.TempDir(), "plan.jsonl")
		code, _, errs := runCLI(t, "", append([]string{"run", "--dry-run", "--requests", "6", "--concurrency", "1", "--prompt-tokens", "80", "--out", path}, extra...)...)
		require.Equal(t, 0, code, errs)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return string(b)
	}
	p1, p2 := plan(), plan("--prompt-salt", saltA)
	assert.NotContains(t, p1, "prompt_salt")
	assert.Equal(t, p1[strings.Index(p1, "\n"):], p2[strings.Index(p2, "\n"):], "the plan's rows, salt or none")

	code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--requests", "1", "--concurrency", "1", "--prompt-tokens", "80", "--prompt-salt", "xyz")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `--prompt-salt "xyz": want up to 16 hex digits`)
}

// sixAWord is a chat server that counts a prompt as the tiny model's
// tokenizer does, a token a character: 29 for the chat template and the
// 8-character salt, and 6 for each " hello".
func sixAWord(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			MaxTokens int `json:"max_tokens"`
			Messages  []struct{ Content string }
		}
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/chat/completions" || json.Unmarshal(b, &body) != nil || len(body.Messages) == 0 {
			http.NotFound(w, r)
			return
		}
		words := len(strings.Fields(body.Messages[0].Content)) - 1 // the salt is not a word
		w.Header().Set("Content-Type", "text/event-stream")
		for range body.MaxTokens {
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"t\"}}]}\n\n")
		}
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n", 29+6*words, body.MaxTokens)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A plain --prompt-tokens run keeps its sizing: against a server that
// counts a word as 6 tokens, 80 asked is 8 words, 29 + 48 = 77 tokens,
// the nearest whole words come (9 words would be 83), so every prompt is
// 3 tokens off its own, within a word: the fidelity says so and gives no
// warning, and the end line gives the 6 tokens a word.
func TestRunFidelityWordResolution(t *testing.T) {
	srv := sixAWord(t)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--concurrency", "2", "--requests", "10",
		"--prompt-tokens", "80", "--max-tokens", "4", "--out", out)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, stdout+errs, "WARNING: fidelity")
	assert.Contains(t, stdout, "median 80 asked, 77 sent (10 requests, as the server counted); KS D 1.000")
	assert.Contains(t, stdout, "0 off by more than 6 (a word) and 2%: all within a word or 2% of their own, no warning")
	run, _ := readRecords(t, out)
	assert.Equal(t, "6", run.End.Load[tokensPerWordKey])
}

// The records of a session run are numbered as its plan's rows: session
// k's turn t (the warm-up's first) is id (k−1)·turns + t in the dry run
// and in the run, whatever order the turns were sent in.
func TestRunSessionIDsArePlanIDs(t *testing.T) {
	llama, _ := fakeLlama(t)
	dir := t.TempDir()
	args := []string{"--model", "tiny", "--sessions", "2", "--turns", "2", "--warmup", "1", "--prompt-tokens", "40", "--max-tokens", "2"}
	planFile, runFile := filepath.Join(dir, "plan.jsonl"), filepath.Join(dir, "run.jsonl")
	code, _, errs := runCLI(t, "", append([]string{"run", "--dry-run", "--out", planFile}, args...)...)
	require.Equal(t, 0, code, errs)
	f, err := os.Open(planFile)
	require.NoError(t, err)
	defer f.Close()
	_, plan, err := drive.ReadPlan(f)
	require.NoError(t, err)
	require.Len(t, plan, 6)
	want := map[string]string{} // session/turn → id
	for i, q := range plan {
		want[q.Session+"/"+strconv.Itoa(q.Turn)] = strconv.Itoa(i + 1)
	}
	assert.Equal(t, map[string]string{"w1/1": "1", "w1/2": "2", "s1/1": "3", "s1/2": "4", "s2/1": "5", "s2/2": "6"}, want)

	code, _, errs = runCLI(t, "", append([]string{"run", "--url", llama.URL + "/v1/chat/completions", "--out", runFile}, args...)...)
	require.Equal(t, 0, code, errs)
	run, _ := readRecords(t, runFile)
	got := map[string]string{}
	for _, r := range run.Records {
		if !r.Preflight {
			got[r.Client.Session+"/"+strconv.Itoa(r.Client.Turn)] = r.ID
		}
	}
	assert.Equal(t, want, got)
}
