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
