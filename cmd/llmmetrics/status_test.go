package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A signal during an auto warm-up stops the run before its first
// measured request: nothing was measured, status 4 (issue #30, point 6:
// it exited 0), and the end line says what the warm-up did, not that
// it ran the rule's 500 requests.
func TestInterruptedAutoWarmup(t *testing.T) {
	srv, held := heldAfter(t, 3) // three warm-up requests answered, the fourth held
	out := filepath.Join(t.TempDir(), "run.jsonl")
	cmd := startHeld(t, held, "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--requests", "10",
		"--concurrency", "1", "--warmup", "auto", "--prompts", promptsFile(t), "--max-tokens", "8", "--grace", "50ms", "--out", out)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	waitExit(t, cmd)
	errs := cmd.Stderr.(*lockedBuffer).String()
	assert.Equal(t, 4, cmd.ProcessState.ExitCode(), errs)
	assert.Contains(t, errs, "nothing was measured: SIGTERM stopped the run before its first measured request")

	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	require.NotNil(t, run.End)
	assert.Equal(t, "SIGTERM", run.End.By)
	notes := strings.Join(run.End.Notes, "\n")
	assert.Contains(t, notes, "Warm-up: the run was interrupted during the warm-up, after sending 4 warm-up requests (auto: the rule had not found steady state; at most 500).")
	assert.NotContains(t, notes, "within 500 requests")
}

// One cause is one line of the error set, with its total count: the
// client's port of each connection is left out (issue #30, point 6: eight
// lines of "connection reset by peer ×1").
func TestErrorSetPorts(t *testing.T) {
	var recs []llmmetrics.Record
	for i := range 8 {
		recs = append(recs, llmmetrics.Record{ID: fmt.Sprint(i + 1), Status: llmmetrics.StatusError,
			Message: fmt.Sprintf("read tcp 127.0.0.1:%d->127.0.0.1:8080: read: connection reset by peer", 53422+i)})
	}
	recs = append(recs,
		llmmetrics.Record{ID: "9", Status: llmmetrics.StatusError, Message: "write tcp [::1]:40001->[::1]:8080: write: broken pipe"},
		llmmetrics.Record{ID: "10", Status: llmmetrics.StatusError, Message: "write tcp [::1]:40002->[::1]:8080: write: broken pipe"},
		llmmetrics.Record{ID: "11", Status: llmmetrics.StatusError, Message: "the stream was cut off before its end: unexpected EOF (text-bearing events before the cut: 3)"},
		llmmetrics.Record{ID: "12", Status: llmmetrics.StatusError, Message: "the stream was cut off before its end: unexpected EOF (text-bearing events before the cut: 7)"},
	)
	s := newErrorSet(recs)
	require.NotNil(t, s)
	assert.Equal(t, []errorCount{
		{Key: "read tcp 127.0.0.1:8080: read: connection reset by peer", Count: 8, First: "1"},
		{Key: "write tcp [::1]:8080: write: broken pipe", Count: 2, First: "9"},
		{Key: "the stream was cut off before its end: unexpected EOF", Count: 2, First: "11"},
	}, s.ByMessage)
}

// A response head that begins and then trickles is named a slow head,
// not a server that sent no byte (issue #30, point 6), and is a timeout.
// The fake answers the test request and begins every other head with
// "HT", then sends nothing more.
func TestStallSlowHead(t *testing.T) {
	llama, _ := fakeLlama(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/chat/completions" || strings.Contains(string(b), `"max_tokens":1,`) || strings.Contains(string(b), `"max_tokens":1}`) {
			r.Body = io.NopCloser(strings.NewReader(string(b)))
			llama.Config.Handler.ServeHTTP(w, r)
			return
		}
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		rw.WriteString("HT")
		rw.Flush()
		io.Copy(io.Discard, bufio.NewReader(conn)) // until the client goes away
	}))
	t.Cleanup(srv.Close)
	code, stdout, errs := runBinary(t, "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "2",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "2", "--stall", "300ms")
	assert.Equal(t, 4, code, errs)
	assert.Contains(t, stdout, "by status: timeout ×2")
	assert.Contains(t, stdout, "the server sent its response head too slowly: it began, and was not complete 300ms later (the stall timeout)")
	assert.NotContains(t, stdout, "sent no byte")
}

// A stream that ends with neither a finish reason nor [DONE] (the server
// closed it) is recorded ok, and counted: the run's report and its
// file's say how many (issue #30, point 6: no count said so).
func TestClosedStreamsCounted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n")
	}))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, errs := runBinary(t, "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--requests", "3",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "2", "--out", out)
	require.Equal(t, 0, code, errs)
	want := "3 measured requests counted ok ended without a finish reason or [DONE] (the server closed the stream; the first: 1)"
	assert.Contains(t, stdout, want)
	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, rep, want)

	// In JSON, a counter beside the note, in run's and report's alike.
	code, runJSON, errs := runBinary(t, "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--requests", "3",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "2", "--out", out, "--force", "--json")
	require.Equal(t, 0, code, errs)
	code, repJSON, errs := runCLI(t, "", "report", "--json", out)
	require.Equal(t, 0, code, errs)
	for _, doc := range []string{runJSON, repJSON} {
		var got struct {
			Load struct {
				Ended *int `json:"ended_without_finish"`
			} `json:"load_check"`
		}
		require.NoError(t, json.Unmarshal([]byte(doc), &got), doc)
		require.NotNil(t, got.Load.Ended, doc)
		assert.Equal(t, 3, *got.Load.Ended)
	}
}
