package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

// withInvalid is r with one more record, invalid (its last text before
// its first), which a lenient summary sets aside as rejected.
func withInvalid(r LevelRun) LevelRun {
	run := *r.Run
	run.Records = append(append([]llmmetrics.Record(nil), run.Records...),
		llmmetrics.Record{ID: "bad", FirstText: time.Second, LastText: time.Millisecond, CompletionTokens: 5})
	r.Run = &run
	return r
}

// A diff says, above its table and in JSON, how many records each run set
// aside; a run with none is not named.
func TestDiffSaysSetAside(t *testing.T) {
	a := levelRun(1, 100*time.Millisecond, 10, nil)
	b := withInvalid(levelRun(1, 100*time.Millisecond, 10, nil))
	d, err := DiffRuns([]*llmmetrics.Run{a.Run}, []*llmmetrics.Run{b.Run}, DiffOptions{Summary: llmmetrics.Options{Lenient: true}})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, d.WriteTable(&out))
	// B: the 10 valid records and the invalid one are 11 offered, 1 rejected.
	assert.Contains(t, out.String(), "SET ASIDE: B run 1: 1 of 11 records were rejected as invalid; they are counted, never measured")
	assert.NotContains(t, out.String(), "A run 1: 0 of")
	js, err := d.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(js), `"requests":{"a":[{"name":"A run 1","offered":10,"rejected":0}],"b":[{"name":"B run 1","offered":11,"rejected":1}]}`)
}

// Where the caller names the runs (their files), a diff's SET ASIDE
// line and its JSON name the run that set records aside, so that a side
// of several runs says which one: not by position alone.
func TestDiffNamesRunsSetAside(t *testing.T) {
	a := levelRun(1, 100*time.Millisecond, 10, nil)
	b := withInvalid(levelRun(1, 100*time.Millisecond, 10, nil))
	d, err := DiffRuns([]*llmmetrics.Run{a.Run}, []*llmmetrics.Run{a.Run, b.Run}, DiffOptions{
		Summary: llmmetrics.Options{Lenient: true},
		NamesA:  []string{"a.jsonl"}, NamesB: []string{"b1.jsonl", "b2.jsonl"},
	})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, d.WriteTable(&out))
	// b2: the 10 valid records and the invalid one are 11 offered, 1 rejected.
	assert.Contains(t, out.String(), "SET ASIDE: B run 2 (b2.jsonl): 1 of 11 records were rejected as invalid")
	assert.NotContains(t, out.String(), "SET ASIDE: B run 1")
	js, err := d.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(js), `"requests":{"a":[{"name":"a.jsonl","offered":10,"rejected":0}],`+
		`"b":[{"name":"b1.jsonl","offered":10,"rejected":0},{"name":"b2.jsonl","offered":11,"rejected":1}]}`)

	_, err = DiffRuns([]*llmmetrics.Run{a.Run}, []*llmmetrics.Run{b.Run}, DiffOptions{NamesB: []string{"x", "y"}})
	assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption)
}

// The lines of diff that speak of some runs name them by number and by
// name: a run without a header, a run without send times (no window).
func TestDiffNamesRunsItSpeaksOf(t *testing.T) {
	a := levelRun(1, 100*time.Millisecond, 10, map[string]string{"gpu": "H100"}).Run
	b := levelRun(1, 100*time.Millisecond, 10, nil).Run
	nb := *b
	nb.NoSendTimes = true
	d, err := DiffRuns([]*llmmetrics.Run{a}, []*llmmetrics.Run{b, &nb}, DiffOptions{
		NamesA: []string{"a.jsonl"}, NamesB: []string{"b1.jsonl", "b2.csv"},
	})
	require.NoError(t, err)
	assert.Contains(t, d.Warnings, "B runs 1 (b1.jsonl), 2 (b2.csv) have no run header: how the sides' runs were taken (load, model, lengths, environment) cannot be compared")
	assert.Contains(t, strings.Join(d.Skipped, "\n"), "requests_per_s: B run 2 (b2.csv) has no throughput window: the records carry no send times")
	// A side of one run has no spread to give (null), one of two has: 0.
	js, err := d.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(js), `{"name":"ttft p50","unit":"ms","a":{"median":100,"mad":null,"n":1},"b":{"median":100,"mad":0,"n":2}`)
	sw, err := SweepRuns([]LevelRun{levelRun(1, 100*time.Millisecond, 10, nil)}, llmmetrics.Options{})
	require.NoError(t, err)
	js, err = sw.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(js), `"ttft p50":{"unit":"ms","median":100,"mad":null,"scaled_mad":null,"n":1}`)
}

// A sweep says, above its table and in JSON, how many records each run
// set aside, naming it and its level; a run known by figures alone has no
// records, and its counts are null, not 0, with the reason.
func TestSweepSaysSetAside(t *testing.T) {
	given := LevelRun{Kind: "concurrency", Level: 4, Name: "stage_0", Figures: map[string]float64{"ttft p50": 120}}
	sw, err := SweepRuns([]LevelRun{withInvalid(levelRun(2, 100*time.Millisecond, 10, nil)), given}, llmmetrics.Options{Lenient: true})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, sw.WriteTable(&out))
	assert.Contains(t, out.String(), "SET ASIDE: c2 (concurrency 2): 1 of 11 records were rejected as invalid; they are counted, never measured")
	assert.NotContains(t, out.String(), "stage_0 (concurrency 4)")
	js, err := sw.MarshalJSON()
	require.NoError(t, err)
	var got struct {
		Levels []struct {
			Requests []json.RawMessage
		}
	}
	require.NoError(t, json.Unmarshal(js, &got))
	require.Len(t, got.Levels, 2)
	require.Len(t, got.Levels[0].Requests, 1)
	var req struct {
		Name              string
		Offered, Rejected int
	}
	require.NoError(t, json.Unmarshal(got.Levels[0].Requests[0], &req))
	assert.Equal(t, "c2 11 1", fmt.Sprint(req.Name, " ", req.Offered, " ", req.Rejected))
	require.Len(t, got.Levels[1].Requests, 1)
	assert.JSONEq(t, `{"name":"stage_0","offered":null,"rejected":null,"absent":"the run is known by figures alone, not by its records"}`,
		string(got.Levels[1].Requests[0]))
}
