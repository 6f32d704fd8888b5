package trace

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// want is a replayed row: its offset and lengths, by hand.
type want struct {
	at             time.Duration
	prompt, output int
	line           int
}

func check(t *testing.T, r *Replay, file string, ws []want) {
	t.Helper()
	require.Len(t, r.Requests, len(ws))
	for i, w := range ws {
		got := r.Requests[i]
		assert.Equal(t, w.at, got.Scheduled, "row %d", i)
		assert.True(t, got.HasSchedule)
		assert.Equal(t, w.prompt, got.PromptTokens, "row %d", i)
		assert.Equal(t, w.output, got.MaxTokens, "row %d", i)
		assert.Equal(t, file+":"+strconv.Itoa(w.line), got.Source)
	}
}

// Each fixture is detected, and replays at its offsets from its first
// row (times and lengths by hand from the files).
func TestFixtures(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		file   string
		format Format
		o      Options
		ws     []want
	}{
		// 18:17:03.9799600 is the zero; 04.0319600 is 52 ms later,
		// 04.0781490 98.189 ms, 04.1206440 140.684 ms; at speed 2 half.
		{"azure.csv", Azure, Options{Speed: 2}, []want{{0, 4808, 10, 2}, {26 * ms, 3180, 8, 3}, {49094500, 110, 27, 4}, {70342000, 7433, 14, 5}}},
		// Milliseconds 0, 0, 3001, 6000.5.
		{"mooncake.jsonl", Mooncake, Options{}, []want{{0, 1024, 10, 1}, {0, 600, 3, 2}, {3001 * ms, 512, 1, 3}, {6000500 * time.Microsecond, 2000, 50, 4}}},
		// Seconds 5, 45, 45, 118.25, from the first: 0, 40, 40, 113.25.
		{"burstgpt.csv", BurstGPT, Options{}, []want{{0, 472, 18, 2}, {40 * time.Second, 1087, 130, 3}, {40 * time.Second, 212, 43, 4}, {113250 * ms, 93, 260, 5}}},
		// The ok requests in send order (1.0 s, 1.25 s, 1.7 s), the
		// preflight and the failed one left out.
		{"run.jsonl", LLMMetrics, Options{}, []want{{0, 512, 64, 3}, {250 * ms, 300, 40, 2}, {700 * ms, 128, 16, 5}}},
	} {
		tr, err := Read("testdata/"+c.file, "")
		require.NoError(t, err, c.file)
		assert.Equal(t, c.format, tr.Format)
		r, err := tr.Replay(c.o)
		require.NoError(t, err, c.file)
		check(t, r, c.file, c.ws)
	}
}

// A window, a row limit, a token scale and caps: each capped row counted.
func TestWindowScaleCaps(t *testing.T) {
	tr, err := Read("testdata/burstgpt.csv", BurstGPT)
	require.NoError(t, err)
	// From 40 s: the rows at 45, 45, 118.25 s; the first two of them.
	r, err := tr.Replay(Options{From: 40 * time.Second, Rows: 2, ScaleTokens: 0.5, MaxPrompt: 500, MaxOutput: 50})
	require.NoError(t, err)
	// 1087·0.5 = 543.5 → 544, capped at 500; 130·0.5 = 65, capped at 50;
	// 212·0.5 = 106; 43·0.5 = 21.5 → 22.
	check(t, r, "burstgpt.csv", []want{{0, 500, 50, 3}, {0, 106, 22, 4}})
	assert.Equal(t, 1, r.CappedPrompt)
	assert.Equal(t, 1, r.CappedOutput)
	assert.Equal(t, 1, r.Capped)
	assert.Equal(t, 45*time.Second, r.First)
	// To 45 s keeps only the row at 5 s (45 is not before 45).
	r, err = tr.Replay(Options{To: 45 * time.Second})
	require.NoError(t, err)
	assert.Len(t, r.Requests, 1)
}

// Every bad input is one error naming the file, the line and the field.
func TestBadInput(t *testing.T) {
	azHead := "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
	moon := func(ts, in, out string) string {
		return `{"timestamp": ` + ts + `, "input_length": ` + in + `, "output_length": ` + out + "}\n"
	}
	for _, c := range []struct {
		name, text string
		err        error
		line       int
		field      string
	}{
		{"unsorted", azHead + "2023-11-16 18:17:04.0,1,1\r\n2023-11-16 18:17:03.0,1,1", ErrUnsorted, 3, "TIMESTAMP"},
		{"unsorted json", moon("5", "1", "1") + moon("4", "1", "1"), ErrUnsorted, 2, "timestamp"},
		{"negative", moon("-1", "1", "1"), ErrNegative, 1, "timestamp"},
		{"negative length", moon("1", "-3", "1"), ErrNegative, 1, "input_length"},
		{"missing column", "TIMESTAMP,ContextTokens\r\n2023-11-16 18:17:04.0,1\r\n", ErrMissing, 1, "column GeneratedTokens"},
		{"missing key", `{"timestamp": 1, "input_length": 1}` + "\n", ErrMissing, 1, "output_length"},
		{"short row", azHead + "2023-11-16 18:17:04.0,1\r\n", ErrMissing, 2, "GeneratedTokens"},
		{"not a number", azHead + "2023-11-16 18:17:04.0,12x,1\r\n", ErrNotNumber, 2, "ContextTokens"},
		{"not a number json", moon(`"7"`, "1", "1"), ErrNotNumber, 1, "timestamp"},
		{"not a time", azHead + "yesterday,1,1\r\n", ErrNotTime, 2, "TIMESTAMP"},
		{"burstgpt not a number", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,m,1,NaN,1,x\n", ErrNotNumber, 2, "Response tokens"},
		{"zero prompt", moon("1", "0", "1"), ErrZero, 1, "input_length"},
		{"zero output", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,m,10,0,10,API log\n", ErrZero, 2, "Response tokens"},
		{"no rows", azHead, ErrEmptyWindow, 0, "rows"},
		{"unknown", "time,in,out\n1,2,3\n", ErrFormat, 1, "first line"},
		{"empty", "", ErrEmptyFile, 0, ""},
		{"blank lines", "\xef\xbb\xbf\n \r\n\t\n", ErrEmptyFile, 0, ""},
	} {
		_, err := ReadFrom(strings.NewReader(c.text), "t.trace", "")
		require.Error(t, err, c.name)
		assert.True(t, errors.Is(err, c.err), "%s: %v", c.name, err)
		var te *Error
		require.True(t, errors.As(err, &te), "%s: %v", c.name, err)
		assert.Equal(t, c.line, te.Line, "%s: %v", c.name, err)
		assert.Equal(t, c.field, te.Field, "%s: %v", c.name, err)
		msg := err.Error()
		assert.True(t, strings.HasPrefix(msg, "t.trace"), msg)
		assert.NotContains(t, msg, "\n")
	}
	// An empty file says so whatever the format asked.
	for _, f := range []Format{"", Azure, Mooncake, BurstGPT, LLMMetrics} {
		_, err := ReadFrom(strings.NewReader(""), "t.trace", f)
		assert.EqualError(t, err, "t.trace: the file is empty: no line holds anything", f)
	}
	// An empty window names the file and the window.
	tr, err := Read("testdata/mooncake.jsonl", "")
	require.NoError(t, err)
	_, err = tr.Replay(Options{From: time.Hour})
	assert.ErrorIs(t, err, ErrEmptyWindow)
	assert.EqualError(t, err, "testdata/mooncake.jsonl: window 1h0m0s to the end: no row in it: the rows run from 0s to 6.0005s")
	// A run file whose ok request has no usage, or none of a length.
	_, err = ReadFrom(strings.NewReader(`{"id":"1","sent_ns":5,"first_text_ns":1,"last_text_ns":2,"prompt_tokens":0,"completion_tokens":3}`+"\n"), "r.jsonl", "")
	assert.ErrorIs(t, err, ErrZero)
	assert.ErrorContains(t, err, "r.jsonl:1: prompt_tokens")
}

// An ok request of a run file without usage has no lengths to replay: it
// is left out and counted, unless none has usage (an error with the hint).
func TestReadRunNoUsage(t *testing.T) {
	withUsage := `{"id":"1","sent_ns":5,"first_text_ns":1,"last_text_ns":2,"prompt_tokens":7,"completion_tokens":3}` + "\n"
	without := `{"id":"2","sent_ns":9,"first_text_ns":1,"last_text_ns":2,"prompt_tokens":7}` + "\n"
	tr, err := ReadFrom(strings.NewReader(withUsage+without+withUsage), "r.jsonl", "")
	require.NoError(t, err)
	assert.Equal(t, 1, tr.NoUsage)
	require.Len(t, tr.Rows, 2)
	assert.Equal(t, []int{1, 3}, []int{tr.Rows[0].Line, tr.Rows[1].Line})

	// The advice fits the file's origin, by its header's tool: the
	// gateway asks for usage with --include-usage; llmmetrics run asks
	// for it always, so the server sent none.
	head := func(tool string) string {
		return `{"llmmetrics_run":{"tool":"` + tool + `","start":"2026-01-01T00:00:00Z"}}` + "\n"
	}
	for _, c := range []struct{ name, header, why string }{
		{"gateway", head("llmmetrics examples/gateway"), "record with the gateway's --include-usage"},
		{"run", head("llmmetrics v1.2.0 go1.26.8"), "the server sent no usage in its answers to llmmetrics run (a server that ignores stream_options.include_usage, or a --body that turned it off)"},
		{"other tool", head("mytool 3"), "the server sent no usage in the answers mytool 3 recorded"},
		{"no header", "", "the file has no run header to say what recorded it; a file of the gateway needs its --include-usage"},
	} {
		tr, err := ReadFrom(strings.NewReader(c.header+withUsage+without), "r.jsonl", "")
		require.NoError(t, err, c.name)
		assert.Equal(t, c.why, tr.NoUsageWhy, c.name)
		_, err = ReadFrom(strings.NewReader(c.header+without+without), "r.jsonl", "")
		assert.ErrorIs(t, err, ErrMissing, c.name)
		line := 1 + strings.Count(c.header, "\n")
		assert.EqualError(t, err, fmt.Sprintf("r.jsonl:%d: completion_tokens: missing: the server gave no usage for any of the 2 ok requests: %s", line, c.why), c.name)
	}
}

// A run file whose records carry no send times has nothing to replay
// them at: an error naming the field, never every request sent at 0.
func TestReadRunNoSendTimes(t *testing.T) {
	unsent := `{"id":"1","first_text_ns":1,"last_text_ns":2,"prompt_tokens":7,"completion_tokens":3}` + "\n"
	_, err := ReadFrom(strings.NewReader(unsent), "r.jsonl", "llmmetrics")
	assert.ErrorIs(t, err, ErrMissing)
	assert.EqualError(t, err, "r.jsonl:1: sent_ns: missing: no record gives its send time, which a replay sends at")
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"", "auto", "azure", "mooncake", "burstgpt", "llmmetrics"} {
		_, err := ParseFormat(s)
		assert.NoError(t, err, s)
	}
	_, err := ParseFormat("splitwise")
	assert.Error(t, err)
}

// Reading never panics, and what it reads is in time order with lengths
// of at least one.
func FuzzReadFrom(f *testing.F) {
	for _, s := range []string{"azure.csv", "mooncake.jsonl", "burstgpt.csv", "run.jsonl"} {
		b, err := os.ReadFile("testdata/" + s)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := ReadFrom(strings.NewReader(string(b)), "f", "")
		if err != nil {
			return
		}
		for i, r := range tr.Rows {
			if r.Prompt < 1 || r.Output < 1 || r.At < 0 || i > 0 && r.At < tr.Rows[i-1].At {
				t.Fatalf("row %d: %+v", i, r)
			}
		}
	})
}
