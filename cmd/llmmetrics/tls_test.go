package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --url https:// to a server of plain HTTP stops the run at its test
// request (status 1) with a message that says why and gives the http://
// URL, and the header states the handshake's limit: 5 s, or --stall when
// shorter. Go's plain server answers the TLS hello with an HTTP error or
// waits, by the bytes of the hello; --stall 300ms bounds the wait, so that
// only the message is checked, not the time.
func TestHTTPSToPlainServer(t *testing.T) {
	goPlain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(goPlain.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() { // answers every TLS hello in HTTP, at once
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
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
		assert.Contains(t, errs, "the test request failed: ")
		assert.Contains(t, errs, "plain HTTP")
		assert.Contains(t, errs, "not HTTPS; try http://"+c.host+"/v1/chat/completions")
		run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
		require.NoError(t, err)
		assert.Equal(t, c.limit, run.Header.Load["tls_handshake"])
	}
}
