package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runBinary runs the built command to its end and returns its exit
// status, standard output and standard error.
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// Each output is written on its own: --timings on a full disk (/dev/full
// answers every write with ENOSPC) stops the timings alone, and --out on
// a healthy disk gets every record and its end line (issue #30, point 5:
// the first failed timings write stopped --out too). The run says which
// file failed (status 1) after its report.
func TestTimingsFailureKeepsOut(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	srv, _ := fakeLlama(t)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, errs := runBinary(t, "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "5",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "2", "--out", out, "--timings", "/dev/full", "--force")
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "writing /dev/full: write /dev/full: no space left on device")
	assert.NotContains(t, errs, out, "--out did not fail")
	assert.Contains(t, stdout, "llmmetrics run\n", "the report is printed")

	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	require.NotNil(t, run.End)
	// The test request and the five measured requests.
	// The client's health is the machine's (see clienthealth_test.go).
	assert.NotNil(t, run.End.Client)
	assert.Equal(t, llmmetrics.RunEnd{State: "completed", Planned: 6, Written: 6, Notes: run.End.Notes, Client: run.End.Client}, *run.End)
	assert.Len(t, run.Records, 6)
}

// Every output is checked and opened before any is created or emptied:
// when a later one cannot be opened (its directory is missing), an
// earlier new one is not left behind at 0 bytes and an earlier existing
// one, under --force, keeps its content (issue #30, point 5).
func TestOutputsOpenedTogether(t *testing.T) {
	srv, served := fakeLlama(t)
	dir := t.TempDir()
	base := []string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--requests", "2",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "2"}
	missing := filepath.Join(dir, "missing", "t.jsonl")

	fresh := filepath.Join(dir, "new.jsonl")
	code, _, errs := runBinary(t, append(base, "--out", fresh, "--timings", missing)...)
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "--timings: open "+missing)
	_, err := os.Stat(fresh)
	assert.ErrorIs(t, err, os.ErrNotExist, "the new --out is not left behind")

	old := filepath.Join(dir, "old.jsonl")
	require.NoError(t, os.WriteFile(old, []byte("keep me\n"), 0o644))
	code, _, errs = runBinary(t, append(base, "--out", old, "--timings", missing, "--force")...)
	assert.Equal(t, 1, code, errs)
	b, err := os.ReadFile(old)
	require.NoError(t, err)
	assert.Equal(t, "keep me\n", string(b), "--force empties nothing before every output is open")

	assert.Zero(t, served.Load(), "nothing was sent")
}

// A scrape that fails at the measured part's end leaves the client report
// whole on standard output, with the server section said to be absent
// and why (issue #30, point 5: standard output was empty); the run exits
// 1, since an output it was asked for is missing.
func TestEndScrapeFailed(t *testing.T) {
	llama, _ := fakeLlama(t)
	var scrapes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" && scrapes.Add(1) > 1 {
			http.Error(w, "gone", http.StatusServiceUnavailable)
			return
		}
		llama.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	args := []string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--requests", "3",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "2", "--scrape", srv.URL + "/metrics"}
	code, stdout, errs := runBinary(t, args...)
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, stdout, "requests: 4 offered = 3 ok")
	assert.Contains(t, stdout, "\nserver side: absent, --scrape: at the measured part's end: scraping "+srv.URL+"/metrics: HTTP 503\n")
	assert.Contains(t, errs, "HTTP 503")

	// With --out, the scrape that came is kept and the one that failed
	// leaves no file that would read as an empty scrape.
	scrapes.Store(0)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, errs = runBinary(t, append(args, "--out", out)...)
	assert.Equal(t, 1, code, errs)
	b, err := os.ReadFile(strings.TrimSuffix(out, ".jsonl") + ".before.prom")
	require.NoError(t, err)
	assert.Contains(t, string(b), "llamacpp:tokens_predicted_total")
	_, err = os.Stat(strings.TrimSuffix(out, ".jsonl") + ".after.prom")
	assert.ErrorIs(t, err, os.ErrNotExist)
	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	assert.Len(t, run.Records, 4, "every record")
	require.NotNil(t, run.End, "and the end line")

	scrapes.Store(0)
	code, stdout, errs = runBinary(t, append(args, "--json")...)
	assert.Equal(t, 1, code, errs)
	var got struct {
		Client struct {
			Requests llmmetrics.Accounting `json:"requests"`
		} `json:"client"`
		Absent string `json:"server_absent"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	assert.Equal(t, 3, got.Client.Requests.OK)
	assert.Contains(t, got.Absent, "HTTP 503")
}

// heldAfter is a fake llama.cpp that answers every request of max_tokens
// 1 (the test, sizing and salt requests) and the first k others, and
// holds every later one until the client goes away; it counts the
// requests it holds.
func heldAfter(t *testing.T, k int64) (*httptest.Server, *atomic.Int64) {
	var n, held atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var body struct {
			MaxTokens int `json:"max_tokens"`
			Messages  []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		w.Header().Set("Content-Type", "text/event-stream")
		if body.MaxTokens != 1 && n.Add(1) > k {
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n")
			w.(http.Flusher).Flush()
			held.Add(1)
			<-r.Context().Done()
			held.Add(-1)
			return
		}
		prompt := 20 + len(strings.Fields(body.Messages[0].Content))
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":1},\"timings\":{\"prompt_ms\":1.5}}\n\ndata: [DONE]\n\n", prompt)
	}))
	t.Cleanup(srv.Close)
	return srv, &held
}

// startHeld starts the built command and waits until the fake holds a
// request: every request before it has ended and been written.
func startHeld(t *testing.T, held *atomic.Int64, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill() })
	waitFor(t, "a request held", func() bool { return held.Load() == 1 })
	return cmd
}

// waitExit waits for a command sent a signal; the deadline is a safety
// net, never a verdict.
func waitExit(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the run did not end after the signal")
	}
}

// --search writes each probe's records as they end, after a header and
// before an end line, as a load run does (issue #30, point 5: the probes
// were written at the end, so a SIGKILL lost them all and a SIGTERM left
// files without an end line, which read as complete).
func TestSearchStreams(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			srv, held := heldAfter(t, 3)
			dir := t.TempDir()
			out := filepath.Join(dir, "probe.jsonl")
			cmd := startHeld(t, held, "run", "--search", "concurrency", "--slo", "ttft=10s", "--search-max", "4", "--repeats", "1",
				"--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "6", "--prompts", promptsFile(t),
				"--max-tokens", "3", "--grace", "50ms", "--out", out)
			probe := filepath.Join(dir, "probe-concurrency1-1.jsonl")
			if sig == syscall.SIGKILL {
				// Killed outright: the three requests that ended are in
				// the probe's file, which reads as truncated.
				run, err := llmmetrics.ReadJSONL(mustOpen(t, probe))
				require.NoError(t, err)
				assert.Len(t, run.Records, 3)
				require.NoError(t, cmd.Process.Kill())
				waitExit(t, cmd)
				code, rep, errs := runCLI(t, "", "report", probe)
				require.Equal(t, 0, code, errs)
				assert.Contains(t, rep, "TRUNCATED: the file stops before the end line its header promised (records read: 3)")
				return
			}
			require.NoError(t, cmd.Process.Signal(sig))
			waitExit(t, cmd)
			run, err := llmmetrics.ReadJSONL(mustOpen(t, probe))
			require.NoError(t, err)
			require.NotNil(t, run.End)
			assert.Equal(t, "interrupted", run.End.State)
			assert.Equal(t, "SIGTERM", run.End.By)
			assert.Equal(t, 6, run.End.Planned)
			assert.Equal(t, 4, run.End.Written, "three ok, one cancelled")
			code, rep, errs := runCLI(t, "", "report", probe)
			require.Equal(t, 0, code, errs)
			assert.Contains(t, rep, "INTERRUPTED by SIGTERM: 4 requests of 6 planned written")
			pre, err := llmmetrics.ReadJSONL(mustOpen(t, filepath.Join(dir, "probe-preflight.jsonl")))
			require.NoError(t, err)
			require.NotNil(t, pre.End)
			assert.Equal(t, llmmetrics.RunEnd{State: "completed", Planned: 1, Written: 1}, *pre.End)
		})
	}
}

// --ttft-breakdown writes its records as they end, after a header and
// before an end line (issue #30, point 5: a SIGKILL lost every record).
func TestBreakdownStreams(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			srv, held := heldAfter(t, 2)
			out := filepath.Join(t.TempDir(), "bd.jsonl")
			cmd := startHeld(t, held, "run", "--ttft-breakdown", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
				"--prompt-lengths", "32,64", "--repeats", "3", "--settle", "1ms", "--out", out)
			// Two sizing and two salt requests, then two of the first
			// length; the third is held.
			if sig == syscall.SIGKILL {
				require.NoError(t, cmd.Process.Kill())
				waitExit(t, cmd)
				code, rep, errs := runCLI(t, "", "report", out)
				require.Equal(t, 0, code, errs)
				assert.Contains(t, rep, "TRUNCATED: the file stops before the end line its header promised (records read: 6)")
				return
			}
			require.NoError(t, cmd.Process.Signal(sig))
			waitExit(t, cmd)
			run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
			require.NoError(t, err)
			require.NotNil(t, run.End)
			assert.Equal(t, "interrupted", run.End.State)
			assert.Equal(t, "SIGTERM", run.End.By)
			assert.Equal(t, 4+6, run.End.Planned, "the preflight requests, and three at each length")
			assert.Equal(t, 7, run.End.Written, "the held request is recorded cancelled")
			assert.Equal(t, "text", run.Header.Load["salt"], "from the end line")
			code, rep, errs := runCLI(t, "", "report", out)
			require.Equal(t, 0, code, errs)
			assert.Contains(t, rep, "INTERRUPTED by SIGTERM: 7 requests of 10 planned written")
		})
	}
}

// A search's old probe files are outputs too: refused without --force
// before anything is sent, as an existing --out is.
func TestSearchOldProbes(t *testing.T) {
	srv, served := fakeLlama(t)
	dir := t.TempDir()
	old := filepath.Join(dir, "probe-concurrency2-3.jsonl")
	require.NoError(t, os.WriteFile(old, []byte("keep me\n"), 0o644))
	code, _, errs := runCLI(t, "", "run", "--search", "concurrency", "--slo", "ttft=10s", "--search-max", "2", "--repeats", "1",
		"--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "2", "--prompts", promptsFile(t),
		"--max-tokens", "2", "--out", filepath.Join(dir, "probe.jsonl"))
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "the probe file "+old+" exists; --force overwrites it")
	assert.Zero(t, served.Load())
	_, err := os.Stat(filepath.Join(dir, "probe-preflight.jsonl"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
