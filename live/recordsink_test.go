package live

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// readRun reads a run file back with llmmetrics' own reader.
func readRun(t *testing.T, b []byte) *llmmetrics.Run {
	t.Helper()
	run, err := llmmetrics.ReadJSONL(bytes.NewReader(b))
	require.NoError(t, err, "%s", b)
	return run
}

// Every record the recorder takes is written as it was, with the sink's
// id and, for a failure, its error.type for a message; an invalid one is
// counted, not written; the header and end line say what the sink knows.
func TestRecordSinkRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	load := map[string]string{"gateway": "127.0.0.1:9090"}
	sink, err := NewRecordSink(&buf, llmmetrics.RunHeader{Target: "http://up:8080", Start: epoch, Load: load}, RecordOptions{})
	require.NoError(t, err)
	rec, err := NewRecorder(Options{Sinks: []Sink{sink}})
	require.NoError(t, err)
	in := []llmmetrics.Record{
		{ID: "x", Sent: 5 * ms, Chunks: []time.Duration{100 * ms, 130 * ms}, ChunkTokens: []int32{1, 2}, CompletionTokens: 3, PromptTokens: 40, MaxTokens: 8,
			Client: &llmmetrics.ClientSide{Wait: 2 * ms}},
		{ID: "x", Sent: 7 * ms, Chunks: []time.Duration{90 * ms}, NoUsage: true, PromptTokens: 12},
		{ID: "y", Sent: 9 * ms, Status: llmmetrics.StatusError, Message: `HTTP 400: {"input":"my secret prompt"}`},
		{ID: "z", Sent: 11 * ms, Status: llmmetrics.StatusTimeout, Message: "timed out"},
		{ID: "w", Sent: 1 * ms, Warmup: true, FirstText: 50 * ms, LastText: 60 * ms, CompletionTokens: 2, PromptTokens: 3},
	}
	for i := range in {
		rec.Record(chat, &in[i])
	}
	rec.Record(chat, &llmmetrics.Record{ID: "bad", Chunks: []time.Duration{20 * ms, 10 * ms}, CompletionTokens: 2}) // arrivals go back
	require.NoError(t, sink.Close())
	require.NoError(t, sink.Close(), "Close twice")
	rec.Record(chat, &in[0])
	assert.Equal(t, int64(1), sink.NotWritten().Late)
	assert.Equal(t, int64(1), sink.NotWritten().Rejected)
	assert.Equal(t, map[string]string{"gateway": "127.0.0.1:9090"}, load, "the caller's map is not modified")

	assert.NotContains(t, buf.String(), "secret")
	run := readRun(t, buf.Bytes())
	require.NotNil(t, run.Header)
	assert.True(t, run.Header.Ends)
	assert.True(t, run.Header.Start.Equal(epoch))
	assert.Equal(t, "http://up:8080", run.Header.Target)
	assert.Equal(t, "127.0.0.1:9090", run.Header.Load["gateway"])
	assert.Contains(t, run.Header.Load["recorded"], "live traffic")
	assert.Equal(t, "m", run.Header.Load["models"], "the end line's load, added to the header's")
	assert.Equal(t, "chat", run.Header.Load["operations"])
	require.NotNil(t, run.End)
	assert.Equal(t, "completed", run.End.State)
	assert.Equal(t, 5, run.End.Written)
	assert.Equal(t, []string{"1 record not written: invalid, by the recorder's validation."}, run.End.Notes)

	want := make([]llmmetrics.Record, len(in))
	copy(want, in)
	for i := range want {
		want[i].ID = strconv.Itoa(i + 1)
	}
	want[2].Message = "HTTP 400: error.type _OTHER" // a Record without a Transport's result knows only its status
	want[3].Message = "error.type timeout"
	want[4].Warmup = true
	assert.Equal(t, want, run.Records)
}

// Without Messages, a failure's message keeps the HTTP status it began
// with, as observe writes it, and says its error.type.
func TestWithoutWords(t *testing.T) {
	for _, c := range []struct{ msg, errorType, want string }{
		{`HTTP 400: {"input":"my prompt"}`, "400", "HTTP 400: error.type 400"},
		{"HTTP 200, error in stream: server_error: the context is full", "server_error", "HTTP 200, error in stream: error.type server_error"},
		{"error in stream: boom", "", "error.type _OTHER"},
		{"HTTP x", "connection_reset", "error.type connection_reset"},
		{"HTTP", "", "error.type _OTHER"},
		{"", "timeout", "error.type timeout"},
	} {
		assert.Equal(t, c.want, withoutWords(c.msg, c.errorType), c.msg)
	}
}

// With Messages, a failure keeps the server's words.
func TestRecordSinkMessages(t *testing.T) {
	var buf bytes.Buffer
	sink, err := NewRecordSink(&buf, llmmetrics.RunHeader{Start: epoch}, RecordOptions{Messages: true})
	require.NoError(t, err)
	rec, err := NewRecorder(Options{Sinks: []Sink{sink}})
	require.NoError(t, err)
	rec.Record(chat, &llmmetrics.Record{Status: llmmetrics.StatusError, Message: "HTTP 503: overloaded"})
	require.NoError(t, sink.Close())
	run := readRun(t, buf.Bytes())
	require.Len(t, run.Records, 1)
	assert.Equal(t, "HTTP 503: overloaded", run.Records[0].Message)
}

// gate is a writer whose writes after the first (the header) wait for
// release, saying first that one has begun.
type gate struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	n       int
	entered chan struct{}
	release chan struct{}
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	g.n++
	n := g.n
	g.mu.Unlock()
	if n == 2 {
		close(g.entered)
		<-g.release
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

// A record that finds the queue full is dropped and counted, never
// waited for; the end line says how many.
func TestRecordSinkDrops(t *testing.T) {
	g := &gate{entered: make(chan struct{}), release: make(chan struct{})}
	sink, err := NewRecordSink(g, llmmetrics.RunHeader{Start: epoch}, RecordOptions{Queue: 2, FlushEvery: time.Hour})
	require.NoError(t, err)
	rec, err := NewRecorder(Options{Sinks: []Sink{sink}})
	require.NoError(t, err)
	// A line longer than the buffers (1,000 arrivals of 10 bytes) is
	// written through at once: the writer waits in it with an empty queue.
	big := &llmmetrics.Record{CompletionTokens: 1000, PromptTokens: 1}
	for k := range 1000 {
		big.Chunks = append(big.Chunks, time.Duration(100_000_000+k))
	}
	rec.Record(chat, big)
	<-g.entered
	for range 4 {
		rec.Record(chat, okRecord()) // 2 queued, 2 dropped
	}
	assert.Equal(t, int64(2), sink.NotWritten().Dropped)
	close(g.release)
	require.NoError(t, sink.Close())
	run := readRun(t, g.buf.Bytes())
	assert.Len(t, run.Records, 3)
	assert.Equal(t, 3, run.End.Written)
	assert.Equal(t, []string{"2 records not written: the sink's queue of 2 was full (the writing fell behind the traffic); the file misses their requests."}, run.End.Notes)
}

// Goroutines recording at once: every record is written once or counted
// as dropped, each with its own id.
func TestRecordSinkConcurrent(t *testing.T) {
	var buf bytes.Buffer
	sink, err := NewRecordSink(&buf, llmmetrics.RunHeader{Start: epoch}, RecordOptions{Queue: 64})
	require.NoError(t, err)
	rec, err := NewRecorder(Options{Sinks: []Sink{sink}})
	require.NoError(t, err)
	const workers, each = 8, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				r := okRecord()
				r.Sent = time.Duration(w*each + i) // one send time a record
				rec.Record(chat, r)
			}
		})
	}
	wg.Wait()
	require.NoError(t, sink.Close())
	run := readRun(t, buf.Bytes())
	assert.Equal(t, workers*each, len(run.Records)+int(sink.NotWritten().Dropped), "written or dropped")
	assert.Equal(t, len(run.Records), run.End.Written)
	ids, sent := map[string]bool{}, map[time.Duration]bool{}
	for _, r := range run.Records {
		assert.False(t, ids[r.ID], "id %s twice", r.ID)
		assert.False(t, sent[r.Sent], "record sent at %d twice", r.Sent)
		ids[r.ID], sent[r.Sent] = true, true
	}
}

type failing struct{ n int }

func (f *failing) Write(p []byte) (int, error) {
	if f.n++; f.n > 1 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// A failed write is Close's error, with the records written before it.
func TestRecordSinkWriteError(t *testing.T) {
	sink, err := NewRecordSink(&failing{}, llmmetrics.RunHeader{Start: epoch}, RecordOptions{})
	require.NoError(t, err)
	rec, err := NewRecorder(Options{Sinks: []Sink{sink}})
	require.NoError(t, err)
	rec.Record(chat, okRecord())
	err = sink.Close()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "disk full")
	_, err = NewRecordSink(&failing{n: 1}, llmmetrics.RunHeader{}, RecordOptions{})
	assert.ErrorContains(t, err, "live: writing the run header: disk full")
	_, err = NewRecordSink(io.Discard, llmmetrics.RunHeader{}, RecordOptions{Queue: -1})
	assert.Error(t, err)
}

// Observing allocates nothing, whether the record is queued or dropped,
// and the caller's record stays where it is (a literal on its stack).
func TestRecordSinkObserveAllocs(t *testing.T) {
	for _, queue := range []int{4096, 1} {
		sink, err := newRecordSink(io.Discard, llmmetrics.RunHeader{Start: epoch}, RecordOptions{Queue: queue}) // nothing writes the queue
		require.NoError(t, err)
		rec, err := NewRecorder(Options{Sinks: []Sink{sink}})
		require.NoError(t, err)
		r := okRecord()
		rec.Record(chat, r)
		assert.Zero(t, testing.AllocsPerRun(200, func() { rec.Record(chat, r) }), "queue %d", queue)
		chunks := r.Chunks
		assert.Zero(t, testing.AllocsPerRun(200, func() {
			rec.Record(chat, &llmmetrics.Record{Chunks: chunks, CompletionTokens: 3, PromptTokens: 20})
		}), "queue %d, a record on the caller's stack", queue)
	}
}

// recordAllocBudget bounds the allocations of writing one record (3
// chunks, usage), recorder and writer together: 6.1 were measured (the
// root's WriteJSONL through encoding/json, the id).
const recordAllocBudget = 8

// The whole cost of a record, its writing included, stays within its
// budget (allocations are deterministic; the writer's goroutine is the
// only other one allocating).
func TestRecordSinkAllocBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	const n = 2000
	sink, err := NewRecordSink(io.Discard, llmmetrics.RunHeader{Start: epoch}, RecordOptions{Queue: n})
	require.NoError(t, err)
	rec, err := NewRecorder(Options{Sinks: []Sink{sink}})
	require.NoError(t, err)
	r := okRecord()
	rec.Record(chat, r)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		rec.Record(chat, r)
	}
	require.NoError(t, sink.Close())
	runtime.ReadMemStats(&after)
	per := float64(after.Mallocs-before.Mallocs) / n
	t.Logf("%.2f allocations a record", per)
	assert.LessOrEqual(t, per, float64(recordAllocBudget), fmt.Sprintf("%.2f allocations a record", per))
}

func BenchmarkRecordSink(b *testing.B) {
	sink, err := NewRecordSink(io.Discard, llmmetrics.RunHeader{Start: epoch}, RecordOptions{Queue: 1 << 16})
	require.NoError(b, err)
	rec, err := NewRecorder(Options{Sinks: []Sink{sink}})
	require.NoError(b, err)
	r := okRecord()
	b.ReportAllocs()
	for b.Loop() {
		rec.Record(chat, r)
	}
	require.NoError(b, sink.Close())
	b.ReportMetric(float64(sink.NotWritten().Dropped)/float64(b.N), "dropped/op")
}
