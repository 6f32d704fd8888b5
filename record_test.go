package llmmetrics

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func okRecord(id string) Record {
	return Record{ID: id, Chunks: durations(100, 120, 140), CompletionTokens: 3, PromptTokens: 10}
}

// The bad-input catalogue of reliability.md §B8, as it applies to records:
// each case is refused with a sentinel, naming the record and the field.
func TestValidateCatalogue(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(r *Record)
		err   error
		field string
	}{
		{"#3 first text before send", func(r *Record) { r.Chunks = durations(-1, 5) }, ErrNegativeDuration, "chunks[0]"},
		{"#3 minimal: first text before send", func(r *Record) { r.Chunks = nil; r.FirstText = -ms(1); r.LastText = ms(5) }, ErrNegativeDuration, "first_text"},
		{"#4 chunks go backwards", func(r *Record) { r.Chunks = durations(100, 120, 119) }, ErrNonMonotonic, "chunks[2]"},
		{"#5 last before first", func(r *Record) { r.Chunks = nil; r.FirstText = ms(100); r.LastText = ms(99) }, ErrTimeOrder, "last_text"},
		{"#5 first text disagrees with chunks", func(r *Record) { r.FirstText = ms(90) }, ErrChunkMismatch, "first_text"},
		{"#5 last text disagrees with chunks", func(r *Record) { r.LastText = ms(150) }, ErrChunkMismatch, "last_text"},
		{"no usage, yet a count", func(r *Record) { r.NoUsage = true }, ErrNoCount, "completion_tokens"},
		{"#14 negative completion tokens", func(r *Record) { r.CompletionTokens = -1 }, ErrNegativeCount, "completion_tokens"},
		{"#14 negative prompt tokens", func(r *Record) { r.PromptTokens = -5 }, ErrNegativeCount, "prompt_tokens"},
		{"#14 negative max tokens", func(r *Record) { r.MaxTokens = -5 }, ErrNegativeCount, "max_tokens"},
		{"#14 negative chunk tokens", func(r *Record) { r.ChunkTokens = []int32{2, -1, 2} }, ErrNegativeCount, "chunk_tokens[1]"},
		{"chunk tokens do not sum to n", func(r *Record) { r.ChunkTokens = []int32{1, 1, 2} }, ErrChunkMismatch, "chunk_tokens"},
		{"chunk tokens of another length", func(r *Record) { r.ChunkTokens = []int32{3} }, ErrChunkMismatch, "chunk_tokens"},
		{"chunk tokens without chunks", func(r *Record) { r.Chunks = nil; r.LastText = ms(5); r.ChunkTokens = []int32{3} }, ErrChunkMismatch, "chunk_tokens"},
		{"unknown status", func(r *Record) { r.Status = 7 }, ErrBadStatus, "status"},
		{"negative cached prompt tokens", func(r *Record) { r.Client = &ClientSide{CachedPromptTokens: -1, HasCached: true} }, ErrNegativeCount, "cached_prompt_tokens"},
		{"negative turn", func(r *Record) { r.Client = &ClientSide{Session: "s", Turn: -2} }, ErrNegativeCount, "turn"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := okRecord("r9")
			c.edit(&r)
			err := r.Validate()
			require.ErrorIs(t, err, c.err)
			var re *RecordError
			require.True(t, errors.As(err, &re))
			assert.Equal(t, c.field, re.Field)
			assert.Equal(t, "r9", re.ID)

			// Summarize names the record by index and id, and fails in
			// strict mode.
			recs := []Record{okRecord("r0"), r}
			_, err = Summarize(recs, Options{})
			require.ErrorIs(t, err, c.err)
			require.True(t, errors.As(err, &re))
			assert.Equal(t, 1, re.Index)
			assert.Contains(t, err.Error(), `record 1 (id "r9")`)
			assert.Contains(t, err.Error(), c.field)

			// Lenient mode counts it as rejected and keeps the rest.
			s, err := Summarize(recs, Options{Lenient: true})
			require.NoError(t, err)
			assert.Equal(t, Accounting{Offered: 2, OK: 1, Rejected: 1}, s.Requests)
			require.Len(t, s.Rejected, 1)
			assert.ErrorIs(t, s.Rejected[0], c.err)
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	for name, r := range map[string]Record{
		"equal chunk arrivals":             {Chunks: durations(100, 100, 100), CompletionTokens: 3},
		"first text at the send time":      {Chunks: durations(0, 10), CompletionTokens: 2},
		"more tokens than chunks":          {Chunks: durations(10, 20), ChunkTokens: []int32{3, 4}, CompletionTokens: 7},
		"ends set and equal to chunks":     {FirstText: ms(10), LastText: ms(20), Chunks: durations(10, 20), CompletionTokens: 2},
		"minimal record":                   {FirstText: ms(10), LastText: ms(10), CompletionTokens: 1},
		"negative send time (epoch later)": {Sent: -time.Hour, FirstText: ms(10), LastText: ms(10), CompletionTokens: 1},
		"failed with junk times":           {Status: StatusError, FirstText: -ms(10), LastText: -ms(20)},
		"zero-token":                       {FirstText: -ms(10)},
	} {
		assert.NoError(t, r.Validate(), name)
	}
}

func TestPerRecordMetricErrors(t *testing.T) {
	failed := Record{ID: "f", Status: StatusTimeout}
	_, err := failed.TTFT()
	assert.ErrorIs(t, err, ErrNoText)
	_, err = failed.E2E()
	assert.ErrorIs(t, err, ErrNoText)
	zero := Record{ID: "z"}
	_, err = zero.TTFT()
	assert.ErrorIs(t, err, ErrNoText)

	one := Record{ID: "o", FirstText: ms(50), LastText: ms(50), CompletionTokens: 1}
	_, err = one.TPOT()
	assert.ErrorIs(t, err, ErrTooFewTokens)
	_, err = one.UserTPS()
	assert.ErrorIs(t, err, ErrTooFewTokens)
	_, err = one.DatabricksE2E()
	assert.ErrorIs(t, err, ErrTooFewTokens)
	_, err = one.AppendGaps(nil)
	assert.ErrorIs(t, err, ErrNoChunks)
	v, err := one.TTFT()
	require.NoError(t, err)
	assert.Equal(t, ms(50), v)

	same := Record{Chunks: durations(50, 50), CompletionTokens: 2}
	_, err = same.UserTPS()
	assert.ErrorIs(t, err, ErrZeroInterval)
	tp, err := same.TPOT()
	require.NoError(t, err)
	assert.Equal(t, time.Duration(0), tp)

	single := Record{Chunks: durations(50), CompletionTokens: 3}
	_, err = single.MaxGap()
	assert.ErrorIs(t, err, ErrNoSamples)
	b, err := single.GapBasis()
	require.NoError(t, err)
	assert.Equal(t, BasisChunk, b)

	bad := Record{Chunks: durations(5, 1), CompletionTokens: 2}
	_, err = bad.TTFT()
	assert.ErrorIs(t, err, ErrNonMonotonic)
}

// #11 duplicate ids: strict mode fails naming both places; lenient keeps the
// first and rejects the rest.
func TestDuplicateIDs(t *testing.T) {
	recs := []Record{okRecord("a"), okRecord("b"), okRecord("a"), okRecord("a")}
	_, err := Summarize(recs, Options{})
	require.ErrorIs(t, err, ErrDuplicateID)
	assert.Contains(t, err.Error(), "2 invalid records")
	assert.Contains(t, err.Error(), `record 2 (id "a")`)
	assert.Contains(t, err.Error(), "also record 0")

	s, err := Summarize(recs, Options{Lenient: true})
	require.NoError(t, err)
	assert.Equal(t, Accounting{Offered: 4, OK: 2, Rejected: 2}, s.Requests)

	// Records without ids are not checked against each other.
	s, err = Summarize([]Record{okRecord(""), okRecord("")}, Options{})
	require.NoError(t, err)
	assert.Equal(t, 2, s.Requests.OK)
}

// #12 empty set; #13 zero window; and a run where nothing succeeded.
func TestEmptyAndWindowEdges(t *testing.T) {
	_, err := Summarize(nil, Options{})
	assert.ErrorIs(t, err, ErrNoRecords)
	_, err = Summarize([]Record{okRecord("a")}, Options{Window: -time.Second})
	assert.ErrorIs(t, err, ErrInvalidWindow)

	// All failed: no latency, no derived window; nothing is reported as 0.
	s, err := Summarize([]Record{{ID: "x", Status: StatusError}, {ID: "y", Status: StatusCancelled}}, Options{SLO: &SLO{}})
	require.NoError(t, err)
	assert.Nil(t, s.TTFT)
	assert.Nil(t, s.TPOT)
	assert.Nil(t, s.Throughput)
	// The reason names the command's flag and the library's field as
	// such: a CLI user is not told to set Options.Window.
	assert.Equal(t, "no ok request received text, so the window has no end; declare one (report --window; Options.Window in Go)", s.Absent["throughput"])
	assert.Equal(t, 0.0, s.Goodput.Attainment) // 0 good of 2 offered: a real figure
	assert.ErrorIs(t, s.Goodput.WindowErr, ErrInvalidWindow)

	// With a declared window the rates are real zeros: nothing completed in it.
	s, err = Summarize([]Record{{ID: "x", Status: StatusError}}, Options{Window: time.Second})
	require.NoError(t, err)
	assert.Equal(t, RequestRate(0), s.Throughput.RequestsPerSecond)

	// One request whose text arrives at its send time: a window of zero.
	s, err = Summarize([]Record{{ID: "z", Chunks: durations(0), CompletionTokens: 1}}, Options{})
	require.NoError(t, err)
	assert.Nil(t, s.Throughput)
	assert.True(t, strings.Contains(s.Absent["throughput"], "declare one"))

	// Only one-token requests: TTFT and E2E exist, TPOT does not.
	s, err = Summarize([]Record{{ID: "o", FirstText: ms(5), LastText: ms(5), CompletionTokens: 1}}, Options{})
	require.NoError(t, err)
	assert.NotNil(t, s.TTFT)
	assert.Nil(t, s.TPOT)
	assert.Contains(t, s.Absent["tpot"], "1 one-token")
}

// Strict mode reports every invalid record, not only the first.
func TestStrictCollectsAll(t *testing.T) {
	recs := make([]Record, 8)
	for i := range recs {
		recs[i] = okRecord(string(rune('a' + i)))
		recs[i].CompletionTokens = -1
	}
	_, err := Summarize(recs, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "8 invalid records")
	assert.Contains(t, err.Error(), "and 3 more")
	var n int
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		if errors.Is(e, ErrNegativeCount) {
			n++
		}
	}
	assert.Equal(t, 8, n)
}

func TestStatusAndCategoryNames(t *testing.T) {
	for _, s := range []Status{StatusOK, StatusError, StatusTimeout, StatusCancelled} {
		var back Status
		require.NoError(t, back.UnmarshalText([]byte(s.String())))
		assert.Equal(t, s, back)
	}
	back := StatusTimeout
	err := back.UnmarshalText([]byte("OK"))
	assert.Equal(t, StatusTimeout, back, "a bad name leaves the status as it was")
	assert.ErrorIs(t, err, ErrBadStatus)
	assert.Equal(t, "zero_token", CategoryZeroToken.String())
	assert.Equal(t, "chunk", BasisChunk.String())
}

// A time before its boundary is said by how far before it (5ms, never
// "-5ms before"), and a count out of range by its bound.
func TestBoundaryMessages(t *testing.T) {
	err := (&Record{ID: "a", FirstText: -5 * time.Millisecond, LastText: time.Millisecond, CompletionTokens: 2}).Validate()
	assert.ErrorIs(t, err, ErrNegativeDuration)
	assert.Contains(t, err.Error(), "first text 5ms before the send time")
	_, err = ReadCSV(strings.NewReader("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,99999999999,3,100,200\n"))
	assert.ErrorIs(t, err, ErrOutOfRange)
	assert.Contains(t, err.Error(), `"99999999999" is not a count of at most 2147483647`)
}

// Chunk tokens without usage have no count to disagree with: the record
// is valid and uncounted, never "completion tokens 0".
func TestChunkTokensNoUsage(t *testing.T) {
	r := Record{ID: "a", Chunks: []time.Duration{100, 200}, ChunkTokens: []int32{1, 2}, NoUsage: true}
	require.NoError(t, r.Validate())
	assert.Equal(t, CountNoUsage, r.CountState())
	r.NoUsage, r.CompletionTokens = false, 4
	assert.ErrorContains(t, r.Validate(), "chunk tokens sum to 3, completion tokens 4")
}
