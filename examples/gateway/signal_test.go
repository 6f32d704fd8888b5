package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

// SIGTERM with a call in flight: the gateway stops taking calls, lets the
// call end (its client gets the whole stream, [DONE] included) and writes
// its record and the end line before it exits. The upstream finishes the
// stream only once the gateway refuses new connections, so the signal has
// been taken while the call was in flight, on a machine of any speed.
func TestSIGTERMDrainsCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the gateway")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the gateway:", err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "gateway")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the gateway: %v\n%s", err, out)
	}
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"model":"tiny","choices":[{"index":0,"delta":{"content":"first"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		<-release
		fmt.Fprint(w, `data: {"model":"tiny","choices":[{"index":0,"delta":{"content":" last"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`+"\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer up.Close()
	defer close(release)

	ctx := testContext(t)
	record := filepath.Join(dir, "prod.jsonl")
	gw := startChild(ctx, t, bin, func(port int) []string {
		return []string{"--upstream", up.URL, "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--record", record}
	}, "/metrics")

	resp, err := http.Post(gw.base+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"tiny","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	body := bufio.NewReader(resp.Body)
	first, err := body.ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, first, "first", "the call is in flight")

	require.NoError(t, gw.cmd.Process.Signal(syscall.SIGTERM))
	waitFor(ctx, t, "the gateway refusing new connections", func() (bool, string) {
		c, err := net.Dial("tcp", strings.TrimPrefix(gw.base, "http://"))
		if err != nil {
			return true, err.Error()
		}
		c.Close()
		return false, "accepted"
	})
	release <- struct{}{}
	rest := new(strings.Builder)
	_, err = bufio.NewReader(body).WriteTo(rest)
	require.NoError(t, err, "the client's stream is not cut")
	assert.Contains(t, rest.String(), "data: [DONE]")
	select {
	case <-gw.exited:
	case <-ctx.Done():
		t.Fatal("the gateway did not exit after its call ended")
	}
	assert.True(t, gw.cmd.ProcessState.Success(), "%v\n%s", gw.cmd.ProcessState, gw.log.tail(1000))

	f, err := os.Open(record)
	require.NoError(t, err)
	defer f.Close()
	run, err := llmmetrics.ReadJSONL(f)
	require.NoError(t, err)
	require.Len(t, run.Records, 1, "the call in flight is recorded")
	assert.Equal(t, llmmetrics.StatusOK, run.Records[0].Status)
	assert.Equal(t, 2, run.Records[0].CompletionTokens)
	require.NotNil(t, run.End, "the end line is written")
	assert.Equal(t, 1, run.End.Written)
}
