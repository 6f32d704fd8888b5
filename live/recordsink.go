package live

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// RecordOptions configure a RecordSink. The zero RecordOptions is useful:
// a queue of DefaultRecordQueue records, flushed every second, failures
// written without the server's message.
type RecordOptions struct {
	// Queue is how many records may wait to be written: a record that
	// finds the queue full is dropped, counted, and the end line says how
	// many were. 0 means DefaultRecordQueue.
	Queue int
	// FlushEvery is how often what is written is flushed to the file; 0
	// means a second. A file read before Close may lack the last
	// FlushEvery of records, and end inside a line (its report says
	// TRUNCATED).
	FlushEvery time.Duration
	// Messages keeps a failed record's message: the server's words, which
	// may quote the request it refused (a validation error can echo the
	// whole body). Without it the message is the HTTP status it began
	// with and the failure's error.type ("HTTP 429: error.type 429",
	// "error.type timeout").
	Messages bool
}

// DefaultRecordQueue is the queue of a RecordSink whose RecordOptions.Queue
// is 0: about 1 MB of records.
const DefaultRecordQueue = 4096

// A RecordSink writes every record a Recorder observes to a run file in
// llmmetrics' own JSONL format, as the records end: a header line, a line
// a record, and an end line on Close. A request's send time (from the
// epoch of the Transport that observed it), its chunk arrivals, its
// usage, its max_tokens and its status are written; its prompt and its
// output never are (a Record holds neither). So the traffic a service
// forwards can be read as any run (llmmetrics report, diff) and replayed
// to another server (llmmetrics run --replay FILE sends the same arrivals
// and lengths).
//
// ObserveRecord (the Recorder calls it) only copies the record into a
// bounded queue, without blocking or allocating; a goroutine writes the
// queue. The records' ids are the
// sink's own sequence (1, 2, …, in the order observed), unique in the file
// whatever Transports the records came from. A record the Recorder
// rejected as invalid, one that finds the queue full, and one observed
// after Close are not written, and counted (NotWritten): the end line's
// notes say the first two. It is safe for concurrent use.
type RecordSink struct {
	opt   RecordOptions
	queue chan queuedRecord
	done  chan struct{}

	mu     sync.RWMutex // held shared to queue a record, exclusively to close
	closed bool

	dropped, rejected, late, bare atomic.Int64

	closeOnce sync.Once
	closeErr  error

	// The writer goroutine's own until done is closed.
	bw         *bufio.Writer
	batch      []llmmetrics.Record
	seq        int
	written    int
	err        error
	models     map[string]bool
	operations map[string]bool
}

var (
	_ Sink           = (*RecordSink)(nil)
	_ RecordObserver = (*RecordSink)(nil)
)

// queuedRecord is a record waiting to be written, with what its label set
// says of it.
type queuedRecord struct {
	r         llmmetrics.Record
	errorType string
	model, op string
}

// maxBatch bounds the records written at once.
const maxBatch = 256

// maxRecordedNames bounds the distinct models and operations the end line
// names.
const maxRecordedNames = 16

// NewRecordSink writes h to w as the run's header and returns a sink that
// writes the records after it. h.Start must be the wall clock at the
// epoch the records' send times are measured from: set the
// observe.Transport's Epoch to it (a Transport's zero Epoch is its first
// call's start, which the sink cannot know); the zero Start is now. The
// sink fills a Tool, GoVersion and Host h leaves empty, sets h.Ends, and
// adds to h.Load that the records are recorded traffic; h's maps are not
// modified. Close writes the end line: call it once the service stops
// recording. w is written from the sink's goroutine only.
func NewRecordSink(w io.Writer, h llmmetrics.RunHeader, opt RecordOptions) (*RecordSink, error) {
	s, err := newRecordSink(w, h, opt)
	if err != nil {
		return nil, err
	}
	go s.write()
	return s, nil
}

// newRecordSink is NewRecordSink without its writing goroutine.
func newRecordSink(w io.Writer, h llmmetrics.RunHeader, opt RecordOptions) (*RecordSink, error) {
	switch {
	case opt.Queue < 0:
		return nil, fmt.Errorf("live: record queue %d: want 0 (the default) or more", opt.Queue)
	case opt.FlushEvery < 0:
		return nil, fmt.Errorf("live: flush every %v: want 0 (the default) or more", opt.FlushEvery)
	}
	if opt.Queue == 0 {
		opt.Queue = DefaultRecordQueue
	}
	if opt.FlushEvery == 0 {
		opt.FlushEvery = time.Second
	}
	if h.Tool == "" {
		h.Tool = "llmmetrics/live RecordSink"
	}
	if h.GoVersion == "" {
		h.GoVersion = runtime.Version()
	}
	if h.Start.IsZero() {
		h.Start = time.Now()
	}
	h.Ends = true
	h.Load = maps.Clone(h.Load)
	if h.Load == nil {
		h.Load = map[string]string{}
	}
	h.Load["recorded"] = "live traffic, as a live.Recorder observed it: the clients' own arrivals and lengths"
	s := &RecordSink{
		opt:    opt,
		queue:  make(chan queuedRecord, opt.Queue),
		done:   make(chan struct{}),
		bw:     bufio.NewWriter(w),
		models: map[string]bool{}, operations: map[string]bool{},
	}
	if err := h.WriteLine(s.bw); err != nil {
		return nil, fmt.Errorf("live: writing the run header: %w", err)
	}
	if err := s.bw.Flush(); err != nil {
		return nil, fmt.Errorf("live: writing the run header: %w", err)
	}
	return s, nil
}

// Observe counts an observation made without its record (by hand, not
// by a Recorder, which calls ObserveRecord): it has nothing to write.
func (s *RecordSink) Observe(context.Context, Key, Observation) { s.bare.Add(1) }

// ObserveRecord queues r to be written, with what k and o say of it. It
// never blocks on the writing: a record that finds the queue full is
// dropped and counted. r's chunk arrivals are kept until written.
func (s *RecordSink) ObserveRecord(_ context.Context, k Key, o Observation, r llmmetrics.Record) {
	if o.Outcome == OutcomeRejected {
		s.rejected.Add(1)
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		s.late.Add(1)
		return
	}
	select {
	case s.queue <- queuedRecord{r: r, errorType: o.ErrorType, model: k.Model, op: k.Operation}:
	default:
		s.dropped.Add(1)
	}
}

// NotWritten counts the records a RecordSink did not write, by why.
type NotWritten struct {
	Dropped  int64 // found the queue full
	Rejected int64 // found invalid by the Recorder
	Late     int64 // observed after Close
	Bare     int64 // observations without their record (made by hand, not by a Recorder)
}

// NotWritten returns the counts of the records observed and not written.
func (s *RecordSink) NotWritten() NotWritten {
	return NotWritten{Dropped: s.dropped.Load(), Rejected: s.rejected.Load(), Late: s.late.Load(), Bare: s.bare.Load()}
}

// Close writes the records queued and the end line (completed, the count
// written, and in its notes the records not written and why), and
// flushes. It returns the first error writing met (the records after it
// were not written). Records observed after Close are counted
// (NotWritten.Late), not written. Close does not close the writer.
func (s *RecordSink) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		close(s.queue)
		s.mu.Unlock()
		<-s.done
		if s.err == nil {
			s.err = s.endLine().WriteLine(s.bw)
		}
		if s.err == nil {
			s.err = s.bw.Flush()
		}
		if s.err != nil {
			s.closeErr = fmt.Errorf("live: writing the run file after %d records: %w", s.written, s.err)
		}
	})
	return s.closeErr
}

// write writes the queue until it is closed, in batches of what waits,
// flushing every FlushEvery.
func (s *RecordSink) write() {
	defer close(s.done)
	tick := time.NewTicker(s.opt.FlushEvery)
	defer tick.Stop()
	for {
		select {
		case q, ok := <-s.queue:
			if !ok {
				return
			}
			s.add(q)
		more:
			for len(s.batch) < maxBatch {
				select {
				case q, ok := <-s.queue:
					if !ok {
						s.flushBatch()
						return
					}
					s.add(q)
				default:
					break more
				}
			}
			s.flushBatch()
		case <-tick.C:
			if s.err == nil {
				s.err = s.bw.Flush()
			}
		}
	}
}

// add puts a record in the batch as it is written: the sink's id, and
// without its message unless Messages.
func (s *RecordSink) add(q queuedRecord) {
	s.seq++
	r := q.r
	r.ID = strconv.Itoa(s.seq)
	if r.Status != llmmetrics.StatusOK && !s.opt.Messages {
		r.Message = withoutWords(r.Message, q.errorType)
	}
	s.batch = append(s.batch, r)
	note(s.models, q.model)
	note(s.operations, q.op)
}

// withoutWords is a failure's message without the server's words: the
// HTTP status it begins with, as observe writes it ("HTTP 429: …",
// "HTTP 200, error in stream: …"), and its error.type.
func withoutWords(msg, errorType string) string {
	words := "error.type " + cmp.Or(errorType, Other)
	rest, ok := strings.CutPrefix(msg, "HTTP ")
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if !ok || digits == 0 {
		return words
	}
	kind := msg[:len("HTTP ")+digits]
	if strings.HasPrefix(rest[digits:], ", error in stream") {
		kind += ", error in stream"
	}
	return kind + ": " + words
}

// flushBatch writes the batch; after an error it writes nothing more.
func (s *RecordSink) flushBatch() {
	if s.err == nil {
		if s.err = llmmetrics.WriteJSONL(s.bw, s.batch); s.err == nil {
			s.written += len(s.batch)
		}
	}
	clear(s.batch) // no chunk arrivals kept past their writing
	s.batch = s.batch[:0]
}

// endLine is the run's end line: completed, the count written, the
// models and operations seen, and the records not written.
func (s *RecordSink) endLine() *llmmetrics.RunEnd {
	e := &llmmetrics.RunEnd{State: "completed", Written: s.written,
		Absent: map[string]string{"planned": "live traffic: no request was planned"}, Load: map[string]string{}}
	if v := names(s.models); v != "" {
		e.Load["models"] = v
	}
	if v := names(s.operations); v != "" {
		e.Load["operations"] = v
	}
	if n := s.dropped.Load(); n > 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("%s not written: the sink's queue of %d was full (the writing fell behind the traffic); the file misses their requests.", plural.Of(int(n), "record"), s.opt.Queue))
	}
	if n := s.rejected.Load(); n > 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("%s not written: invalid, by the recorder's validation.", plural.Of(int(n), "record")))
	}
	if n := s.bare.Load(); n > 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("%s not written: made without a record (not by a Recorder).", plural.Of(int(n), "observation")))
	}
	if len(e.Load) == 0 {
		e.Load = nil
	}
	return e
}

// note adds name to a bounded set of names.
func note(set map[string]bool, name string) {
	if name != "" && (set[name] || len(set) < maxRecordedNames) {
		set[name] = true
	} else if name != "" {
		set[Other] = true
	}
}

// names lists a set's names in order, Other (names beyond the bound) last.
func names(set map[string]bool) string {
	var l []string
	for n := range set {
		if n != Other {
			l = append(l, n)
		}
	}
	slices.Sort(l)
	if set[Other] {
		l = append(l, "and others")
	}
	return strings.Join(l, ", ")
}
