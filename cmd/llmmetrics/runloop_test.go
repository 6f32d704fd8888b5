package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// An open loop of 100 requests/s, capped at one in flight, against a
// server that takes at least 150 ms a request: ten requests cannot be
// sent faster than one per 150 ms (achieved ≤ 6.7/s, far below 90), and
// the tenth, due at about 90 ms, is sent after at least 1.35 s (lateness
// p99 > 1 s). Both warnings are lower bounds the server's sleeps
// guarantee, whatever the machine's speed. The TTFT from the scheduled
// time includes the lateness.
func TestOpenLoopHonest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		time.Sleep(150 * time.Millisecond)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	args := []string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "m", "--requests", "10", "--rate", "100", "--burstiness", "1000",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "1"}
	jsonOut := filepath.Join(t.TempDir(), "ol.jsonl")
	code, stdout, errs := runCLI(t, "", append(args, "--json", "--out", jsonOut)...)
	require.Equal(t, 0, code, errs)
	var got struct {
		TTFT   struct{ P50 float64 } `json:"ttft_ms"`
		Client struct {
			ScheduledTTFT struct{ N, P50 float64 } `json:"ttft_from_scheduled_ms"`
		} `json:"client"`
		LoadCheck struct {
			Loop        string  `json:"loop"`
			Offered     float64 `json:"offered_requests_per_s"`
			Achieved    float64 `json:"achieved_requests_per_s"`
			LatenessP99 float64 `json:"lateness_p99_ms"`
			Warnings    []string
		} `json:"load_check"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	lc := got.LoadCheck
	assert.Equal(t, "open", lc.Loop)
	assert.Equal(t, 100.0, lc.Offered)
	assert.Less(t, lc.Achieved, 1000/150.0+0.01)
	assert.Greater(t, lc.LatenessP99, 1000.0)
	require.Len(t, lc.Warnings, 2)
	assert.Contains(t, lc.Warnings[0], "of the schedule (offered 100)")
	assert.Contains(t, lc.Warnings[1], "lateness p99")
	assert.Equal(t, 10.0, got.Client.ScheduledTTFT.N)
	assert.Greater(t, got.Client.ScheduledTTFT.P50, got.TTFT.P50+500, "the lateness is in it")
	// report reads the same check from the file.
	var loadCheck struct {
		LoadCheck json.RawMessage `json:"load_check"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &loadCheck))
	ran := string(loadCheck.LoadCheck)
	code, stdout, errs = runCLI(t, "", "report", "--json", jsonOut)
	require.Equal(t, 0, code, errs)
	require.NoError(t, json.Unmarshal([]byte(stdout), &loadCheck))
	assert.JSONEq(t, ran, string(loadCheck.LoadCheck))

	textOut := filepath.Join(t.TempDir(), "ol.jsonl")
	code, stdout, errs = runCLI(t, "", append(args, "--out", textOut)...)
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(stdout, "llmmetrics run\n\nWARNING: the achieved rate"), stdout)
	assert.Contains(t, stdout, "open loop: offered 100 requests/s, scheduled")
	assert.Contains(t, stdout, "from sched.: TTFT and E2E from each request's scheduled time")
	code, rep, errs := runCLI(t, "", "report", textOut)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, loadSections(t, stdout), loadSections(t, rep))

	// A gate on TTFT from the send does not pass such a run: from the
	// scheduled time its p99 is above a second (the tenth request's
	// lateness alone is).
	code, _, errs = runCLI(t, "", append(args, "--fail-if", "p99(ttft)>1s")...)
	assert.Equal(t, 3, code)
	assert.Contains(t, errs, "p99(ttft)>1s")
}

// A short random schedule that drew fewer arrivals than rate × duration is
// the load asked for, kept: no warning. Sends that lag their schedule are.
func TestOpenLoopAgainstItsSchedule(t *testing.T) {
	at := func(sched, sent time.Duration) llmmetrics.Record {
		return llmmetrics.Record{Sent: sent, Client: &llmmetrics.ClientSide{HasSchedule: true, Scheduled: sched}}
	}
	var kept, behind []llmmetrics.Record
	for i := range 9 { // 9 arrivals 0.25 s apart: 4/s drawn where 5/s was offered
		due := time.Duration(i) * 250 * time.Millisecond
		kept = append(kept, at(due, due+time.Millisecond))
		behind = append(behind, at(due, time.Duration(i)*500*time.Millisecond)) // sent at 2/s
	}
	p := map[string]string{"loop": "open", "rate_per_s": "5"}
	c := checkLoad(p, kept, &llmmetrics.Summary{}, llmmetrics.Options{})
	assert.InDelta(t, 4.0, c.ScheduledPerS, 1e-9) // 8 gaps over 2 s
	assert.InDelta(t, 4.0, c.AchievedPerS, 1e-9)
	assert.Empty(t, c.Warnings)
	c = checkLoad(p, behind, &llmmetrics.Summary{}, llmmetrics.Options{})
	assert.InDelta(t, 2.0, c.AchievedPerS, 1e-9) // 8 gaps over 4 s
	require.Len(t, c.Warnings, 1)
	assert.Contains(t, c.Warnings[0], "50% below the 4 of the schedule (offered 5)")
}

// A closed loop whose failures outnumber its ok requests ten to one says
// so at the top; --max-error-rate stops such a run (status 4), and the
// file's end line says by what.
func TestFailureStorm(t *testing.T) {
	srv, received := failingServer(t, func(int64) string { return "500" })
	code, stdout, _ := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--requests", "12", "--concurrency", "4",
		"--prompts", promptsFile(t), "--max-tokens", "2")
	assert.Equal(t, 4, code)
	assert.True(t, strings.HasPrefix(stdout, "llmmetrics run\n\nWARNING: 12 measured requests failed against 0 ok"), stdout)

	received.Store(0)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--requests", "1000", "--concurrency", "2",
		"--prompts", promptsFile(t), "--max-tokens", "2", "--max-error-rate", "0.5", "--out", out)
	assert.Equal(t, 4, code)
	assert.Contains(t, errs, "stopped by --max-error-rate 0.5 (10 of the first 10 measured requests failed)")
	assert.Contains(t, stdout, "INTERRUPTED by --max-error-rate 0.5")
	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	assert.Less(t, len(run.Records), 1000)
	assert.Equal(t, received.Load(), int64(len(run.Records)))
	assert.Equal(t, "interrupted", run.End.State)

	code, _, errs = runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--requests", "3", "--concurrency", "2",
		"--prompts", promptsFile(t), "--max-error-rate", "1.5")
	assert.Equal(t, 2, code)
	assert.Equal(t, "llmmetrics: --max-error-rate 1.5: want a fraction in (0, 1]\n", errs)
	_ = os.Remove(out)
}

// run gates the load as report gates a file: --fail-if and --fail-below
// exit with status 3 after the report when the run crosses a condition.
func TestRunGate(t *testing.T) {
	srv, _ := fakeLlama(t)
	args := []string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--requests", "4", "--concurrency", "2",
		"--prompts", promptsFile(t), "--max-tokens", "3", "--slo", "ttft=1h"}
	code, stdout, errs := runCLI(t, "", append(args, "--fail-below", "0.5", "--fail-if", "error_rate>0.5")...)
	assert.Equal(t, 0, code, errs)
	code, stdout, errs = runCLI(t, "", append(args, "--fail-if", "p99(ttft)<1h")...)
	assert.Equal(t, 3, code)
	assert.Contains(t, stdout, "llmmetrics run")
	assert.Contains(t, errs, "p99(ttft)<1h")
	code, _, errs = runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "4", "--concurrency", "2",
		"--prompts", promptsFile(t), "--fail-below", "0.5")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--fail-below needs --slo")

	// A figure the run lacks fails the command (status 1), never passes,
	// and says why in words: requests of one token have no TPOT.
	code, _, errs = runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "2",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "1", "--fail-if", "p99(tpot)>1s")
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, `condition "p99(tpot)>1s" cannot be judged: the run has no tpot distribution`)
	assert.NotContains(t, errs, "invalid option")

	// Every request failing comes first (status 4), with or without a gate:
	// a gate must not turn it into another status.
	failing, _ := failingServer(t, func(int64) string { return "500" })
	code, _, errs = runCLI(t, "", "run", "--url", failing.URL+"/v1/chat/completions", "--model", "m", "--requests", "2",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "2", "--fail-if", "p99(ttft)>1s")
	assert.Equal(t, 4, code, errs)
	assert.Contains(t, errs, "every measured request failed: 2 of 2")
}

// An open loop of a duration that reached its deadline says how many
// arrivals due before it were never sent, 0 included; one interrupted
// first has no such count (drive stops counting when the run's context
// ends), and its end line says none rather than a 0.
func TestNoteUnsentNotWhenInterrupted(t *testing.T) {
	p := drive.Plan{Rate: 10, Duration: time.Second}
	end := &llmmetrics.RunEnd{}
	noteUnsent(end, p, &drive.Outcome{Unsent: 0, UnsentCounted: true})
	assert.Equal(t, "0", end.Load[unsentKey])

	end = &llmmetrics.RunEnd{}
	noteUnsent(end, p, &drive.Outcome{Interrupted: true})
	_, said := end.Load[unsentKey]
	assert.False(t, said, "no count of an interrupted run")
}
