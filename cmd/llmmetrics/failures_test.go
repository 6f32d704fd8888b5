package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingServer answers the test request (max_tokens 1) with a good
// stream and each measured request by mode: the k-th request (from 1,
// the test request not counted) by mode(k).
func failingServer(t *testing.T, mode func(k int64) string) (*httptest.Server, *atomic.Int64) {
	var k, received atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r) // /version, /v1/models
			return
		}
		received.Add(1)
		b, _ := io.ReadAll(r.Body)
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		json.Unmarshal(b, &body)
		m := "ok"
		if body.MaxTokens != 1 {
			m = mode(k.Add(1))
		}
		switch m {
		case "500":
			http.Error(w, `{"error":{"message":"CUDA out of memory"}}`, http.StatusInternalServerError)
			return
		case "429":
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":{"message":"too many requests"}}`, http.StatusTooManyRequests)
			return
		case "404":
			http.NotFound(w, r)
			return
		case "instream":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
			fmt.Fprint(w, "data: {\"error\":{\"message\":\"the model crashed\",\"type\":\"server_error\"}}\n\n")
			return
		case "hang": // a first chunk, then nothing until the client gives up
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		case "nousage": // two chunks, no usage
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
			return
		case "killed":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &received
}

// Every failure mode of the fake shows in the error set, by status and by
// message, in run's table and JSON and in report's; the file holds what
// the server received. An error inside a stream of HTTP 200 is tallied
// under HTTP 200, with the server's type and words (it was "error without
// an HTTP status").
func TestErrorSet(t *testing.T) {
	modes := []string{"ok", "500", "429", "404", "instream", "killed"}
	srv, received := failingServer(t, func(k int64) string { return modes[(k-1)%int64(len(modes))] })
	out := filepath.Join(t.TempDir(), "run.jsonl")
	args := []string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "m", "--requests", "12", "--concurrency", "1",
		"--prompts", promptsFile(t), "--max-tokens", "2", "--out", out}
	code, stdout, errs := runCLI(t, "", args...)
	require.Equal(t, 0, code, errs)
	for _, want := range []string{
		"error set (10 measured requests failed):",
		"by status: HTTP 500 ×2, HTTP 429 ×2, HTTP 404 ×2, HTTP 200, error in stream ×2, HTTP 200, stream failed ×2",
		"2  HTTP 500: CUDA out of memory [2]",
		"2  HTTP 429: too many requests [3]",
		"2  HTTP 404: 404 page not found [4]",
		"2  HTTP 200, error in stream: server_error: the model crashed [5]",
		"2  HTTP 200, the stream was cut off before its end: unexpected EOF [6]",
	} {
		assert.Contains(t, stdout, want)
	}
	assert.Equal(t, int64(13), received.Load(), "the test request and 12")

	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, rep, "by status: HTTP 500 ×2, HTTP 429 ×2, HTTP 404 ×2, HTTP 200, error in stream ×2, HTTP 200, stream failed ×2")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	code, rep, errs = runCLI(t, string(b), "report", "-")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, rep, "by status: HTTP 500 ×2, HTTP 429 ×2, HTTP 404 ×2, HTTP 200, error in stream ×2, HTTP 200, stream failed ×2", "from standard input too")
	code, rep, errs = runCLI(t, "", "report", "--json", out)
	require.Equal(t, 0, code, errs)
	var got struct {
		ErrorSet errorSet `json:"error_set"`
	}
	require.NoError(t, json.Unmarshal([]byte(rep), &got))
	assert.Equal(t, 10, got.ErrorSet.Failed)
	assert.Equal(t, errorCount{Key: "HTTP 500", Count: 2, First: "2"}, got.ErrorSet.ByStatus[0])
	assert.Equal(t, errorCount{Key: "HTTP 200, error in stream", Count: 2, First: "5"}, got.ErrorSet.ByStatus[3])
	assert.Equal(t, errorCount{Key: "HTTP 200, error in stream: server_error: the model crashed", Count: 2, First: "5"}, got.ErrorSet.ByMessage[3])
	code, rep, _ = runCLI(t, "", append(args[:len(args)-2], "--json")...)
	require.Equal(t, 0, code)
	assert.Contains(t, rep, `"error_set":{"failed":10,"by_status":[{"key":"HTTP 500","count":2,"first_id":"2"},{"key":"HTTP 429","count":2,"first_id":"3"},{"key":"HTTP 404","count":2,"first_id":"4"},{"key":"HTTP 200, error in stream","count":2,"first_id":"5"},`)
}

// When every measured request fails the run exits with status 4 after its
// report; when the test request fails, at once with status 1 and the
// server's words, before the load.
func TestEveryRequestFailed(t *testing.T) {
	srv, received := failingServer(t, func(int64) string { return "500" })
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--requests", "4", "--concurrency", "2",
		"--prompts", promptsFile(t), "--max-tokens", "2")
	assert.Equal(t, 4, code)
	assert.Contains(t, stdout, "4  HTTP 500: CUDA out of memory")
	assert.Contains(t, errs, "every measured request failed: 4 of 4 (4 errors, 0 timeouts, 0 cancelled)")
	assert.Equal(t, int64(5), received.Load())

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"model 'm' not found"}}`, http.StatusNotFound)
	}))
	defer bad.Close()
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, errs = runCLI(t, "", "run", "--url", bad.URL+"/v1/chat/completions", "--model", "m", "--requests", "4", "--concurrency", "2",
		"--prompts", promptsFile(t), "--max-tokens", "2", "--out", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "the test request failed: error: HTTP 404: model 'm' not found")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"id":"test-1"`, "the test request is kept")
	assert.Contains(t, string(b), `{"llmmetrics_end":{"state":"interrupted","by":"a failed test request","planned":5,"written":1}}`)
}

// A run whose every measured request was still unanswered when its grace
// ran out measured nothing: exit 4, as when every request failed, since
// no signal cancelled them (a re-check found exit 0).
func TestEveryRequestCancelledByGrace(t *testing.T) {
	srv, _ := failingServer(t, func(int64) string { return "hang" })
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--duration", "300ms",
		"--concurrency", "2", "--grace", "100ms", "--prompts", promptsFile(t), "--max-tokens", "2")
	assert.Equal(t, 4, code, errs)
	assert.Contains(t, stdout, "0 ok")
	assert.Contains(t, errs, "every measured request failed: 2 of 2 (0 errors, 0 timeouts, 2 cancelled when the grace ran out)")
}

// A URL without a scheme is refused in one line, without the command's
// usage (issue #21, point 10); a base URL gets the endpoint path of the
// API, and the header and the report say so.
func TestURLs(t *testing.T) {
	for _, u := range []string{"localhost:8000/v1/chat/completions", "127.0.0.1:8000", "/v1/chat/completions", "ftp://h/v1"} {
		code, _, errs := runCLI(t, "", "run", "--url", u, "--model", "m", "--requests", "1", "--concurrency", "1", "--prompt-tokens", "8")
		assert.Equal(t, 2, code, u)
		assert.Contains(t, errs, "want an http:// or https:// URL with a host", u)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %s", errs)
	}
	// The suggestion is a URL: another scheme is replaced, a path alone
	// gets a host.
	for u, want := range map[string]string{"ftp://h/v1": "e.g. http://h/v1", "/v1/chat/completions": "e.g. http://127.0.0.1:8000/v1/chat/completions",
		"localhost:8000/v1": "e.g. http://localhost:8000/v1"} {
		_, _, errs := runCLI(t, "", "run", "--url", u, "--model", "m", "--requests", "1", "--concurrency", "1", "--prompt-tokens", "8")
		assert.Contains(t, errs, want, u)
	}
	srv, served := fakeLlama(t)
	for _, c := range []struct{ base, api, want string }{
		{srv.URL, "", "/v1/chat/completions"},
		{srv.URL + "/v1", "chat", "/chat/completions"},
		{srv.URL + "/", "", "/v1/chat/completions"},
	} {
		args := []string{"run", "--url", c.base, "--model", "tiny", "--requests", "2", "--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "2"}
		if c.api != "" {
			args = append(args, "--api", c.api)
		}
		code, stdout, errs := runCLI(t, "", args...)
		require.Equal(t, 0, code, errs)
		assert.Contains(t, stdout, "is a base URL:", c.base)
		assert.Contains(t, stdout, "endpoint path "+c.want+" was appended", c.base)
	}
	assert.Equal(t, int64(9), served.Load())
}

// Outputs are checked before the first request: distinct from each other
// and from the inputs, not overwritten without --force (a usage mistake:
// status 2, one line without the command's usage, issue #21 point 10),
// writable (status 1).
func TestOutputsChecked(t *testing.T) {
	srv, served := fakeLlama(t)
	dir := t.TempDir()
	prompts := promptsFile(t)
	base := []string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--requests", "2", "--concurrency", "1",
		"--prompts", prompts, "--max-tokens", "2"}
	existing := filepath.Join(dir, "old.jsonl")
	require.NoError(t, os.WriteFile(existing, []byte("keep me\n"), 0o644))
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--out", filepath.Join(dir, "a.jsonl"), "--timings", filepath.Join(dir, "a.jsonl")}, 2, "--out and --timings are the same file"},
		{[]string{"--out", prompts}, 2, "is the input --prompts: it would be overwritten"},
		{[]string{"--out", existing}, 2, "exists; --force overwrites it"},
		{[]string{"--out", filepath.Join(dir, "no", "such", "dir.jsonl")}, 1, "--out: open"},
		{[]string{"--timings", filepath.Join(dir, "missing", "t.jsonl")}, 1, "--timings: open"},
	} {
		code, _, errs := runCLI(t, "", append(base, c.args...)...)
		assert.Equal(t, c.code, code, c.args)
		assert.Contains(t, errs, c.msg, c.args)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %s", errs)
	}
	assert.Zero(t, served.Load(), "nothing was sent")
	b, _ := os.ReadFile(prompts)
	assert.Equal(t, "hello there\n", string(b))
	b, _ = os.ReadFile(existing)
	assert.Equal(t, "keep me\n", string(b))

	code, _, errs := runCLI(t, "", append(base, "--out", existing, "--force")...)
	require.Equal(t, 0, code, errs)
	b, _ = os.ReadFile(existing)
	assert.True(t, strings.HasPrefix(string(b), `{"llmmetrics_run":`))
}

// A full disk: the header cannot be written to /dev/full, so nothing is
// sent (status 1, the file named), and the --timings file the check
// created is removed. A write error mid-run names the file,
// stops the writing and leaves the report to be printed.
func TestWriteErrors(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	srv, served := fakeLlama(t)
	timings := filepath.Join(t.TempDir(), "timings.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "2", "--concurrency", "1",
		"--prompts", promptsFile(t), "--out", "/dev/full", "--timings", timings, "--force")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "writing /dev/full: write /dev/full: no space left on device")
	assert.Empty(t, stdout)
	assert.Zero(t, served.Load())
	assert.NoFileExists(t, timings, "an output created for a run that sent nothing is removed")

	f, err := os.Create(filepath.Join(t.TempDir(), "run.jsonl"))
	require.NoError(t, err)
	w := &recordWriter{out: f, outBuf: bufio.NewWriter(f), outPath: f.Name()}
	require.NoError(t, w.header(&llmmetrics.RunHeader{Tool: "t"}))
	w.add(&observe.Result{Record: llmmetrics.Record{ID: "1", Status: llmmetrics.StatusError, Message: "x"}})
	f.Close() // the disk goes away
	w.add(&observe.Result{Record: llmmetrics.Record{ID: "2", Status: llmmetrics.StatusError, Message: "x"}})
	w.add(&observe.Result{Record: llmmetrics.Record{ID: "3", Status: llmmetrics.StatusError, Message: "x"}})
	err = w.finish(&llmmetrics.RunEnd{State: "completed"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writing "+f.Name())
	assert.Contains(t, err.Error(), "the records after the first 1 were not written; the report covers them all")
	assert.Len(t, w.all(), 3, "the report has every record")
}

// A run whose server is down stops at its first sizing request; the
// report of its file says why (issue #21, point 7): the error set holds
// the failed preflight request, marked so, with "connection refused"; the
// empty latency table gives way to one line, with no advice to declare a
// window; the counts are in English ("1 request", "one word").
func TestFailedPreflightFile(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + ln.Addr().String() + "/v1/chat/completions"
	ln.Close() // nothing listens there now: connection refused
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, errs := runCLI(t, "", "run", "--url", down, "--model", "m", "--requests", "4", "--concurrency", "1",
		"--prompt-tokens", "40", "--out", out)
	require.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "the sizing request preflight-1 (one word) failed: error: ")
	assert.Contains(t, errs, "connection refused")

	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	for _, want := range []string{
		"INTERRUPTED by a failed sizing request: 1 request of 5 planned written;", // preflight-1 and the 4 requests
		"requests: 1 offered = 0 ok + 0 zero-token + 0 failed + 0 rejected + 1 preflight (not measured)\n",
		"\nlatencies: none, no request was measured: every record is preflight, warm-up or rejected\n",
		"error set (1 preflight request failed, before the load):\n  by status: preflight: error without an HTTP status ×1\n",
		"connection refused [preflight-1, a preflight request]\n",
	} {
		assert.Contains(t, rep, want)
	}
	for _, not := range []string{"metric (ms)", "declare one", "1 requests", "warm-up (not measured)"} {
		assert.NotContains(t, rep, not)
	}
	code, rep, errs = runCLI(t, "", "report", "--json", out)
	require.Equal(t, 0, code, errs)
	var got struct {
		ErrorSet errorSet `json:"error_set"`
	}
	require.NoError(t, json.Unmarshal([]byte(rep), &got), rep)
	assert.Equal(t, 0, got.ErrorSet.Failed)
	assert.Equal(t, 1, got.ErrorSet.Preflight)
	require.Len(t, got.ErrorSet.ByMessage, 1)
	assert.True(t, got.ErrorSet.ByMessage[0].Preflight)
	assert.Equal(t, "preflight-1", got.ErrorSet.ByMessage[0].First)
	assert.Contains(t, got.ErrorSet.ByMessage[0].Key, "connection refused")
}

// One cause is one group in the error set, whether net/http put the
// request's method and URL before it (the transport's error) or not (the
// body reader's): a re-check found the grace's cancellations in two.
func TestErrorSetOneCause(t *testing.T) {
	grace := "still in flight when the grace period after sending stopped ran out"
	recs := []llmmetrics.Record{
		{ID: "a", Status: llmmetrics.StatusCancelled, Message: `Post "http://127.0.0.1:8000/v1/chat/completions": ` + grace},
		{ID: "b", Status: llmmetrics.StatusCancelled, Message: grace},
		{ID: "c", Status: llmmetrics.StatusError, Message: `HTTP 500: "quoted": words`},
		{ID: "d", Status: llmmetrics.StatusError, Message: `dial tcp 127.0.0.1:1: connect: connection refused`},
	}
	s := newErrorSet(recs)
	require.NotNil(t, s)
	var keys []string
	for _, m := range s.ByMessage {
		keys = append(keys, fmt.Sprintf("%d %s", m.Count, m.Key))
	}
	assert.ElementsMatch(t, []string{"2 " + grace, `1 HTTP 500: "quoted": words`, "1 dial tcp 127.0.0.1:1: connect: connection refused"}, keys)
}
