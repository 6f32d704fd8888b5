package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmmetrics/llmmetrics"
)

// Of several conditions on a run whose every request failed, one crossed
// (error_rate 1 > 0.1) fails the gate, status 3, and the line names it
// with those that cannot be judged; it stopped at the first condition that
// cannot be judged (status 1), hiding the crossed one. With none crossed,
// every condition that cannot be judged is named, status 1.
func TestGateCrossedAmongUnjudged(t *testing.T) {
	run := writeLines(t, "allfail.jsonl", `{"id":"a","sent_ns":0,"status":"error","message":"HTTP 500: boom"}`,
		`{"id":"b","sent_ns":1000000,"status":"error","message":"HTTP 500: boom"}`)
	code, _, errs := runCLI(t, "", "report", "--fail-if", "p99(ttft)>1s", "--fail-if", "error_rate>0.1", run)
	assert.Equal(t, 3, code)
	assert.Contains(t, errs, "error_rate>0.1 (it is 1)")
	assert.Contains(t, errs, `condition "p99(ttft)>1s" cannot be judged`)
	code, _, errs = runCLI(t, "", "report", "--fail-if", "p99(ttft)>1s", "--fail-if", "p50(e2e)>1s", run)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `condition "p99(ttft)>1s" cannot be judged`)
	assert.Contains(t, errs, `condition "p50(e2e)>1s" cannot be judged`)
}

// A connection the server closed before its answer began says so in the
// error set: net/http's message, without its URL, was a bare "EOF".
func TestErrorSetSaysEOF(t *testing.T) {
	assert.Equal(t, "EOF: the server closed the connection before its answer began", cut(`Post "http://127.0.0.1:8080/v1/chat/completions": EOF`))
	assert.Equal(t, "HTTP 200, stream failed", errorKind(&llmmetrics.Record{Status: llmmetrics.StatusError,
		Message: "HTTP 200, the stream was cut off before its end: unexpected EOF (text-bearing events before the cut: 3)"}))
}
