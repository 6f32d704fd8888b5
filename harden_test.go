package llmmetrics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Inputs that encoding/json accepted and that changed a figure in silence:
// each is now refused with its line, column and key.
func TestJSONLStrictness(t *testing.T) {
	for _, c := range []struct {
		name, in string
		field    string
		column   int
		err      error
		msg      string
	}{
		{"trailing brace", `{"id":"a","chunk_arrivals_ns":[1,2],"completion_tokens":2}}`, "", 59, ErrSyntax, `text after the JSON object: "}"`},
		{"trailing bracket", `{"id":"a","completion_tokens":0}]`, "", 33, ErrSyntax, "text after the JSON object"},
		{"repeated key", `{"id":"a","status":"error","status":"ok"}`, "status", 28, ErrSyntax, `key "status" repeated`},
		{"repeated null key", `{"id":"a","message":null,"message":"x","status":"error"}`, "message", 26, ErrSyntax, "repeated"},
		{"upper-case key", `{"ID":"a","completion_tokens":0}`, "ID", 2, ErrSyntax, `unknown key "ID"`},
		{"mixed-case key", `{"id":"a","Completion_Tokens":0}`, "Completion_Tokens", 11, ErrSyntax, "matched exactly"},
		{"count overflow", `{"id":"a","completion_tokens":9223372036854775807,"first_text_ns":1,"last_text_ns":2}`, "completion_tokens", 31, ErrOutOfRange, "outside [-2147483647, 2147483647]"},
		{"count above int32", `{"id":"a","prompt_tokens":2147483648,"completion_tokens":0}`, "prompt_tokens", 27, ErrOutOfRange, ""},
		{"uint64 overflow", `{"id":"a","max_tokens":99999999999999999999999,"completion_tokens":0}`, "max_tokens", 24, ErrOutOfRange, ""},
		{"sent overflow", `{"id":"a","sent_ns":9223372036854775807,"chunk_arrivals_ns":[5],"completion_tokens":1}`, "sent_ns", 21, ErrOutOfRange, ""},
		{"chunk overflow", `{"id":"a","chunk_arrivals_ns":[5,2305843009213693953],"completion_tokens":2}`, "chunk_arrivals_ns", 34, ErrOutOfRange, ""},
		{"fraction", `{"id":"a","sent_ns":1.5,"completion_tokens":0}`, "sent_ns", 21, ErrSyntax, "whole number"},
		{"leading zero", `{"id":"a","sent_ns":01,"completion_tokens":0}`, "sent_ns", 21, ErrSyntax, "leading zero"},
		{"string for number", `{"id":"a","sent_ns":"1","completion_tokens":0}`, "sent_ns", 21, ErrSyntax, "whole number"},
		{"number for string", `{"id":1,"completion_tokens":0}`, "id", 7, ErrSyntax, `want '"'`},
		{"bad escape", `{"id":"a\q","completion_tokens":0}`, "id", 7, ErrSyntax, "bad string"},
		{"unterminated", `{"id":"a","completion_tokens":0`, "", 32, ErrSyntax, "ends inside the object"},
		{"not an object", `[1,2]`, "", 1, ErrSyntax, `want '{'`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadJSONL(strings.NewReader(c.in + "\n"))
			var re *RecordError
			require.ErrorAs(t, err, &re)
			assert.ErrorIs(t, err, c.err)
			assert.Equal(t, 1, re.Line)
			assert.Equal(t, c.field, re.Field)
			assert.Equal(t, c.column, re.Column, "%v", err)
			assert.Contains(t, err.Error(), c.msg)
		})
	}
	// Escapes and non-ASCII text decode as JSON says; null is absence.
	run, err := ReadJSONL(strings.NewReader(`{"id":"caf\u00e9 ☕","message":null,"status":"error","prompt_tokens":null}`))
	require.NoError(t, err)
	assert.Equal(t, Record{ID: "café ☕", Status: StatusError}, run.Records[0])
	// The column counts from the start of the line, leading blanks and a
	// byte order mark included.
	_, err = ReadJSONL(strings.NewReader("\ufeff  {\"id\":\"a\",\"x\":1}"))
	var re *RecordError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 16, re.Column) // 3 bytes of BOM, 2 blanks, then `{"id":"a",` is 10 bytes: "x" is at 16
}

// The largest accepted values do not overflow any sum a summary takes.
func TestTimeAndCountBounds(t *testing.T) {
	big := time.Duration(maxTime)
	recs := []Record{
		{ID: "a", Sent: -big, Chunks: []time.Duration{big}, CompletionTokens: maxCount},
		{ID: "b", Sent: big, Chunks: []time.Duration{0, big}, CompletionTokens: maxCount, PromptTokens: maxCount},
	}
	s, err := Summarize(recs, Options{})
	require.NoError(t, err)
	// The window runs from −2⁶¹ to 2⁶¹ + 2⁶¹ ns: 3·2⁶¹ ns, below 2⁶³.
	assert.Equal(t, 3*big, s.Throughput.Window.Length)
	assert.Equal(t, int64(2*maxCount), s.Throughput.OutputTokens)
	assert.Positive(t, float64(s.Throughput.OutputTokensPerSecond))
	// In flight: a over [−2⁶¹, 0], b over [2⁶¹, 2⁶²], apart. Over the span
	// of 3·2⁶¹ ns, one request is in flight for 2·2⁶¹ ns and none for 2⁶¹:
	// mean 2/3, and the median count is 1. The last edge, at 2⁶², doubled
	// would overflow an int64; the edges are taken from the earliest.
	c := s.Workload.Concurrency
	require.NotNil(t, c)
	assert.Equal(t, 3*big, c.Span)
	assert.Equal(t, 1, c.Max)
	assert.Equal(t, 1, c.P50)
	assert.InDelta(t, 2.0/3, c.Mean, 1e-15)

	for _, r := range []Record{
		{ID: "sent", Sent: big + 1, Status: StatusError},
		{ID: "chunk", Chunks: []time.Duration{0, big + 1}, CompletionTokens: 2},
		{ID: "last", FirstText: 1, LastText: big + 1, CompletionTokens: 2},
		{ID: "count", CompletionTokens: maxCount + 1, Status: StatusError},
	} {
		assert.ErrorIs(t, r.Validate(), ErrOutOfRange, r.ID)
	}
}

func TestZeroTokenChunk(t *testing.T) {
	// The line parses (mustRun); the record is invalid.
	_, serr := Summarize(mustRun(t, `{"id":"a","chunk_arrivals_ns":[1,2,3],"chunk_tokens":[0,1,2],"completion_tokens":3}`).Records, Options{})
	var re *RecordError
	require.ErrorAs(t, serr, &re)
	assert.Equal(t, "chunk_tokens[0]", re.Field)
	assert.ErrorIs(t, serr, ErrChunkMismatch)
}

func mustRun(t *testing.T, in string) *Run {
	t.Helper()
	run, err := ReadJSONL(strings.NewReader(in))
	require.NoError(t, err)
	return run
}

// infinite is an endless stream of one byte.
type infinite byte

func (b infinite) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// A row without end (like /dev/zero, or a huge file with no newline) is an
// error after maxLine bytes, naming the line, instead of growing without
// bound.
func TestLongRow(t *testing.T) {
	defer func(n int) { maxLine = n }(maxLine)
	maxLine = 1 << 20
	in := io.MultiReader(strings.NewReader(csvHeader+"a,1,2,10,20\n"), infinite('x'))
	_, err := ReadCSV(in)
	require.ErrorIs(t, err, ErrSyntax)
	assert.Contains(t, err.Error(), "CSV row starting at line 3 is longer than 1048576 bytes")

	_, _, err = Read(infinite(0))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "header at line 1 is longer than 1048576 bytes")

	_, err = ReadJSONL(io.MultiReader(strings.NewReader("{\"id\":\"a\",\"completion_tokens\":0}\n"), infinite(' ')))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 2")
}

// counted passes reads through, counting the bytes read.
type counted struct {
	r    io.Reader
	read int
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

// A line without end is refused after at most maxLine bytes of it have
// been read, and in memory near maxLine: the buffer that holds the line
// grows to maxLine+1 bytes and no further, and is not copied when it is
// refused. (Before, a block doubled past the limit and was copied on
// refusal, and a CSV header was read a second time by encoding/csv: a
// 600 MB file of zero bytes took 1.6 GB.) The bounds: the line's
// maxLine+1 bytes, the 64 KiB that Read's bufio.Reader holds, and what
// the readers take before the line; in memory, the last buffer and the
// one before it, a quarter of the limit (lineio.Grow), and the blocks.
func TestLongLineBounded(t *testing.T) {
	defer func(n int) { maxLine = n }(maxLine)
	maxLine = 16 << 20
	for _, c := range []struct {
		name, head string
		want       string
	}{
		{"csv header", "", "CSV header at line 1 is longer than 16777216 bytes"},
		{"csv row", csvHeader + "a,1,2,10,20\n", "CSV row starting at line 3 is longer than 16777216 bytes"},
		{"jsonl first line", `{"id":"a"`, "line 1: line longer than 16777216 bytes"},
		{"jsonl line", "{\"id\":\"a\",\"completion_tokens\":0}\n{", "line 2: line longer than 16777216 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := &counted{r: io.MultiReader(strings.NewReader(c.head), infinite(0))}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, _, err := Read(in)
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.LessOrEqual(t, in.read, maxLine+1+len(c.head)+64<<10, "bytes read")
			alloc := after.TotalAlloc - before.TotalAlloc
			assert.LessOrEqual(t, alloc, uint64(maxLine+maxLine/4+4<<20), "bytes allocated")
		})
	}
}

// failAfter is a reader of good lines followed by bad ones, counting how
// many bytes were asked of it.
type failAfter struct {
	good, bad string
	goodN     int
	read      int
	limit     int
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.read >= f.limit {
		return 0, io.EOF
	}
	var src string
	if f.goodN > 0 {
		f.goodN--
		src = f.good
	} else {
		src = f.bad
	}
	n := copy(p, src)
	f.read += n
	return n, nil
}

// Strict reading stops at the first bad row: it does not read the rest of
// the input. Lenient reading keeps MaxReasons reasons and counts the rest.
func TestStrictStopsLenientBounded(t *testing.T) {
	for _, c := range []struct {
		name      string
		good, bad string
		read      func(ReadOptions, io.Reader) (*Run, error)
	}{
		{"jsonl", "{\"id\":\"a\",\"completion_tokens\":0}\n", "{\"id\":1}\n", ReadOptions.ReadJSONL},
		{"csv", csvHeader, "b,1,x,1,2\n", ReadOptions.ReadCSV},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &failAfter{good: c.good, bad: c.bad, goodN: 1, limit: 10 << 20}
			_, err := c.read(ReadOptions{}, src)
			require.Error(t, err)
			assert.Less(t, src.read, 1<<20, "strict reading went on after the first bad row")

			const bad = 3000
			src = &failAfter{good: c.good, bad: c.bad, goodN: 1, limit: len(c.good) + bad*len(c.bad)}
			run, err := c.read(ReadOptions{Lenient: true}, src)
			require.ErrorIs(t, err, ErrRejected)
			assert.Len(t, run.Rejected, MaxReasons)
			assert.Equal(t, bad-MaxReasons, run.Unlisted)
			assert.Contains(t, err.Error(), fmt.Sprintf("%d rows rejected", bad))
			assert.Contains(t, err.Error(), fmt.Sprintf("and %d more", bad-5))
		})
	}
}

// Lenient Summarize keeps MaxReasons reasons and counts every rejected record.
func TestSummarizeBoundsReasons(t *testing.T) {
	recs := make([]Record, 1500)
	for i := range recs {
		recs[i] = Record{ID: fmt.Sprint(i), CompletionTokens: -1}
	}
	recs[0] = Record{ID: "ok", FirstText: 1, LastText: 2, CompletionTokens: 1}
	s, err := Summarize(recs, Options{Lenient: true})
	require.NoError(t, err)
	assert.Equal(t, 1499, s.Requests.Rejected)
	assert.Len(t, s.Rejected, MaxReasons)
	_, err = Summarize(recs, Options{})
	assert.ErrorContains(t, err, "1499 invalid records")
}

// A run read leniently and summarized counts its rejected rows, listed or
// not; the reader's error said they were there.
func TestRunSummarizeCountsUnlisted(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("{\"id\":\"a\",\"first_text_ns\":1,\"last_text_ns\":2,\"completion_tokens\":1}\n")
	for range MaxReasons + 7 {
		b.WriteString("{\"id\":\n")
	}
	run, err := ReadOptions{Lenient: true}.ReadJSONL(&b)
	require.True(t, errors.Is(err, ErrRejected))
	s, err := run.Summarize(Options{Lenient: true})
	require.NoError(t, err)
	assert.Equal(t, Accounting{Offered: MaxReasons + 8, OK: 1, Rejected: MaxReasons + 7, OneToken: 1}, s.Requests)
	_, err = run.Summarize(Options{})
	assert.ErrorContains(t, err, fmt.Sprintf("%d invalid records", MaxReasons+7))
}

func TestParseMillisRange(t *testing.T) {
	_, err := parseMillis([]byte("1e308"))
	assert.ErrorIs(t, err, ErrOutOfRange)
	_, err = parseMillis([]byte(fmt.Sprint(math.MaxInt64)))
	assert.ErrorIs(t, err, ErrOutOfRange)
	_, err = parseCount([]byte("2147483648"))
	assert.ErrorIs(t, err, ErrOutOfRange)
}
