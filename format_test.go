package llmmetrics

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

const csvHeader = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n"

func TestReadCSVHeader(t *testing.T) {
	for _, c := range []struct {
		in  string
		err error
		msg string
	}{
		{"", ErrNoRecords, "the input is empty"},
		{"request_id,prompt_tokens,completion_tokens,TTFT_ms\n", ErrMissingField, `"E2E_ms" is missing`},
		{"request_id,prompt_tokens,completion_tokens,ttft_ms,E2E_ms\n", ErrSyntax, `unknown column "ttft_ms"`},
		{"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,E2E_ms\n", ErrSyntax, `"E2E_ms" repeated`},
		// A file of garbage is quoted by its first 20 bytes, not whole.
		{strings.Repeat("x", 5000) + "\n", ErrSyntax, `unknown column "xxxxxxxxxxxxxxxxxxxx…" (want`},
	} {
		_, err := ReadCSV(strings.NewReader(c.in))
		require.ErrorIs(t, err, c.err, c.in)
		assert.Contains(t, err.Error(), c.msg)
	}
	// A UTF-8 byte order mark before the header is ignored.
	run, err := ReadCSV(strings.NewReader("\ufeff" + csvHeader + "a,1,2,10,20\n"))
	require.NoError(t, err)
	require.Len(t, run.Records, 1)
	assert.Equal(t, "a", run.Records[0].ID)
}

func TestReadCSVRows(t *testing.T) {
	in := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status,message\n" +
		"ok1,10,3,12.5,40.000001,0,ok,\n" + // line 2
		"bad-nan,10,3,NaN,40,0,ok,\n" + // line 3
		"short,10,3\n" + // line 4
		"fail,,,,,5,timeout,no reply\n" + // line 5
		"hex,10,3,0x1p-3,40,0,,\n" + // line 6
		"under,10,3,1_0,40,0,,\n" + // line 7
		"huge,10,3,1e400,40,0,,\n" + // line 8
		"missing,10,3,,40,0,ok,\n" + // line 9
		"zero,10,0,,,0,ok,\n" + // line 10
		"status,10,3,1,2,0,fine,\n" + // line 11
		"count,10,2.5,1,2,0,ok,\n" + // line 12
		"inf,10,3,1,-Inf,0,ok,\n" // line 13
	// Strict reading stops at the first bad row.
	_, err := ReadCSV(strings.NewReader(in))
	var first *RecordError
	require.ErrorAs(t, err, &first)
	assert.Equal(t, 3, first.Line)
	assert.ErrorIs(t, err, ErrNonFinite)

	run, err := ReadOptions{Lenient: true}.ReadCSV(strings.NewReader(in))
	require.ErrorIs(t, err, ErrRejected)
	assert.Contains(t, err.Error(), "9 rows rejected; line 3, column 14")
	var ids []string
	for _, r := range run.Records {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{"ok1", "fail", "zero"}, ids)
	assert.Equal(t, []int{2, 5, 10}, run.Lines)
	r := run.Records[0]
	assert.Equal(t, ms(12.5), r.FirstText)
	assert.Equal(t, time.Duration(40_000_001), r.LastText)
	assert.Equal(t, Record{ID: "fail", Status: StatusTimeout, Message: "no reply", Sent: 5 * time.Millisecond}, run.Records[1])

	want := []struct {
		line  int
		field string
		err   error
	}{
		{3, "TTFT_ms", ErrNonFinite}, {4, "", ErrSyntax}, {6, "TTFT_ms", ErrSyntax}, {7, "TTFT_ms", ErrSyntax},
		{8, "TTFT_ms", ErrOutOfRange}, {9, "TTFT_ms", ErrMissingField}, {11, "status", ErrBadStatus},
		{12, "completion_tokens", ErrSyntax}, {13, "E2E_ms", ErrNonFinite},
	}
	require.Len(t, run.Rejected, len(want))
	for i, w := range want {
		e := run.Rejected[i]
		assert.Equal(t, w.line, e.Line, "rejection %d", i)
		assert.Equal(t, w.field, e.Field, "line %d", w.line)
		assert.ErrorIs(t, e, w.err, "line %d", w.line)
	}
	// Columns count bytes, as encoding/csv does: "bad-nan,10,3," is 13 bytes,
	// so NaN starts at column 14.
	assert.Equal(t, 14, run.Rejected[0].Column)
	assert.Contains(t, run.Rejected[0].Error(), `line 3, column 14 (id "bad-nan"): field TTFT_ms`)

	// Strict: the rejected rows are an error; lenient: they are counted.
	_, err = run.Summarize(Options{})
	require.ErrorIs(t, err, ErrNonFinite)
	assert.ErrorIs(t, run.Err(), ErrMissingField)
	s, err := run.Summarize(Options{Lenient: true})
	require.NoError(t, err)
	assert.Equal(t, Accounting{Offered: 12, OK: 1, ZeroToken: 1, Failed: 1, Timeouts: 1, Rejected: 9}, s.Requests)
}

// Validation errors found by Summarize name the line the record came from.
func TestValidationNamesLine(t *testing.T) {
	run, err := ReadCSV(strings.NewReader(csvHeader + "a,1,2,10,20\nb,1,2,30,20\n"))
	require.NoError(t, err)
	_, err = run.Summarize(Options{})
	require.ErrorIs(t, err, ErrTimeOrder)
	var re *RecordError
	require.True(t, errors.As(err, &re))
	assert.Equal(t, 3, re.Line)
	assert.Equal(t, 1, re.Index)
	assert.Equal(t, `llmmetrics: line 3 (id "b"): field last_text: last text before first text: last text 20ms, first text 30ms`, err.Error())

	run, err = ReadCSV(strings.NewReader(csvHeader + "a,1,2,10,20\na,1,2,10,20\n"))
	require.NoError(t, err)
	_, err = run.Summarize(Options{})
	require.ErrorIs(t, err, ErrDuplicateID)
	assert.Contains(t, err.Error(), "line 3")
	assert.Contains(t, err.Error(), "also line 2")
}

func TestReadJSONL(t *testing.T) {
	in := `{"id":"a","sent_ns":5,"chunk_arrivals_ns":[10,20,30],"chunk_tokens":[1,1,2],"prompt_tokens":7,"completion_tokens":4,"max_tokens":9}

{"id":"b","sent_ns":0,"first_text_ns":10,"last_text_ns":30,"completion_tokens":2}
{"id":"c","sent_ns":0,"status":"error","message":"boom"}
{"id":"d","completion_tokens":2,"ttft_ns":5}
{"id":"e","completion_tokens":2.5,"first_text_ns":1,"last_text_ns":2}
{"id":"f","completion_tokens":2,"first_text_ns":1}
{"id":"g","sent_ns":0,"first_text_ns":1,"last_text_ns":2}
{"id":"h","completion_tokens":1,"first_text_ns":NaN,"last_text_ns":2}
{"id":"i","completion_tokens":1,"first_text_ns":1,"last_text_ns":2} {"id":"j"}
{"id":"k","status":"done"}
[1,2]
{"id":"l","completion_tokens":1,"first_text_ns":1e30,"last_text_ns":2}
`
	run, err := ReadOptions{Lenient: true}.ReadJSONL(strings.NewReader(in))
	require.ErrorIs(t, err, ErrRejected)
	require.Len(t, run.Records, 4)
	assert.Equal(t, []int{1, 3, 4, 8}, run.Lines)
	assert.Equal(t, Record{ID: "a", Sent: 5, Chunks: []time.Duration{10, 20, 30}, ChunkTokens: []int32{1, 1, 2},
		PromptTokens: 7, CompletionTokens: 4, MaxTokens: 9}, run.Records[0])
	assert.Equal(t, Record{ID: "b", FirstText: 10, LastText: 30, CompletionTokens: 2}, run.Records[1])
	assert.Equal(t, Record{ID: "c", Status: StatusError, Message: "boom"}, run.Records[2])
	// An ok record without completion_tokens: the server reported no
	// count, which is read as such, never as 0.
	assert.Equal(t, Record{ID: "g", FirstText: 1, LastText: 2, NoUsage: true}, run.Records[3])
	want := []struct {
		line  int
		field string
		err   error
	}{
		{5, "ttft_ns", ErrSyntax}, // unknown key
		{6, "completion_tokens", ErrSyntax},
		{7, "last_text_ns", ErrMissingField},
		{9, "first_text_ns", ErrSyntax}, // NaN is not JSON
		{10, "", ErrSyntax},             // a second object after the first
		{11, "status", ErrBadStatus},
		{12, "", ErrSyntax},
		{13, "first_text_ns", ErrSyntax}, // a whole number is written without an exponent
	}
	require.Len(t, run.Rejected, len(want))
	for i, w := range want {
		e := run.Rejected[i]
		assert.Equal(t, w.line, e.Line, "rejection %d: %v", i, e)
		assert.Equal(t, w.field, e.Field, "line %d: %v", w.line, e)
		assert.ErrorIs(t, e, w.err, "line %d", w.line)
	}
	assert.Contains(t, run.Rejected[0].Error(), `line 5, column 33 (id "d"): field ttft_ns: syntax error: unknown key "ttft_ns"`)
}

// A record with many chunks makes a line far over bufio.Scanner's 64 KiB.
func TestReadJSONLLongLine(t *testing.T) {
	chunks := make([]time.Duration, 50_000)
	for i := range chunks {
		chunks[i] = time.Duration(i) * time.Millisecond
	}
	var b bytes.Buffer
	require.NoError(t, WriteJSONL(&b, []Record{{ID: "long", Chunks: chunks, CompletionTokens: len(chunks)}}))
	require.Greater(t, b.Len(), 300_000)
	run, err := ReadJSONL(&b)
	require.NoError(t, err)
	require.NoError(t, run.Err())
	assert.Equal(t, chunks, run.Records[0].Chunks)
}

func TestReadDetects(t *testing.T) {
	run, f, err := Read(strings.NewReader("\n  {\"id\":\"a\",\"completion_tokens\":0}\n"))
	require.NoError(t, err)
	assert.Equal(t, FormatJSONL, f)
	assert.Len(t, run.Records, 1)
	run, f, err = Read(strings.NewReader(csvHeader + "a,1,1,5,5\n"))
	require.NoError(t, err)
	assert.Equal(t, FormatCSV, f)
	assert.Len(t, run.Records, 1)
	_, _, err = Read(iotest.ErrReader(errors.New("disk on fire")))
	assert.ErrorContains(t, err, "disk on fire")
}

// Reading through a reader that returns one byte at a time gives the same
// run: the readers do not depend on how the input is chunked.
func TestReadChunkInvariance(t *testing.T) {
	for _, in := range []string{
		csvHeader + "a,1,3,10,20\nb,1,x,1,2\n\"c\",2,2,1.5,2.5\n",
		"{\"id\":\"a\",\"chunk_arrivals_ns\":[1,2],\"completion_tokens\":2}\n{bad\n{\"id\":\"b\",\"completion_tokens\":0}",
	} {
		whole, _, err1 := Read(strings.NewReader(in))
		bytewise, _, err2 := Read(iotest.OneByteReader(strings.NewReader(in)))
		require.Equal(t, err1, err2)
		assert.Equal(t, whole, bytewise)
	}
}

// Writing and reading back gives equal records, in both formats (CSV keeps
// no chunks and no client-side facts, so its records are compared without
// them).
func TestRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		recs := genRecords(t, false)
		for i := range recs {
			recs[i].Message = rapid.SampledFrom([]string{"", "boom", "a,\"quoted\"\nline"}).Draw(t, "msg")
			if rapid.Bool().Draw(t, "client") {
				// The facts no other key checks: the wait, the cached
				// prompt tokens, the session and the turn.
				c := &ClientSide{Wait: time.Duration(rapid.Int64Range(0, maxTime).Draw(t, "wait")),
					Session: rapid.SampledFrom([]string{"", "s1", "sé \"x\""}).Draw(t, "session"),
					Turn:    rapid.IntRange(0, maxCount).Draw(t, "turn")}
				if rapid.Bool().Draw(t, "cached") {
					c.CachedPromptTokens, c.HasCached = rapid.IntRange(0, maxCount).Draw(t, "cachedTokens"), true
				}
				recs[i].Client = c
			}
		}
		var b bytes.Buffer
		if err := WriteJSONL(&b, recs); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSONL(&b)
		if err != nil || back.Err() != nil {
			t.Fatal(err, back.Err())
		}
		assert.Equal(t, recs, back.Records)

		flat := cloneRecords(recs)
		for i := range flat {
			r := &flat[i]
			if r.Status == StatusOK && r.CompletionTokens > 0 {
				r.FirstText, r.LastText = r.first(), r.last()
			} else {
				r.FirstText, r.LastText = 0, 0
			}
			r.Chunks, r.ChunkTokens, r.MaxTokens = nil, nil, 0
			r.Client, r.Warmup = nil, false // the CSV keeps no client facts and refuses warm-up
		}
		b.Reset()
		if err := WriteCSV(&b, flat); err != nil {
			t.Fatal(err)
		}
		back, err = ReadCSV(&b)
		if err != nil || back.Err() != nil {
			t.Fatal(err, back.Err())
		}
		assert.Equal(t, flat, back.Records)
	})
}

func TestFormatMillis(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0", 1: "0.000001", ms(36.25): "36.25", -ms(1.5): "-1.5", 265 * time.Millisecond: "265",
		time.Duration(1<<63 - 1): "9223372036854.775807",
	} {
		assert.Equal(t, want, decimal.FormatMillis(int64(d)))
		if d < 1<<53 { // beyond 2⁵³ ns a float64 cannot hold every nanosecond
			back, err := parseMillis([]byte(want))
			require.NoError(t, err)
			assert.Equal(t, d, back, want)
		}
	}
}

// An ok record without usage cannot be written as a CSV row, which would
// read back as 0 output tokens, a zero-token request: WriteCSV refuses it
// (convert --measured to CSV once wrote such runs as every request
// zero-token).
func TestWriteCSVNoUsage(t *testing.T) {
	recs := []Record{{ID: "a", Chunks: durations(100, 150), NoUsage: true}}
	var b bytes.Buffer
	err := WriteCSV(&b, recs)
	if !errors.Is(err, ErrMissingField) || !strings.Contains(err.Error(), `id "a"`) || !strings.Contains(err.Error(), "(no_usage)") {
		t.Errorf("WriteCSV of a record without usage: %v", err)
	}
	// A count its chunks belie would read back as counted (0: zero-token;
	// 1 of 2 chunks: one token).
	for _, n := range []int{0, 1} {
		err := WriteCSV(&b, []Record{{ID: "z", Chunks: durations(100, 150), CompletionTokens: n}})
		assert.ErrorIs(t, err, ErrMissingField)
		assert.ErrorContains(t, err, map[int]string{0: "(zero_usage)", 1: "(below_chunks)"}[n])
	}
	recs[0].Status, recs[0].Message = StatusError, "HTTP 500"
	if err := WriteCSV(&b, recs); err != nil {
		t.Errorf("a failed record without usage is a row: %v", err)
	}
}

// A CSV without the sent_ms column stores no send times: its run says so,
// whether read record by record or into a table (ReadOptions.Summarize),
// and the throughput, the arrivals and the requests in flight are absent,
// not figures of every request sent at 0 (with the column, they are there).
func TestReadCSVNoSendTimes(t *testing.T) {
	const rows = "a,10,3,100,400\nb,10,3,120,380\nc,10,3,90,500\n"
	run, err := ReadCSV(strings.NewReader("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n" + rows))
	require.NoError(t, err)
	assert.True(t, run.NoSendTimes)
	quoted, err := ReadCSV(strings.NewReader("\"request_id\",prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n" + rows))
	require.NoError(t, err)
	assert.True(t, quoted.NoSendTimes, "read one row at a time")
	s, _, err := ReadOptions{}.Summarize(strings.NewReader("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n"+rows), Options{})
	require.NoError(t, err)
	assert.Nil(t, s.Throughput)
	assert.Contains(t, s.Absent["throughput"], "no send times")
	require.NotNil(t, s.Workload)
	assert.Nil(t, s.Workload.Arrivals)
	assert.Nil(t, s.Workload.Concurrency)
	assert.Equal(t, "the records carry no send times", s.Absent["workload.concurrency"])

	sent, _, err := ReadOptions{}.Summarize(strings.NewReader("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms\n"+
		"a,10,3,100,400,0\nb,10,3,120,380,50\nc,10,3,90,500,100\n"), Options{})
	require.NoError(t, err)
	assert.NotNil(t, sent.Throughput)
	assert.NotNil(t, sent.Workload.Concurrency)
}

// A JSONL file whose records carry no sent_ns has no send times, as a CSV
// without sent_ms: the figures built on sends are absent with the reason.
// In a file where some records give it, the fewer side is the error
// ErrMixedSends, set aside in lenient mode; whole files and batches
// within a memory bound say the same.
// A run without send times written by its own methods reads back without
// them, in JSONL (no sent_ns) and in CSV (no sent_ms column), equal; one
// with send times keeps them, sent at 0 included.
func TestRunWriteNoSendTimes(t *testing.T) {
	const none = `{"id":"a","status":"ok","first_text_ns":100000000,"last_text_ns":400000000,"completion_tokens":3}
{"id":"b","status":"ok","first_text_ns":120000000,"last_text_ns":380000000,"prompt_tokens":7,"completion_tokens":3}
`
	run, err := ReadJSONL(strings.NewReader(none))
	require.NoError(t, err)
	require.True(t, run.NoSendTimes)
	var j, c bytes.Buffer
	require.NoError(t, run.WriteJSONL(&j))
	assert.Equal(t, none, j.String())
	require.NoError(t, run.WriteCSV(&c))
	assert.Equal(t, "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status,message\na,0,3,100,400,ok,\nb,7,3,120,380,ok,\n", c.String())
	back, err := ReadCSV(&c)
	require.NoError(t, err)
	assert.True(t, back.NoSendTimes)
	assert.Equal(t, run.Records, back.Records)

	sent := &Run{Records: run.Records}
	j.Reset()
	c.Reset()
	require.NoError(t, sent.WriteJSONL(&j))
	assert.Equal(t, 2, strings.Count(j.String(), `"sent_ns":0,`))
	require.NoError(t, sent.WriteCSV(&c))
	assert.Contains(t, c.String(), ",sent_ms,")
	back, err = ReadCSV(&c)
	require.NoError(t, err)
	assert.False(t, back.NoSendTimes)
}

// A run header is the file's first line only: one after records (two
// files joined, say) is an error, not a header for records it never
// described; so is one after a blank first line.
func TestHeaderNotFirst(t *testing.T) {
	const rec = `{"id":"a","sent_ns":0,"first_text_ns":100,"last_text_ns":400,"completion_tokens":3}` + "\n"
	const head = `{"llmmetrics_run":{"tool":"t"}}` + "\n"
	rec2 := strings.Replace(rec, `"a"`, `"b"`, 1)
	for _, in := range []string{rec + head, rec + rec2 + head, "\n" + head + rec} {
		_, err := ReadJSONL(strings.NewReader(in))
		assert.ErrorIs(t, err, ErrSyntax, in)
		assert.ErrorContains(t, err, "a run header must be the file's first line", in)
	}
	run, err := ReadJSONL(strings.NewReader(head + rec))
	require.NoError(t, err)
	assert.Equal(t, "t", run.Header.Tool)
}

func TestReadJSONLNoSendTimes(t *testing.T) {
	const none = `{"id":"a","first_text_ns":100,"last_text_ns":400,"completion_tokens":3}
{"id":"b","first_text_ns":120,"last_text_ns":380,"completion_tokens":3}
`
	run, err := ReadJSONL(strings.NewReader(none))
	require.NoError(t, err)
	assert.True(t, run.NoSendTimes)
	s, _, err := ReadOptions{}.Summarize(strings.NewReader(none), Options{})
	require.NoError(t, err)
	assert.Nil(t, s.Throughput)
	assert.Contains(t, s.Absent["throughput"], "no send times")
	assert.Nil(t, s.Workload.Arrivals)

	// sent_ns 0 is a send time: it is written, and read as one.
	run, err = ReadJSONL(strings.NewReader(`{"id":"a","sent_ns":0,"first_text_ns":100,"last_text_ns":400,"completion_tokens":3}` + "\n"))
	require.NoError(t, err)
	assert.False(t, run.NoSendTimes)

	const mixed = `{"id":"a","sent_ns":5,"first_text_ns":100,"last_text_ns":400,"completion_tokens":3}
{"id":"b","first_text_ns":120,"last_text_ns":380,"completion_tokens":3}
{"id":"c","sent_ns":9,"status":"error"}
{"id":"d","status":"error"}
`
	_, err = ReadJSONL(strings.NewReader(mixed))
	var re *RecordError
	require.ErrorAs(t, err, &re)
	assert.ErrorIs(t, err, ErrMixedSends)
	assert.Equal(t, 2, re.Line)
	assert.Equal(t, "sent_ns", re.Field)
	assert.Contains(t, err.Error(), `line 2 (id "b"): field sent_ns: send times on some records only (a file gives every one or none): 2 records with sent_ns, 2 without; the fewer side (on a tie, those without) is the one in error`)
	run, err = ReadOptions{Lenient: true}.ReadJSONL(strings.NewReader(mixed))
	require.ErrorIs(t, err, ErrRejected)
	assert.False(t, run.NoSendTimes)
	assert.Equal(t, []int{1, 3}, run.Lines, "a tie: those without are set aside")
	require.Len(t, run.Rejected, 2)
	assert.Equal(t, 2, run.Rejected[0].Line)
	assert.Equal(t, 4, run.Rejected[1].Line)
	assert.Equal(t, "d", run.Rejected[1].ID)

	// One record of four gives a send time: it is the odd one, set
	// aside, and the run has no send times (not a rate from one record).
	const odd = `{"id":"a","sent_ns":5,"first_text_ns":100,"last_text_ns":400,"completion_tokens":3}
{"id":"b","first_text_ns":120,"last_text_ns":380,"completion_tokens":3}
{"id":"c","first_text_ns":90,"last_text_ns":300,"completion_tokens":3}
{"id":"d","status":"error"}
`
	_, err = ReadJSONL(strings.NewReader(odd))
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 1, re.Line)
	assert.Contains(t, err.Error(), "1 record with sent_ns, 3 without")
	run, err = ReadOptions{Lenient: true}.ReadJSONL(strings.NewReader(odd))
	require.ErrorIs(t, err, ErrRejected)
	assert.True(t, run.NoSendTimes)
	assert.Equal(t, []int{2, 3, 4}, run.Lines)
	require.Len(t, run.Rejected, 1)
	assert.Equal(t, "a", run.Rejected[0].ID)
}

// In a CSV whose header has sent_ms, a blank cell is a missing send, an
// error naming the row, not a send at 0 that would invent a throughput
// window and arrivals; a failed row's send counts too (it opens the
// window). Both readers say so.
func TestReadCSVBlankSent(t *testing.T) {
	for _, in := range []string{
		"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status\na,10,3,100,400,,ok\n",
		"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status\na,10,3,100,400,1,ok\nb,,,,,,error\n",
		"\"request_id\",prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status\na,10,3,100,400,,ok\n",
	} {
		_, err := ReadCSV(strings.NewReader(in))
		var re *RecordError
		require.ErrorAs(t, err, &re, in)
		assert.Equal(t, "sent_ms", re.Field, in)
		assert.ErrorIs(t, err, ErrMissingField, in)
		_, _, err = ReadOptions{}.Summarize(strings.NewReader(in), Options{})
		assert.ErrorIs(t, err, ErrMissingField, "through a table: %s", in)
	}
}

// A CSV whose last row has no newline and fewer fields than its header
// was cut by its writer: the run is TRUNCATED, the row neither a record
// nor an error, read whole or through a table (issue #30: it was a syntax
// error). A whole last row without a newline is a record; a malformed one
// stays an error.
func TestReadCSVCut(t *testing.T) {
	const head = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms\na,10,3,100,400,0\nb,10,3,120,380,50\nc,10,3,90,500,100\n"
	run, err := ReadCSV(strings.NewReader(head + "d,10,3"))
	require.NoError(t, err)
	require.Len(t, run.Records, 3)
	assert.Equal(t, &Cut{Line: 5, Bytes: 6, Of: "row", After: 3}, run.Cut)
	assert.Equal(t, "truncated", run.Completeness().State)
	s, _, err := ReadOptions{}.Summarize(strings.NewReader(head+"d,10,3"), Options{})
	require.NoError(t, err)
	assert.Equal(t, 3, s.Requests.Offered)
	assert.Contains(t, s.Completeness.Reason, "TRUNCATED: the file ends inside line 5 (6 bytes of an unfinished row after record 3)")

	run, err = ReadCSV(strings.NewReader(head + "d,10,3,95,450,150"))
	require.NoError(t, err)
	assert.Len(t, run.Records, 4)
	assert.Nil(t, run.Cut)
	_, err = ReadCSV(strings.NewReader(head + "d,10,3,95,x,150"))
	assert.ErrorIs(t, err, ErrSyntax)
	_, err = ReadCSV(strings.NewReader(head + "d,10,3\n"))
	assert.ErrorIs(t, err, ErrSyntax, "a short row that ends its line was not cut")
}

// Without a window the goodput line says why in the summary's words,
// without the package's prefix.
func TestGoodputAbsentText(t *testing.T) {
	s, _, err := ReadOptions{}.Summarize(strings.NewReader("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,10,3,100,400\n"), Options{SLO: &SLO{TTFT: time.Second}})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, s.WriteTable(&b))
	assert.Contains(t, b.String(), "  goodput     absent: the records carry no send times")
	assert.Contains(t, s.Absent["goodput.requests_per_s"], "the records carry no send times", "and in JSON")
}

// A record whose client facts give no wait_ns has an unknown wait, not a
// wait of 0: the client-wait distribution and the lateness leave it out,
// and it is written back without one.
func TestReadJSONLNoWait(t *testing.T) {
	const in = `{"id":"a","sent_ns":0,"chunk_arrivals_ns":[100,200],"completion_tokens":2,"first_answer_ns":100,"scheduled_ns":0}
{"id":"b","sent_ns":50,"chunk_arrivals_ns":[100,200],"completion_tokens":2,"wait_ns":7,"scheduled_ns":40}
`
	run, err := ReadJSONL(strings.NewReader(in))
	require.NoError(t, err)
	assert.True(t, run.Records[0].Client.NoWait)
	assert.False(t, run.Records[1].Client.NoWait)
	_, ok := run.Records[0].Client.Lateness(run.Records[0].Sent)
	assert.False(t, ok, "no lateness without the wait")
	s, err := run.Summarize(Options{})
	require.NoError(t, err)
	require.NotNil(t, s.Client.Wait)
	assert.Equal(t, 1, s.Client.Wait.N, "b's wait only")
	assert.Equal(t, time.Duration(7), s.Client.Wait.Max)
	require.NotNil(t, s.Client.Lateness)
	assert.Equal(t, 1, s.Client.Lateness.N)
	assert.Equal(t, time.Duration(50-7-40), s.Client.Lateness.Max) // sent − wait − scheduled
	var b bytes.Buffer
	require.NoError(t, WriteJSONL(&b, run.Records))
	assert.NotContains(t, strings.Split(b.String(), "\n")[0], "wait_ns")
	back, err := ReadJSONL(&b)
	require.NoError(t, err)
	assert.Equal(t, run.Records, back.Records)

	// No record gives its wait: the figures are absent, with the reason.
	s, err = Summarize(run.Records[:1], Options{})
	require.NoError(t, err)
	assert.Nil(t, s.Client.Wait)
	assert.Nil(t, s.Client.Lateness)
	assert.Equal(t, "no measured record gives its wait (wait_ns): the wait and the lateness are unknown", s.Absent["client.wait"], "a scheduled record: an open loop")
	// A closed loop (no schedule) has no lateness to be unknown.
	closed := run.Records[0]
	closed.Client = &ClientSide{NoWait: true, FirstAnswer: 100, HasAnswer: true}
	s, err = Summarize([]Record{closed}, Options{})
	require.NoError(t, err)
	assert.Equal(t, "no measured record gives its wait (wait_ns): the wait is unknown", s.Absent["client.wait"])
}

// The edges of a cut CSV row: a row cut inside a quoted field, or just
// after its last comma, is a cut; a short last row whose whole fields
// include a malformed one is that row's error. The last field present,
// which may be cut, is not judged. Each input is read in memory, through
// a table, by encoding/csv alone (readQuotedCSV), and past a quoted field
// holding a newline (the first row's id), from which ReadCSV reads the
// rest with encoding/csv: that input has one line more.
func TestReadCSVCutEdges(t *testing.T) {
	const (
		h8 = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status,message\na,10,3,100,400,0,ok,\nb,10,3,120,380,50,ok,\nc,10,3,90,500,100,ok,\n"
		h6 = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms\na,10,3,100,400,0\nb,10,3,120,380,50\nc,10,3,90,500,100\n"
		h5 = csvHeader + "a,10,3,100,400\nb,10,3,120,380\nc,10,3,90,500\n"
	)
	for _, c := range []struct {
		in          string
		line, bytes int   // the cut's line and bytes, 0 for none
		err         error // the error, when it is not a cut
	}{
		// (a) Inside a quoted field: 23 bytes up to the quote, then
		// `connection re` (13): 37.
		{h8 + `d,10,5,100,200,0,error,"connection re`, 5, 37, nil},
		// A quoted field holding a newline, cut on its second line,
		// `line tw` (7 bytes), line 6.
		{h8 + "d,10,0,,,150,error,\"line one\nline tw", 6, 7, nil},
		// A quoted field whose quote is escaped: `"he said ""hi` has an
		// odd number of quotes and is open; 21+13 = 34 bytes.
		{h8 + `d,10,3,95,450,150,ok,"he said ""hi`, 5, 34, nil},
		// (b) Just after the last comma, the last column (sent_ms,
		// E2E_ms) required: 14 and 10 bytes.
		{h6 + "d,10,3,95,450,", 5, 14, nil},
		{h5 + "d,10,3,95,", 5, 10, nil},
		{h6 + `"d",10,3,95,450,`, 5, 16, nil}, // a row with quotes: 14+2
		// A status cut to "o" (19 bytes), and a row cut where its status
		// could still be a failure, with empty times (9 bytes).
		{h8 + "d,10,3,95,450,150,o", 5, 19, nil},
		{h8 + "d,10,3,,,", 5, 9, nil},
		// (c) A whole field that is malformed, before the cut one.
		{h6 + "d,abc,3", 0, 0, ErrSyntax},
		{h6 + `"d",abc,3`, 0, 0, ErrSyntax},
		{h8 + `d,x,5,100,200,0,error,"connection re`, 0, 0, ErrSyntax},
		// No status column: the row is ok, and 3 tokens need a TTFT.
		{h5 + "d,10,3,,", 0, 0, ErrMissingField},
		// A closed quote followed by a character is no cut, nor is a
		// field too many, nor a short row that ends its line.
		{h8 + `d,10,5,100,200,0,error,"boom"x`, 0, 0, ErrSyntax},
		{h6 + "d,10,3,95,450,150,7", 0, 0, ErrSyntax},
		{h6 + "d,10,3,95,450,\n", 0, 0, ErrMissingField},
		// A whole last row without a newline is a record.
		{h6 + "d,10,3,95,450,150", 0, 0, nil},
	} {
		quoted := strings.Replace(c.in, "\na,", "\n\"a\n\",", 1)
		for _, r := range []struct {
			how, in string
			read    func(io.Reader) (*Run, error)
		}{
			{"in memory", c.in, ReadCSV},
			{"through a table", c.in, ReadOptions{table: true}.ReadCSV},
			{"by encoding/csv", c.in, ReadOptions{}.readQuotedCSV},
			{"past a quoted newline", quoted, ReadCSV},
			{"past a quoted newline, through a table", quoted, ReadOptions{table: true}.ReadCSV},
		} {
			run, err := r.read(strings.NewReader(r.in))
			if c.err != nil {
				var re *RecordError
				if assert.ErrorIs(t, err, c.err, "%s: %q", r.how, r.in) && assert.ErrorAs(t, err, &re) {
					assert.Equal(t, 5+strings.Count(r.in, "\n")-strings.Count(c.in, "\n"), re.Line, "%s: %q", r.how, r.in)
				}
				continue
			}
			if !assert.NoError(t, err, "%s: %q", r.how, r.in) {
				continue
			}
			var want *Cut
			if c.line > 0 {
				want = &Cut{Line: c.line + strings.Count(r.in, "\n") - strings.Count(c.in, "\n"), Bytes: c.bytes, Of: "row", After: 3}
			}
			assert.Equal(t, want, run.Cut, "%s: %q", r.how, r.in)
		}
		s, _, err := ReadOptions{}.Summarize(strings.NewReader(c.in), Options{})
		switch {
		case c.err != nil:
			assert.ErrorIs(t, err, c.err, "summarized: %q", c.in)
		case assert.NoError(t, err, "summarized: %q", c.in) && c.line > 0:
			assert.Equal(t, "truncated", s.Completeness.State, "summarized: %q", c.in)
		}
	}
}
