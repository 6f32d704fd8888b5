package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requestsCount is a run's records in the JSON of diff and sweep.
type requestsCount struct {
	Name              string
	Offered, Rejected int
}

// diff and sweep with --lenient say, of each run, how many of its records
// were set aside as invalid, in the text and in JSON, as report does:
// nothing is dropped silently.
func TestDiffSweepSaySetAside(t *testing.T) {
	dir := t.TempDir()
	a := writeRunFile(t, dir, "a.jsonl", 100)
	b := writeRunFile(t, dir, "b.jsonl", 100)
	f, err := os.OpenFile(b, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"id":"x","sent_ns":"bad"}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	// B's file holds 30 good records and 1 bad one: 31 offered, 1
	// rejected; A's 30 good ones, none rejected.
	code, out, errs := runCLI(t, "", "diff", "--lenient", a, b)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "SET ASIDE: B run 1 ("+b+"): 1 of 31 records were rejected as invalid; they are counted, never measured")
	assert.NotContains(t, out, "A run 1: 0 of")

	code, out, errs = runCLI(t, "", "diff", "--lenient", "--json", a, b)
	require.Equal(t, 0, code, errs)
	var d struct {
		Requests struct{ A, B []requestsCount }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	assert.Equal(t, []requestsCount{{a, 30, 0}}, d.Requests.A)
	assert.Equal(t, []requestsCount{{b, 31, 1}}, d.Requests.B)

	code, out, errs = runCLI(t, "", "sweep", "--lenient", "--level", a+"=1", "--level", b+"=2", a, b)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "SET ASIDE: "+b+" (concurrency 2): 1 of 31 records were rejected as invalid; they are counted, never measured")
	assert.NotContains(t, out, a+" (concurrency 1)")

	code, out, errs = runCLI(t, "", "sweep", "--lenient", "--json", "--level", a+"=1", "--level", b+"=2", a, b)
	require.Equal(t, 0, code, errs)
	var sw struct {
		Sweep struct {
			Levels []struct {
				Level    float64
				Requests []requestsCount
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &sw))
	require.Len(t, sw.Sweep.Levels, 2)
	assert.Equal(t, []requestsCount{{a, 30, 0}}, sw.Sweep.Levels[0].Requests)
	assert.Equal(t, []requestsCount{{b, 31, 1}}, sw.Sweep.Levels[1].Requests)
}
