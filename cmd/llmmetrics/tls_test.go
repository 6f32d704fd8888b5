package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --url https:// to a server of plain HTTP stops the run as it asks the
// server what it is (status 1), before its test request, with a message
// that says why and gives the http:// URL of the endpoint; the header
// states the handshake's limit (5 s, or --stall when shorter), and the end
// line says why the run stopped. Go's plain server answers the TLS hello
// with an HTTP error or waits, by the bytes of the hello; --stall 300ms
// bounds the wait, so that only the message is checked, not the time. The
// server that answers in HTTP counts its connections: one, the
// self-description's; no test request follows it (issue #21, point 11:
// it did, after the self-description had failed the same way).
func TestHTTPSToPlainServer(t *testing.T) {
	goPlain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(goPlain.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int64
	go func() { // answers every TLS hello in HTTP, at once
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Read(make([]byte, 1024))
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			c.Close()
		}
	}()
	for _, c := range []struct {
		host  string
		extra []string
		limit string
	}{
		{ln.Addr().String(), nil, "5s"},
		{strings.TrimPrefix(goPlain.URL, "http://"), []string{"--stall", "300ms"}, "300ms"},
	} {
		out := filepath.Join(t.TempDir(), "run.jsonl")
		url := "https://" + c.host + "/v1/chat/completions"
		args := append([]string{"run", "--url", url, "--model", "m", "--requests", "3", "--concurrency", "1",
			"--prompts", promptsFile(t), "--max-tokens", "2", "--out", out}, c.extra...)
		code, _, errs := runCLI(t, "", args...)
		assert.Equal(t, 1, code, errs)
		assert.Contains(t, errs, "asking the server what it is (GET /version): ")
		assert.Contains(t, errs, "plain HTTP")
		assert.Contains(t, errs, "not HTTPS; try http://"+c.host+"/v1/chat/completions")
		assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %s", errs)
		run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
		require.NoError(t, err)
		assert.Equal(t, c.limit, run.Header.Load["tls_handshake"])
		assert.Empty(t, run.Records, "no test request was sent")
		require.NotNil(t, run.End)
		assert.Equal(t, "a failed TLS handshake", run.End.By)
		assert.Contains(t, strings.Join(run.End.Notes, " "), "not HTTPS; try http://"+c.host+"/v1/chat/completions")
		// report of the file says why it holds no record.
		code, _, errs = runCLI(t, "", "report", out)
		assert.Equal(t, 1, code)
		assert.Contains(t, errs, "no records: the run was interrupted by a failed TLS handshake before it wrote a request: ")
		assert.Contains(t, errs, "not HTTPS; try http://"+c.host)
	}
	assert.Equal(t, int64(1), accepted.Load(), "the self-description's connection, and no test request after it")
}
