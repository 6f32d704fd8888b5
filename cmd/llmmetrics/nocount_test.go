package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run whose server sent no usage for one request (as the observer
// writes it: no completion_tokens) is read in strict mode; the text, the
// JSON and the HTML report say how many ok requests had no token count.
func TestReportNoCount(t *testing.T) {
	in := `{"id":"a","status":"ok","sent_ns":0,"chunk_arrivals_ns":[100000000,140000000,180000000],"prompt_tokens":5,"completion_tokens":3}
{"id":"b","status":"ok","sent_ns":10000000,"chunk_arrivals_ns":[50000000,90000000]}
`
	code, out, errs := runCLI(t, in, "report")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "no token count: 1 ok request (1 no usage, 0 usage of zero, 0 count below the chunks)")
	code, out, errs = runCLI(t, in, "report", "--json")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"no_count":{"total":1,"no_usage":1,"zero_usage":0,"below_chunks":0}`)
	page := filepath.Join(t.TempDir(), "report.html")
	code, _, errs = runCLI(t, in, "report", "--html", page)
	require.Equal(t, 0, code, errs)
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(b), "No token count: 1 ok requests (1 no usage, 0 usage of zero, 0 count below the chunks)"), "the HTML says it")
}

// A gate on TPOT of a run with an ok request that has no token count is
// judged only where its unknown TPOT cannot change the verdict: a
// percentile cannot be judged (status 1, naming the request), as an
// attainment or an output rate that such requests leave undecided is;
// the max, at least the known one, can cross a limit (status 3).
func TestGateTPOTNoCount(t *testing.T) {
	// a: TPOT (180 − 100 ms) / (3 − 1) = 40 ms; b: no usage, TPOT unknown.
	in := `{"id":"a","status":"ok","sent_ns":0,"chunk_arrivals_ns":[100000000,140000000,180000000],"prompt_tokens":5,"completion_tokens":3}
{"id":"b","status":"ok","sent_ns":10000000,"chunk_arrivals_ns":[50000000,90000000]}
`
	for _, cond := range []string{"p99(tpot)>100ms", "p99(tpot)>30ms", "mean(tpot)>100ms"} {
		code, _, errs := runCLI(t, in, "report", "--fail-if", cond)
		assert.Equal(t, 1, code, cond)
		assert.Contains(t, errs, `condition "`+cond+`" cannot be judged: 1 ok request has no usable token count, so its TPOT is unknown`, cond)
	}
	code, _, errs := runCLI(t, in, "report", "--fail-if", "max(tpot)>30ms")
	assert.Equal(t, 3, code, errs)
	assert.Contains(t, errs, "gate failed: max(tpot)>30ms (it is ≥40ms)")
	// TTFT does not need the count: judged as ever (its p99 is a's 100 ms).
	code, _, errs = runCLI(t, in, "report", "--fail-if", "p99(ttft)>1s")
	assert.Equal(t, 0, code, errs)
}
