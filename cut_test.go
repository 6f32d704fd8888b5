package llmmetrics

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run file cut at any byte after its header (a writer killed mid-write,
// a full disk) reads without an error, strictly and leniently, as
// TRUNCATED, with every whole record and nothing of the unfinished one.
func TestCutAtEveryByte(t *testing.T) {
	var b bytes.Buffer
	h := &RunHeader{Tool: "loadgen", Start: time.Unix(0, 0).UTC(), Ends: true}
	require.NoError(t, h.WriteLine(&b))
	head := b.Len()
	var ends []int // where each record line ends, its newline included
	for _, r := range []Record{
		{ID: "test-1", Chunks: durations(90), CompletionTokens: 1, PromptTokens: 7, MaxTokens: 1, Warmup: true},
		{ID: "1", Chunks: durations(100, 150, 200), ChunkTokens: []int32{1, 1, 1}, CompletionTokens: 3, PromptTokens: 12, MaxTokens: 3},
		{ID: "2", Status: StatusError, Message: `HTTP 500: {"error":"boom"}`, Sent: time.Millisecond},
	} {
		require.NoError(t, WriteJSONL(&b, []Record{r}))
		ends = append(ends, b.Len())
	}
	require.NoError(t, (&RunEnd{State: "completed", Planned: 3, Written: 3}).WriteLine(&b))
	file := b.Bytes()

	// Up to the end line's closing brace: the end line whole, without
	// its newline, is a complete file.
	for cut := head; cut < len(file)-1; cut++ {
		// The whole records are those whose line ends before the cut, or
		// at it without its newline.
		whole := 0
		for _, e := range ends {
			if e <= cut+1 {
				whole++
			}
		}
		for _, lenient := range []bool{false, true} {
			run, err := ReadOptions{Lenient: lenient}.ReadJSONL(bytes.NewReader(file[:cut]))
			require.NoError(t, err, "cut at %d: %q", cut, file[:cut])
			require.Len(t, run.Records, whole, "cut at %d", cut)
			assert.Zero(t, run.RejectedCount(), "cut at %d", cut)
			if whole == 0 {
				continue // the header alone: no records to summarize
			}
			s, err := run.Summarize(Options{Lenient: true})
			require.NoError(t, err, "cut at %d", cut)
			require.NotNil(t, s.Completeness, "cut at %d", cut)
			assert.Equal(t, "truncated", s.Completeness.State, "cut at %d", cut)
			assert.True(t, strings.HasPrefix(s.Completeness.Reason, "TRUNCATED: "), s.Completeness.Reason)
			open := file[cut-1] != '\n' && file[cut] != '\n' // inside a line, not at its end
			if open {
				require.NotNil(t, run.Cut, "cut at %d", cut)
				assert.Equal(t, whole, run.Cut.After, "cut at %d", cut)
				assert.Contains(t, s.Completeness.Reason, "the file ends inside line ", "cut at %d", cut)
			} else {
				assert.Nil(t, run.Cut, "cut at %d", cut)
			}
		}
	}
}

// What a cut is, and what stays an error: only an unfinished beginning of
// a JSON object on the last line, without a newline, is a cut; a header-
// less file gets it too.
func TestCutOrSyntaxError(t *testing.T) {
	const rec = `{"id":"a","sent_ns":0,"chunk_arrivals_ns":[100],"completion_tokens":1}`
	const header = `{"llmmetrics_run":{"tool":"t","start":"1970-01-01T00:00:00Z","ends":true}}`
	for _, c := range []struct {
		name, file string
		reason     string // the completeness reason, "" for none
		err        string // the reading error, "" for none
	}{
		// 8 bytes: {"id":"b
		{"a header-less file cut in a record", rec + "\n" + `{"id":"b`, "TRUNCATED: the file ends inside line 2 (8 bytes of an unfinished record after record 1); the writer stopped in the middle of a record", ""},
		{"a run file cut in a record", header + "\n" + rec + "\n" + `{"id":"b","sent_ns":12`, "TRUNCATED: the file ends inside line 3 (22 bytes of an unfinished record after record 1), before the end line its header promised", ""},
		{"a run file cut in its end line", header + "\n" + rec + "\n" + `{"llmmetrics_end":{"state":"comp`, "TRUNCATED: the file ends inside line 3 (32 bytes of an unfinished end line after record 1); every record is whole, but how the run ended is not known", ""},
		{"a cut inside a string's escape", rec + "\n" + `{"id":"b\`, "(9 bytes of an unfinished record after record 1)", ""},
		{"a cut after a carriage return", rec + "\r\n" + `{"id":"b"` + "\r", "(10 bytes of an unfinished record after record 1)", ""},
		{"a whole last record without a newline", `{"id":"b","sent_ns":0,"status":"error"}` + "\n" + rec, "", ""},
		{"an unfinished line with a newline", rec + "\n" + `{"id":"b"` + "\n", "", "line 2"},
		{"an unfinished line before the last", `{"id":"b"` + "\n" + rec, "", "line 1"},
		{"a wrong character on the last line", rec + "\n" + `{"id":x`, "", "line 2"},
		{"a closed object with an unknown key, last", rec + "\n" + `{"idd":"b"}`, "", "line 2"},
		{"something after the object, last", rec + "\n" + rec + ` {`, "", "line 2"},
		{"a bare number, last", rec + "\n" + `12`, "", "line 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run, err := ReadJSONL(strings.NewReader(c.file))
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			s, err := run.Summarize(Options{})
			require.NoError(t, err)
			if c.reason == "" {
				assert.Nil(t, s.Completeness)
				return
			}
			require.NotNil(t, s.Completeness)
			assert.Equal(t, "truncated", s.Completeness.State)
			assert.Contains(t, s.Completeness.Reason, c.reason)
			assert.Len(t, run.Records, 1)
		})
	}
}
