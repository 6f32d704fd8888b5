package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noUsageJSONL is 20 ok answers without usage, each asking max_tokens 32,
// as the observer writes them: no completion_tokens.
func noUsageJSONL() string {
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, `{"id":"r%d","status":"ok","sent_ns":%d,"chunk_arrivals_ns":[100000000,140000000],"max_tokens":32}`+"\n", i, i*10000000)
	}
	return b.String()
}

// A run whose answers carry no usage has no output rate: the report says
// it is absent (never "0.000 tokens/s (0 tokens)"), and a gate on it
// cannot be judged, status 1, instead of failing "(it is 0)" with 3.
func TestReportOutputRateAbsent(t *testing.T) {
	in := noUsageJSONL()
	code, out, errs := runCLI(t, in, "report")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "output  absent: no ok request has an output token count (20 with no usage)")
	assert.NotContains(t, out, "0 tokens)")
	assert.NotContains(t, out, "20 did not")
	assert.NotContains(t, out, "no ok request says its max_tokens")
	assert.NotContains(t, out, "workload.output: no ok request")
	code, out, errs = runCLI(t, in, "report", "--json")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, `"output_tokens_per_s":0`)
	code, _, errs = runCLI(t, in, "report", "--fail-if", "output_tokens_per_s<100")
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "cannot be judged")
	assert.NotContains(t, errs, "(it is 0)")
}

// The spectrum's samples are the summary's: of three records, one
// repeats an id and is rejected in lenient mode, so the spectrum is over
// 2 ok requests, as the table says.
func TestSpectrumRepeatedID(t *testing.T) {
	in := `{"id":"a","status":"ok","sent_ns":0,"chunk_arrivals_ns":[100000000,140000000],"completion_tokens":2}
{"id":"b","status":"ok","sent_ns":0,"chunk_arrivals_ns":[120000000,160000000],"completion_tokens":2}
{"id":"a","status":"ok","sent_ns":0,"chunk_arrivals_ns":[130000000,170000000],"completion_tokens":2}
`
	code, out, errs := runCLI(t, in, "report", "--lenient")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "2 ok")
	code, out, errs = runCLI(t, in, "report", "--lenient", "--spectrum", "ttft")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "spectrum over 2 ok requests")
}
