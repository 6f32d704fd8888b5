package llmmetrics

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// completenessJSON summarizes a JSONL file and returns its "completeness"
// object as the JSON report writes it.
func completenessJSON(t *testing.T, file string) map[string]any {
	t.Helper()
	run, err := ReadJSONL(strings.NewReader(file))
	require.NoError(t, err)
	s, err := run.Summarize(Options{})
	require.NoError(t, err)
	b, err := s.MarshalJSON()
	require.NoError(t, err)
	var o struct {
		Completeness map[string]any `json:"completeness"`
	}
	require.NoError(t, json.Unmarshal(b, &o))
	require.NotNil(t, o.Completeness, string(b))
	return o.Completeness
}

// A count the file does not give is absent from the JSON report, with
// its reason, never 0, and who interrupted the run is absent unless an
// end line says: a file cut before the end line its header promised knows
// neither how many records were written nor how many were planned (issue
// #21, point 6: it gave "written": 0 and "by": "").
func TestCompletenessUnknownCounts(t *testing.T) {
	head := `{"llmmetrics_run":{"tool":"t","start":"2026-01-01T00:00:00Z","ends":true}}` + "\n"
	recs := `{"id":"1","sent_ns":0,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n" +
		`{"id":"2","sent_ns":1,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n" +
		`{"id":"3","sent_ns":2,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n"

	c := completenessJSON(t, head+recs)
	assert.Equal(t, "truncated", c["state"])
	assert.Equal(t, 3.0, c["read"])
	for _, key := range []string{"by", "planned", "written"} {
		assert.NotContains(t, c, key, "unknown without an end line")
	}
	assert.Equal(t, map[string]any{
		"planned": "no end line was read: it says how many requests were planned",
		"written": "no end line was read: it counts the records written",
	}, c["absent"])

	// A completed run's end line gives both counts; nothing is absent,
	// and there is no interrupter and no reason to print.
	c = completenessJSON(t, head+recs+`{"llmmetrics_end":{"state":"completed","planned":3,"written":3}}`+"\n")
	assert.Equal(t, map[string]any{"state": "completed", "planned": 3.0, "written": 3.0, "read": 3.0}, c)

	// An end line without a planned count (an older writer's) says so.
	c = completenessJSON(t, head+recs+`{"llmmetrics_end":{"state":"interrupted","by":"SIGTERM","written":3}}`+"\n")
	assert.Equal(t, "SIGTERM", c["by"])
	assert.Equal(t, 3.0, c["written"])
	assert.NotContains(t, c, "planned")
	assert.Equal(t, map[string]any{"planned": "the end line does not say"}, c["absent"])
}

// The end line's counts are said in English: one request, two requests.
func TestCompletenessReasonPlural(t *testing.T) {
	for _, c := range []struct {
		written int
		want    string
	}{
		{1, "INTERRUPTED by a failed sizing request: 1 request of 6 planned written;"},
		{2, "INTERRUPTED by a failed sizing request: 2 requests of 6 planned written;"},
	} {
		got := completeness(&RunHeader{Ends: true}, &RunEnd{State: "interrupted", By: "a failed sizing request", Planned: 6, Written: c.written}, nil, c.written)
		assert.True(t, strings.HasPrefix(got.Reason, c.want), got.Reason)
	}
	got := completeness(&RunHeader{Ends: true}, &RunEnd{State: "completed", Written: 1}, nil, 0)
	assert.Equal(t, "TRUNCATED: the end line counts 1 record written but the file holds 0", got.Reason)
}

// The run's notes in its end line (how the prompts were sized) are the
// summary's, after the caller's own, whose slice is left as it was.
func TestEndNotes(t *testing.T) {
	file := `{"llmmetrics_run":{"tool":"t","start":"2026-01-01T00:00:00Z","ends":true}}` + "\n" +
		`{"id":"1","sent_ns":0,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n" +
		`{"llmmetrics_end":{"state":"completed","planned":1,"written":1,"notes":["prompts of 2 words"]}}` + "\n"
	run, err := ReadJSONL(strings.NewReader(file))
	require.NoError(t, err)
	mine := make([]string, 1, 4)
	mine[0] = "mine"
	s, err := run.Summarize(Options{Notes: mine})
	require.NoError(t, err)
	assert.Equal(t, []string{"mine", "prompts of 2 words"}, s.Notes)
	assert.Equal(t, []string{"mine", ""}, mine[:2], "the caller's array is not written into")
}

// A file with no whole record, cut inside its header or just after it,
// reads as truncated, not as a file of no records (issue #30, point 5); a
// header that promises nothing, alone, is a file of no records.
func TestNoWholeRecordTruncated(t *testing.T) {
	head := `{"llmmetrics_run":{"tool":"t","start":"2026-01-01T00:00:00Z","ends":true}}`
	for _, c := range []struct{ name, file, reason string }{
		{"inside the header", head[:40], "TRUNCATED: the file ends inside line 1 (40 bytes of an unfinished header), before any whole record"},
		{"after the header", head + "\n", "TRUNCATED: the file stops after its header, before any record and before the end line its header promised"},
		{"inside the first record", head + "\n" + `{"id":"1","sent_`, "TRUNCATED: the file ends inside line 2 (16 bytes of an unfinished record), before any whole record"},
	} {
		for _, lenient := range []bool{false, true} {
			run, err := ReadOptions{Lenient: lenient}.ReadJSONL(strings.NewReader(c.file))
			require.NoError(t, err, c.name)
			assert.Equal(t, "truncated", run.Completeness().State, c.name)
			_, err = run.Summarize(Options{Lenient: lenient})
			assert.ErrorIs(t, err, ErrNoRecords, c.name)
			require.Error(t, err, c.name)
			assert.True(t, strings.HasPrefix(err.Error(), "llmmetrics: "+c.reason), "%s: %v", c.name, err)
			assert.NotContains(t, err.Error(), "no records", c.name)
		}
	}
	run, err := ReadJSONL(strings.NewReader(`{"llmmetrics_run":{"tool":"t","start":"2026-01-01T00:00:00Z"}}` + "\n"))
	require.NoError(t, err)
	assert.Nil(t, run.Completeness())
	_, err = run.Summarize(Options{})
	assert.EqualError(t, err, "llmmetrics: no records")
}

// The end line is the file's last: a record, a row set aside (or, read
// strictly, a row that is not JSON at all), a header or an unfinished
// line after it is an error, strictly and leniently, naming the end line
// (issue #30, point 5); blank lines after it are not.
func TestTextAfterEndLine(t *testing.T) {
	head := `{"llmmetrics_run":{"tool":"t","start":"2026-01-01T00:00:00Z","ends":true}}` + "\n"
	rec := `{"id":"1","sent_ns":0,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n"
	end := `{"llmmetrics_end":{"state":"completed","planned":1,"written":1}}` + "\n"
	for _, c := range []struct{ name, after string }{
		{"a record", `{"id":"2","sent_ns":1,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n"},
		{"a bad row", `{"id":"2","sent_ns":"x"}` + "\n"},
		{"plain text", "garbage text\n"},
		{"a header", head},
		{"a second run", head + rec + end},
		{"an unfinished line", `{"id":"2","se`},
		{"a record after blank lines", "\n\n" + rec},
	} {
		for _, lenient := range []bool{false, true} {
			_, err := ReadOptions{Lenient: lenient}.ReadJSONL(strings.NewReader(head + rec + end + c.after))
			require.Error(t, err, "%s, lenient %v", c.name, lenient)
			assert.Contains(t, err.Error(), "text after the run's end line (line 3)", c.name)
			assert.ErrorIs(t, err, ErrSyntax, c.name)
			assert.ErrorIs(t, err, ErrAfterEnd, c.name)
		}
	}
	run, err := ReadJSONL(strings.NewReader(head + rec + end + "\n\n"))
	require.NoError(t, err)
	assert.Equal(t, "completed", run.Completeness().State)
}
