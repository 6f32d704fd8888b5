package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sessionPlan writes the dry run of 3 sessions of 3 turns, 1 s of think
// time, with the extra flags, and returns the plan's path and run's
// standard output.
func sessionPlan(t *testing.T, extra ...string) (path, stdout string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "plan.jsonl")
	args := append([]string{"run", "--dry-run", "--model", "m", "--sessions", "3", "--turns", "3", "--think-time", "1s",
		"--prompt-tokens", "100", "--max-tokens", "16", "--out", path}, extra...)
	code, stdout, errs := runCLI(t, "", args...)
	require.Equal(t, 0, code, errs)
	return path, stdout
}

// The dry run of sessions lists all 9 turns: each session's first turn
// due at the measured part's start, each later one after its previous
// turn's answer and the think time, with no time of its own.
func TestSessionsDryRun(t *testing.T) {
	path, stdout := sessionPlan(t)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	h, reqs, err := drive.ReadPlan(strings.NewReader(string(b)))
	require.NoError(t, err)
	require.Len(t, reqs, 9)
	for i, q := range reqs {
		session, turn := "s"+string(rune('1'+i/3)), i%3+1
		assert.Equal(t, session, q.Session, i)
		assert.Equal(t, turn, q.Turn, i)
		assert.False(t, q.Warmup, i)
		assert.Equal(t, 100, q.PromptTokens, i)
		assert.Equal(t, 16, q.MaxTokens, i)
		if turn == 1 {
			assert.True(t, q.HasSchedule, i)
			assert.Zero(t, q.Scheduled, i)
			assert.Zero(t, q.AfterTurn, i)
		} else {
			assert.False(t, q.HasSchedule, i)
			assert.Equal(t, session, q.AfterSession, i)
			assert.Equal(t, turn-1, q.AfterTurn, i)
			assert.Equal(t, time.Second, q.ThinkTime, i)
		}
	}
	assert.Equal(t, 3, strings.Count(string(b), `"scheduled_ns"`), "only the first turns have a time")
	assert.Contains(t, string(b), `{"id":"2","prompt_tokens":100,"max_tokens":16,"session":"s1","turn":2,"after_session":"s1","after_turn":1,"think_time_ns":1000000000}`)
	assert.Equal(t, map[string]string{"sessions": "3", "turns": "3", "think_time": "1s", "concurrency": "3", "loop": "closed"},
		pick(h.Load, "sessions", "turns", "think_time", "concurrency", "loop"))

	// The description, from run and from report, has the sessions and no
	// arrival figures: they would be invented.
	code, report, errs := runCLI(t, "", "report", path)
	require.Equal(t, 0, code, errs)
	for _, out := range []string{stdout, report} {
		assert.Contains(t, out, "(nothing sent): 9 requests\n")
		assert.Contains(t, out, "  sessions           3 of 3 turns, think time 1s\n")
		assert.Contains(t, out, "  schedule           3 first turns at 0s from the measured part's start; 6 later turns each 1s after the answer before them\n")
		assert.Contains(t, out, "  arrival rate       absent: each later turn of a session is sent its think time after the previous turn's answer ends")
		assert.Contains(t, out, "note: A session's prompt_tokens are its turn's new message alone")
		assert.NotContains(t, out, "requests/s")
		assert.NotContains(t, out, "\n  gaps")
	}
}

// report --json of a session plan: the sessions' shape, the schedule
// absent with its reason.
func TestSessionsPlanJSON(t *testing.T) {
	path, _ := sessionPlan(t, "--warmup", "2")
	code, out, errs := runCLI(t, "", "report", "--json", path)
	require.Equal(t, 0, code, errs)
	var got map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.NotContains(t, got, "schedule")
	assert.JSONEq(t, `{"sessions":3,"turns":3,"think_time_s":1,"warmup_sessions":2,"due_at_start":3,"after_an_answer":6}`, string(got["sessions"]))
	assert.JSONEq(t, `{"schedule":"each later turn of a session is sent its think time after the previous turn's answer ends, so when depends on the server's answers: the plan gives no arrival rate or gaps"}`, string(got["absent"]))
	assert.JSONEq(t, `9`, string(got["requests"]))
	assert.JSONEq(t, `6`, string(got["warmup_requests"]))
	var load map[string]string
	require.NoError(t, json.Unmarshal(got["load"], &load))
	assert.Equal(t, "2 sessions", load["warmup"])
}

// The warm-up sessions come first in the plan: w1 and w2 begin at once
// (3 sessions may run at once), of the same turns.
func TestSessionsPlanWarmup(t *testing.T) {
	path, stdout := sessionPlan(t, "--warmup", "4")
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	_, reqs, err := drive.ReadPlan(f)
	require.NoError(t, err)
	require.Len(t, reqs, 21) // (4 + 3) × 3
	var warm []string
	for _, q := range reqs[:12] {
		require.True(t, q.Warmup)
		if q.Turn == 1 {
			warm = append(warm, q.Session)
		}
	}
	assert.Equal(t, []string{"w1", "w2", "w3", "w4"}, warm)
	// w4 takes w1's place once w1's last turn has answered.
	w4 := reqs[9]
	assert.Equal(t, drive.Request{Warmup: true, Session: "w4", Turn: 1, AfterSession: "w1", AfterTurn: 3, ThinkTime: time.Second, PromptTokens: 100, MaxTokens: 16}, w4)
	assert.False(t, reqs[12].Warmup)
	assert.Equal(t, "s1", reqs[12].Session)
	assert.Contains(t, stdout, "(nothing sent): 9 requests after 12 warm-up\n")
	assert.Contains(t, stdout, "3 of 3 turns, think time 1s, after 4 warm-up sessions\n")
}

// What a session run cannot take is refused in one line, exit 2: a
// warm-up of a time or auto, the API of responses, and a session plan
// given to --replay (its later turns wait for answers: not a trace); a
// flag out of place (--concurrency) is told with run's usage.
func TestSessionsWarmupRefused(t *testing.T) {
	path, _ := sessionPlan(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sessions", "2", "--turns", "2", "--warmup", "30s"}, "--warmup 30s: with --sessions the warm-up is a number of whole sessions of --turns turns (--warmup 2: two warm-up sessions), not a duration or auto"},
		{[]string{"--sessions", "2", "--turns", "2", "--warmup", "auto"}, "--warmup auto: with --sessions the warm-up is a number of whole sessions"},
		{[]string{"--sessions", "2", "--turns", "2", "--api", "responses"}, "llmmetrics: sessions need the chat or completions API, not responses\n"},
		{[]string{"--replay", path}, "--replay " + path + ": a dry run's plan of 3 sessions of 3 turns, not a trace: its later turns wait for the server's answers, so their times cannot be replayed; send it with the flags it was planned with: llmmetrics run --max-tokens 16 --model m --prompt-tokens 100 --sessions 3 --think-time 1s --turns 3 --url URL\n"},
	} {
		args := []string{"run", "--url", "http://127.0.0.1:1/v1/chat/completions", "--model", "m"}
		if c.args[0] != "--replay" {
			args = append(args, "--prompt-tokens", "10")
		}
		code, _, errs := runCLI(t, "", append(args, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "%v: %s", c.args, errs)
		assert.Contains(t, errs, c.want, c.args)
	}
	code, _, errs := runCLI(t, "", "run", "--url", "http://127.0.0.1:1/v1/chat/completions", "--model", "m", "--prompt-tokens", "10", "--sessions", "2", "--turns", "2", "--concurrency", "4")
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(errs, "llmmetrics: run: --sessions S sets the requests in flight (at most S): leave out --concurrency\nusage: "), errs)
}

// A session run's warm-up against the fake llama.cpp server: two whole
// warm-up sessions of the same two turns, after the two sizing requests,
// marked warm-up in the file and left out of the figures and of the
// TTFT by turn.
func TestRunSessionsWarmup(t *testing.T) {
	srv, served := fakeLlama(t)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--sessions", "2", "--turns", "2",
		"--warmup", "2", "--prompt-tokens", "64", "--max-tokens", "4", "--out", out, "--json")
	require.Equal(t, 0, code, errs)
	// 2 sizing + (2 warm-up + 2 measured sessions) × 2 turns.
	assert.Equal(t, int64(10), served.Load())
	var got struct {
		Requests llmmetrics.Accounting `json:"requests"`
		Run      llmmetrics.RunHeader  `json:"run"`
		Notes    []string              `json:"notes"`
		Turns    []turnRow             `json:"ttft_by_turn"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	a := got.Requests
	assert.Equal(t, 10, a.Offered)
	assert.Equal(t, 4, a.OK)
	assert.Equal(t, 4, a.Warmup)
	assert.Equal(t, 2, a.Preflight)
	assert.Equal(t, "2 sessions", got.Run.Load["warmup"])
	require.Len(t, got.Turns, 2)
	assert.Equal(t, 2, got.Turns[0].N, "the measured sessions' first turns alone")
	assert.Contains(t, got.Notes, "Warm-up: a fixed warm-up of 2 sessions of 2 turns (4 requests sent), at most 2 sessions at once.")

	b, err := os.ReadFile(out)
	require.NoError(t, err)
	run, err := llmmetrics.ReadJSONL(strings.NewReader(string(b)))
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, r := range run.Records {
		if r.Preflight {
			continue
		}
		require.NotNil(t, r.Client, r.ID)
		seen[r.Client.Session+"/"+string(rune('0'+r.Client.Turn))] = r.Warmup
	}
	assert.Equal(t, map[string]bool{"w1/1": true, "w1/2": true, "w2/1": true, "w2/2": true,
		"s1/1": false, "s1/2": false, "s2/1": false, "s2/2": false}, seen)
	// report of the file: the TTFT by turn counts the measured turns only.
	code, rep, errs := runCLI(t, "", "report", "--json", out)
	require.Equal(t, 0, code, errs)
	var back struct {
		Turns []turnRow `json:"ttft_by_turn"`
	}
	require.NoError(t, json.Unmarshal([]byte(rep), &back), rep)
	require.Len(t, back.Turns, 2)
	assert.Equal(t, 2, back.Turns[0].N)
	assert.Equal(t, 2, back.Turns[1].N)

	// Replayed, the file's turns are requests of their own: said, not
	// silently flattened.
	code, plan, errs := runCLI(t, "", "run", "--dry-run", "--replay", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, plan, "\"8 rows of the file were turns of multi-turn sessions: each is replayed as a request of its own at its send time")
}

// pick returns m's values at keys.
func pick(m map[string]string, keys ...string) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}
