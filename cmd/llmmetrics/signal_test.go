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
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds the command once for the tests that run it as a process.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "llmmetrics-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "llmmetrics")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// hangingServer answers a request of max_tokens 1 (the test request) at
// once and holds every other until the client goes away; it counts the
// requests it received and those it holds.
type hangingServer struct {
	*httptest.Server
	received, held atomic.Int64
}

func newHangingServer(t *testing.T) *hangingServer {
	h := &hangingServer{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		h.received.Add(1)
		b, _ := io.ReadAll(r.Body)
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		json.Unmarshal(b, &body)
		w.Header().Set("Content-Type", "text/event-stream")
		if body.MaxTokens != 1 {
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n")
			w.(http.Flusher).Flush()
			h.held.Add(1)
			<-r.Context().Done()
			h.held.Add(-1)
			return
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(h.Close)
	return h
}

// lockedBuffer is a buffer safe to read while a process writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor polls cond; the deadline is a safety net, never a verdict on speed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// SIGTERM, SIGINT and SIGHUP each stop the built command's run: the
// requests in flight get the grace and are recorded cancelled, the file
// holds the header, every record (as many as the server received) and an
// end line saying who interrupted it, and the report says so in capitals.
// A second signal ends a grace of an hour at once. No measured request
// ended ok: the run exits with status 4.
func TestSignals(t *testing.T) {
	bin := binary(t)
	for _, c := range []struct {
		sig    syscall.Signal
		name   string
		grace  string
		second bool
	}{
		{syscall.SIGTERM, "SIGTERM", "50ms", false},
		{syscall.SIGHUP, "SIGHUP", "50ms", false},
		{syscall.SIGINT, "SIGINT", "1h", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newHangingServer(t)
			out := filepath.Join(t.TempDir(), "run.jsonl")
			cmd := exec.Command(bin, "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--requests", "100",
				"--concurrency", "4", "--prompts", promptsFile(t), "--max-tokens", "8", "--grace", c.grace, "--out", out)
			var stdout bytes.Buffer
			var stderr lockedBuffer // read while the command writes
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			waitFor(t, "four requests held", func() bool { return srv.held.Load() == 4 })

			// The records are in the file as they end: the header and the
			// test request are there while the run goes on.
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			require.Len(t, lines, 2, string(b))
			assert.True(t, strings.HasPrefix(lines[0], `{"llmmetrics_run":`))
			assert.Contains(t, lines[1], `"id":"test-1"`)

			require.NoError(t, cmd.Process.Signal(c.sig))
			if c.second {
				waitFor(t, "the first signal to be taken", func() bool { return strings.Contains(stderr.String(), "sending stopped") })
				require.NoError(t, cmd.Process.Signal(c.sig))
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(time.Minute): // a safety net
				cmd.Process.Kill()
				t.Fatal("the run did not end after the signal")
			}
			// Nothing was measured: status 4, as without the signal
			// (issue #30, point 6: it exited 0).
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, stderr.String())
			assert.Equal(t, 4, exit.ExitCode(), stderr.String())
			assert.Contains(t, stderr.String(), "every measured request failed: 4 of 4 (0 errors, 0 timeouts, 4 cancelled after "+c.name+")")

			run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
			require.NoError(t, err)
			require.NotNil(t, run.End)
			assert.NotNil(t, run.End.Client, "an interrupted run says its client's health too")
			assert.Equal(t, llmmetrics.RunEnd{State: "interrupted", By: c.name, Planned: 101, Written: 5, Notes: run.End.Notes, Client: run.End.Client}, *run.End)
			assert.Len(t, run.Records, 5, "the test request and the four in flight")
			assert.Equal(t, srv.received.Load(), int64(len(run.Records)), "the server received what the file holds")
			for _, r := range run.Records[1:] {
				assert.Equal(t, llmmetrics.StatusCancelled, r.Status)
				if c.second {
					assert.Equal(t, 1, strings.Count(r.Message, "second interrupt"), r.Message) // said once
				} else {
					assert.Equal(t, 1, strings.Count(r.Message, "grace period"), r.Message)
				}
			}
			assert.Contains(t, stdout.String(), "INTERRUPTED by "+c.name+": 5 requests of 101 planned written")
			// The cancelled requests got no usage: their counts are left
			// out, never written as 0 (issue #21, point 13).
			b, err = os.ReadFile(out)
			require.NoError(t, err)
			assert.NotContains(t, string(b), `"prompt_tokens":0`)
			assert.NotContains(t, string(b), `"completion_tokens":0`)

			code, rep, errs := runCLI(t, "", "report", out)
			assert.Equal(t, 0, code, errs)
			assert.True(t, strings.HasPrefix(rep, "llmmetrics report: "+out+"\n\nINTERRUPTED by "+c.name), rep)
			code, rep, errs = runCLI(t, "", "report", "--json", out)
			assert.Equal(t, 0, code, errs)
			assert.Contains(t, rep, `"completeness":{"state":"interrupted","by":"`+c.name+`","planned":101,"written":5,"read":5,`)
		})
	}
}

// A file cut before its end line (the writer was killed) reports as
// TRUNCATED, in the table and in JSON.
func TestTruncatedFile(t *testing.T) {
	dir := t.TempDir()
	out, b := sixRequestRun(t, dir)
	lines := strings.SplitAfter(string(b), "\n")
	assert.Contains(t, lines[len(lines)-2], `{"llmmetrics_end":{"state":"completed","planned":7,"written":7,`)
	// The header states the request limits.
	whole, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	assert.Equal(t, "10m0s", whole.Header.Load["timeout"])
	assert.Equal(t, "2m0s", whole.Header.Load["stall"])
	assert.True(t, whole.Header.Ends)
	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, rep, "TRUNCATED")
	assert.NotContains(t, rep, "INTERRUPTED")

	cut := filepath.Join(dir, "cut.jsonl")
	require.NoError(t, os.WriteFile(cut, []byte(strings.Join(lines[:4], "")), 0o644))
	code, rep, errs = runCLI(t, "", "report", cut)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, rep, "\n\nTRUNCATED: the file stops before the end line its header promised (records read: 3)")
	code, rep, errs = runCLI(t, "", "report", "--json", cut)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, rep, `"completeness":{"state":"truncated"`)
}

// A run killed outright (SIGKILL, an out-of-memory kill) leaves the
// records written so far, streamed as they ended, and no end line: report
// reads the file and says TRUNCATED.
func TestKilledRun(t *testing.T) {
	bin := binary(t)
	srv := newHangingServer(t)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	cmd := exec.Command(bin, "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--requests", "100",
		"--concurrency", "4", "--prompts", promptsFile(t), "--max-tokens", "8", "--out", out)
	require.NoError(t, cmd.Start())
	waitFor(t, "four requests held", func() bool { return srv.held.Load() == 4 })
	require.NoError(t, cmd.Process.Kill())
	cmd.Wait()
	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, rep, "TRUNCATED: the file stops before the end line its header promised (records read: 1)")
}

// A signal while run is still asking the server what it is (here a
// /version that never answers) ends the run at once: no request of the
// load is sent after it, /v1/models is not asked, the file says the run
// was interrupted, and the status is 5: nothing was measured. The test
// request, never sent, is no request: the file holds no record of it (it
// held a "test-1 cancelled" the server never saw), and the plan's count
// is the load's.
func TestSignalBeforeLoad(t *testing.T) {
	var asked, chats atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/chat/completions":
			chats.Add(1)
		default:
			asked.Add(1)
			<-r.Context().Done() // never answers
		}
	}))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, errs := termBeforeLoad(t, srv.URL+"/v1/chat/completions", out, "the self-description to be asked", func() bool { return asked.Load() == 1 })
	assert.Equal(t, 5, code, "nothing was measured: %s", errs)
	assert.Contains(t, errs, "interrupted by SIGTERM before the load began")
	assert.Equal(t, int64(0), chats.Load(), "no request after the signal")
	assert.Equal(t, int64(1), asked.Load(), "/v1/models not asked after /version went unanswered")
	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	require.NotNil(t, run.End)
	assert.Equal(t, "interrupted", run.End.State)
	assert.Equal(t, "SIGTERM", run.End.By)
	assert.Empty(t, run.Records, "the test request was never sent")
	assert.Equal(t, 10, run.End.Planned, "the 10 of the load; the test request was never sent")
}

// A signal during the test request cancels it at once, as stderr says
// (not "requests in flight have 10s to finish"), and the run exits with
// status 5, so that "run && publish" does not publish a run that measured
// nothing (issue #21, point 8: it exited 0). The file keeps the cancelled
// test request, and its report's error set shows it, marked preflight.
func TestSignalDuringTestRequest(t *testing.T) {
	var held atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		io.ReadAll(r.Body) // so that the server sees the client go away
		held.Add(1)
		<-r.Context().Done() // the test request is never answered
	}))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, errs := termBeforeLoad(t, srv.URL+"/v1/chat/completions", out, "the test request to be held", func() bool { return held.Load() == 1 })
	assert.Equal(t, 5, code, errs)
	assert.Contains(t, errs, "SIGTERM: sending stopped; the load has not begun: a test or sizing request in flight is cancelled at once")
	assert.NotContains(t, errs, "to finish")
	assert.Contains(t, errs, "llmmetrics: interrupted by SIGTERM before the load began: nothing was measured")

	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	require.Len(t, run.Records, 1)
	assert.Equal(t, "test-1", run.Records[0].ID)
	assert.Equal(t, llmmetrics.StatusCancelled, run.Records[0].Status)
	assert.Equal(t, "SIGTERM", run.End.By)
	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, rep, "INTERRUPTED by SIGTERM: 1 request of 11 planned written")
	assert.Contains(t, rep, "error set (1 preflight request failed, before the load):\n  by status: preflight: cancelled ×1")
}

// termBeforeLoad starts the built command's run of 10 requests against
// url, waits for ready, sends SIGTERM and returns the run's exit status
// and standard error; the deadline is a safety net, never a verdict.
func termBeforeLoad(t *testing.T, url, out, what string, ready func() bool) (int, string) {
	t.Helper()
	cmd := exec.Command(binary(t), "run", "--url", url, "--model", "m", "--requests", "10",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "8", "--out", out)
	var stderr lockedBuffer
	terminate(t, cmd, &stderr, func() { waitFor(t, what, ready) })
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// terminate starts cmd, its standard error in stderr, calls ready, sends
// SIGTERM and waits for cmd to end; the deadline is a safety net, never a
// verdict.
func terminate(t *testing.T, cmd *exec.Cmd, stderr *lockedBuffer, ready func()) {
	t.Helper()
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	ready()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the run did not end after the signal")
	}
}

// --grace 0s is kept as a nanosecond (drive's zero is its default): the
// note says the requests are cancelled at once, not "have 1ns to finish".
func TestGraceNoteZero(t *testing.T) {
	assert.Equal(t, "requests in flight are cancelled at once (--grace 0s; a second signal changes nothing)", graceNote(time.Nanosecond))
	assert.Contains(t, graceNote(10*time.Second), "have 10s to finish")
}

// Shards without send times have no window: --merge neither refuses them
// as windows that do not overlap nor warns of starts apart by a share of
// a window (found by a new-user pass: a made-up window from sends at 0),
// in memory and in bounded memory.
func TestMergeNoSendTimes(t *testing.T) {
	shard := func(name, start string) string {
		return writeLines(t, name, `{"llmmetrics_run":{"tool":"t","start":"`+start+`"}}`,
			`{"id":"a`+name+`","chunk_arrivals_ns":[50000000,150000000],"completion_tokens":2}`,
			`{"id":"b`+name+`","chunk_arrivals_ns":[60000000,200000000],"completion_tokens":2}`)
	}
	a, b := shard("a.jsonl", "2026-11-30T10:00:00Z"), shard("b.jsonl", "2026-11-30T10:00:00.5Z")
	for _, extra := range [][]string{nil, {"--max-memory", "1KiB"}} {
		code, out, errs := runCLI(t, "", append(append([]string{"report", "--merge"}, extra...), a, b)...)
		require.Equal(t, 0, code, "%v: %s", extra, errs)
		assert.NotContains(t, out+errs, "do not overlap", extra)
		assert.NotContains(t, out+errs, "starts differ", extra)
		assert.Contains(t, out, "the records carry no send times", extra)
		// Nothing was aligned: the note and the load say so (they said
		// "aligned by their wall-clock starts … and the window spans it").
		assert.Contains(t, out, "load: clock_alignment=none: the files have no send times, so their records are pooled and no window spans them merged_files=2\n", extra)
		assert.Contains(t, out, "Merged 2 files of one run, their records pooled: the files have no send times, so nothing is aligned, and no window, throughput or arrival pattern spans them.", extra)
		assert.NotContains(t, out, "aligned by their wall-clock starts", extra)
		assert.NotContains(t, out, "spans any window", extra)
	}
}

// Shards of which some have no send times and others have are refused,
// in memory and in bounded memory, naming the files of each side: not
// "runs 1 and 2 disagree", which leaves the reader to count.
func TestMergeSomeWithoutSendTimes(t *testing.T) {
	shard := func(name, start, sent string) string {
		return writeLines(t, name, `{"llmmetrics_run":{"tool":"t","start":"`+start+`"}}`,
			`{"id":"a",`+sent+`"chunk_arrivals_ns":[50000000,150000000],"completion_tokens":2}`)
	}
	none := shard("none.jsonl", "2026-11-30T10:00:00Z", "")
	with := shard("with.jsonl", "2026-11-30T10:00:00.1Z", `"sent_ns":0,`)
	none2 := shard("none2.jsonl", "2026-11-30T10:00:00.2Z", "")
	for _, extra := range [][]string{nil, {"--max-memory", "1KiB"}} {
		code, _, errs := runCLI(t, "", append(append([]string{"report", "--merge"}, extra...), with, none)...)
		require.Equal(t, 1, code, extra)
		assert.Contains(t, errs, "--merge: "+none+" has no send times and "+with+" has:", extra)

		code, _, errs = runCLI(t, "", append(append([]string{"report", "--merge"}, extra...), none, with, none2)...)
		require.Equal(t, 1, code, extra)
		assert.Contains(t, errs, "--merge: "+none+", "+none2+" have no send times and "+with+" has:", extra)
	}
	// A CSV's send times are its sent_ms column, not sent_ns: the refusal
	// names no column (it said "(sent_ns)" of a CSV).
	csv := writeFile(t, "none.csv", "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,3,2,50,150\n")
	for _, extra := range [][]string{nil, {"--max-memory", "1KiB"}} {
		code, _, errs := runCLI(t, "", append(append([]string{"report", "--merge"}, extra...), csv, with)...)
		require.Equal(t, 1, code, extra)
		assert.Equal(t, "llmmetrics: --merge: "+csv+" has no send times and "+with+" has: a merge keeps every file's send times or none; report each file on its own, or merge those that agree\n", errs, extra)
	}
}

// Files without a run header are named when they cannot be merged (found
// by a new-user pass: "run 1 has no header with its start time"), and
// are merged when no file has send times: there is nothing to align, so
// their records are pooled (it refused them as not alignable), and the
// note and load say so instead of "aligned by their wall-clock starts";
// in memory and in bounded memory alike.
func TestMergeWithoutHeaders(t *testing.T) {
	sent := func(name, id string) string {
		return writeLines(t, name, `{"id":"`+id+`","sent_ns":0,"chunk_arrivals_ns":[50000000,150000000],"completion_tokens":2}`)
	}
	unsent := func(name, id, first, last string) string {
		return writeLines(t, name, `{"id":"`+id+`","chunk_arrivals_ns":[`+first+`,`+last+`],"completion_tokens":2}`)
	}
	headed := writeLines(t, "headed.jsonl", `{"llmmetrics_run":{"tool":"t","start":"2026-11-30T10:00:00Z"}}`,
		`{"id":"a","sent_ns":0,"chunk_arrivals_ns":[50000000,150000000],"completion_tokens":2}`)
	s1, s2 := sent("s1.jsonl", "a"), sent("s2.jsonl", "b")
	// TTFT 50 and 60 ms; E2E 150 and 200 ms: nearest-rank p50 is the
	// first of the two, 50 and 150; the mean E2E (150+200)/2 = 175.
	u1, u2 := unsent("u1.jsonl", "a", "50000000", "150000000"), unsent("u2.jsonl", "b", "60000000", "200000000")
	merge := func(extra []string, files ...string) (int, string, string) {
		return runCLI(t, "", append(append([]string{"report", "--merge"}, extra...), files...)...)
	}
	for _, extra := range [][]string{nil, {"--max-memory", "1KiB"}} {
		code, _, errs := merge(extra, s1, s2)
		require.Equal(t, 1, code, extra)
		assert.Contains(t, errs, "--merge: "+s1+", "+s2+" have no run header with a start time, and the files have send times", extra)
		assert.NotContains(t, errs, "run 1", extra)

		code, _, errs = merge(extra, headed, s2)
		require.Equal(t, 1, code, extra)
		assert.Contains(t, errs, "--merge: "+s2+" has no run header with a start time", extra)

		code, out, errs := merge(extra, u1, u2)
		require.Equal(t, 0, code, "%v: %s", extra, errs)
		assert.Contains(t, out, "requests: 2 offered = 2 ok", extra)
		assert.Contains(t, out, "E2E               2  175.000", extra)
		assert.Contains(t, out, "Merged 2 files of one run, their records pooled: the files have no send times, so nothing is aligned", extra)
		assert.Contains(t, out, "throughput: the records carry no send times", extra)
		assert.NotContains(t, out, "aligned by their wall-clock starts", extra)
		assert.NotContains(t, out, "run:", "%v: no file has a header, and the merge has none", extra)
	}
}

// earlyInit is the line GODEBUG=inittrace=1 prints once the package that
// catches the run command's signals from the process's start has done so.
const earlyInit = "init github.com/llmmetrics/llmmetrics/cmd/llmmetrics/internal/earlysignal @"

// A SIGTERM in the built run's first milliseconds (found by a new-user
// pass: up to ~20 ms, while the packages initialized and the run planned,
// it died with status 143, no message and no file) ends it as the README
// documents a signal before the load: status 5, the signal named. The
// verdict does not depend on when the signal lands: the process's own
// trace of its initialization (GODEBUG=inittrace=1) says whether the
// catch was in place. Before it (the Go runtime and the few packages
// os/signal needs, which no handler of the process can precede) the
// signal's default, death by SIGTERM, is all there can be; after it,
// status 5. The last case waits for the catch, so that it is seen.
func TestSignalAtStart(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers: every moment is before the load
	}))
	t.Cleanup(srv.Close)
	prompts := promptsFile(t)
	term := func(name string, wait func(*lockedBuffer)) { // wait is called once the process has started
		out := filepath.Join(t.TempDir(), "run.jsonl")
		cmd := exec.Command(binary(t), "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--requests", "10",
			"--concurrency", "1", "--prompts", prompts, "--max-tokens", "8", "--out", out)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr lockedBuffer
		terminate(t, cmd, &stderr, func() { wait(&stderr) })
		errs, caught := withoutInitTrace(stderr.String())
		if !caught {
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGTERM, "%s: before the catch, only SIGTERM's default: %v", name, cmd.ProcessState)
			return
		}
		assert.Equal(t, 5, cmd.ProcessState.ExitCode(), "%s: %s", name, errs)
		assert.Contains(t, errs, "llmmetrics: interrupted by SIGTERM before the load began: nothing was measured", name)
	}
	for _, d := range []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond} {
		term(d.String()+" after the start", func(*lockedBuffer) { time.Sleep(d) })
	}
	term("as soon as the catch is in place", func(stderr *lockedBuffer) {
		waitFor(t, "the catch of signals", func() bool { return strings.Contains(stderr.String(), earlyInit) })
	})
}

// withoutInitTrace returns stderr without the lines of GODEBUG=inittrace,
// and whether they say the signals were caught.
func withoutInitTrace(stderr string) (string, bool) {
	var kept []string
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(l, "init ") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n"), strings.Contains(stderr, earlyInit)
}
