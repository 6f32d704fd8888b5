package llmmetrics

import (
	"fmt"
	"math"
	"time"
)

// The ranges this package computes with exactly. A token count above
// MaxCount, or a time further than MaxTime from the time it is measured
// from, is refused with ErrOutOfRange: with every time within 2⁶¹ ns
// (about 73 years), no window or sum of two times can overflow.
const (
	MaxCount = math.MaxInt32
	MaxTime  = time.Duration(maxTime)

	// MaxReasons is how many rejected rows or records a Run or a Summary
	// keeps in full, with their reasons. Rows rejected beyond it are
	// counted, not kept, so that lenient reading of a file of any size uses
	// bounded memory.
	MaxReasons = 1000
)

// maxCount and maxTime are the untyped forms of MaxCount and MaxTime.
const (
	maxCount = MaxCount
	maxTime  = 1 << 61
)

// Status is the outcome of a request as the client saw it.
type Status uint8

const (
	StatusOK        Status = iota // the response completed
	StatusError                   // the server or transport reported an error
	StatusTimeout                 // the client gave up waiting
	StatusCancelled               // the request was cancelled before it completed
)

var statusNames = [...]string{"ok", "error", "timeout", "cancelled"}

// String returns the status name used in files: ok, error, timeout or cancelled.
func (s Status) String() string { return nameOf(statusNames[:], s, "Status") }

// nameOf returns v's name in names, or kind(v) for a value that has none.
func nameOf[T ~uint8](names []string, v T, kind string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, uint8(v))
}

// UnmarshalText sets s to the status named text, as String writes it. The
// empty text is StatusOK.
func (s *Status) UnmarshalText(text []byte) error {
	st, err := parseStatusBytes(text)
	if err == nil {
		*s = st
	}
	return err
}

// A Record is one request as a client observed it.
//
// Times are durations so that a run can be stored compactly and compared
// exactly: Sent is measured from any epoch shared by all records of a run (a
// live client can use time.Since(runStart), which reads the monotonic clock),
// and every other time is measured from Sent.
//
// The minimal record of a successful request is Sent, FirstText, LastText and
// CompletionTokens. A client that timestamps every text-bearing chunk sets
// Chunks instead (FirstText and LastText may then be left zero: they are
// taken from the ends of Chunks, and must equal them when set).
//
// A text-bearing chunk is a streamed event that carries output text. Role-only
// or empty deltas, usage frames, keep-alives and [DONE] are not text-bearing
// and must not appear in Chunks.
type Record struct {
	ID     string // optional: an empty id names no request and is never a duplicate
	Status Status
	Warmup bool // sent during the run's warm-up: counted apart, never a sample
	// Preflight marks a request the load generator sent before the load
	// to check the endpoint or to size the prompts (a test request, a
	// sizing request): never a sample, as warm-up, but counted apart from
	// it (Accounting.Preflight). Its Category is CategoryWarmup; a reader
	// sets Warmup with it.
	Preflight bool
	// Unfinished marks a request still in flight when the load generator
	// ended its run and stopped it there, without waiting for its outcome
	// (GuideLLM's incomplete requests, cancelled at a benchmark's end):
	// neither a success nor a failure of the server, but work left
	// unfinished by the run's end, reported apart (Accounting.Unfinished),
	// as the specification's completion-window convention asks. Its
	// Category is CategoryWarmup: never a sample, not in the error rate,
	// and not judged by an SLO.
	Unfinished bool
	// NoUsage says the server reported no output token count (no usage
	// block): n is unknown and CompletionTokens is 0. An ok record with
	// NoUsage keeps TTFT, E2E and its chunk gaps, and is left out of what
	// needs n (see CountState).
	NoUsage bool
	Message string // the error message of a failed request

	Sent      time.Duration // when the request was sent, from the run's epoch
	FirstText time.Duration // arrival of the first text-bearing chunk, from Sent
	LastText  time.Duration // arrival of the last text-bearing chunk, from Sent

	// Chunks holds the arrival of each text-bearing chunk, in order, measured
	// from Sent. Equal arrivals are allowed. Optional.
	Chunks []time.Duration
	// ChunkTokens holds the number of tokens each chunk carried, where the
	// server reports it. Optional; when set it has one entry per chunk and
	// sums to CompletionTokens.
	ChunkTokens []int32

	PromptTokens     int // prompt tokens, from the server's usage
	CompletionTokens int // output tokens n, from the server's usage; never a chunk count (0 with NoUsage)
	MaxTokens        int // the requested max_tokens; 0 when not given

	// Client holds what the load generator knew of the request beyond its
	// stream, where it recorded it; nil otherwise.
	Client *ClientSide
}

// ClientSide is what a load generator knows of a request beyond its
// stream. Every field is optional.
type ClientSide struct {
	// Scheduled is when the request was due to be sent, from the run's
	// epoch (an open loop's arrival time; HasSchedule false in a closed
	// loop). Its lateness — the time from when it was due to when the
	// client began the call, Sent − Wait − Scheduled — is how far a slow
	// client or server pushed it back, which must not hide latency.
	Scheduled   time.Duration
	HasSchedule bool
	// Wait is the time from the call's start until the request was
	// written: the client's own waiting (a connection from the pool, a
	// dial, a semaphore). It is never inside TTFT. NoWait says a file gave
	// client facts but no wait: Wait is unknown, not 0.
	Wait   time.Duration
	NoWait bool
	// FirstAnswer is the arrival of the first text-bearing chunk that is
	// not reasoning, from Sent (HasAnswer false when none came): time to
	// first answer token, beside TTFT, for reasoning models.
	FirstAnswer time.Duration
	HasAnswer   bool
	// ReasoningTokens are the reasoning tokens among the completion
	// tokens, where usage gave them (HasReasoning).
	ReasoningTokens int
	HasReasoning    bool
	// CachedPromptTokens are the prompt tokens the server took from its
	// prefix cache, where usage gave them (HasCached).
	CachedPromptTokens int
	HasCached          bool
	// Session names the multi-turn conversation the request belongs to,
	// and Turn its place in it from 1 ("" and 0 outside sessions).
	Session string
	Turn    int
	// OneBody is true for a reply that came as one body, not a stream:
	// an unstreamed answer, whatever its count (see Accounting.Unstreamed).
	OneBody bool
}

// Lateness returns how long after its scheduled time the client began the
// request, and false when the request had no schedule or its wait is unknown.
func (c *ClientSide) Lateness(sent time.Duration) (time.Duration, bool) {
	if c == nil || !c.HasSchedule || c.NoWait {
		return 0, false
	}
	return sent - c.Wait - c.Scheduled, true
}

// Category is the one accounting category a record ends in.
type Category uint8

const (
	// CategoryOK is a successful request with at least one output token: a
	// latency sample.
	CategoryOK Category = iota
	// CategoryZeroToken is a successful request with no output token. It has
	// no TTFT and is not a latency sample; it is counted apart.
	CategoryZeroToken
	// CategoryFailed is a request that ended in error, timeout or
	// cancellation. It is counted, never a latency sample.
	CategoryFailed
	// CategoryRejected is a record that failed validation and was set aside
	// in lenient mode, with its reason.
	CategoryRejected
	// CategoryWarmup is a valid record sent during the run's warm-up, or
	// before its load (Record.Preflight), or left unfinished by the run's
	// end (Record.Unfinished): counted apart, never a sample, and outside
	// the measured window.
	CategoryWarmup
)

var categoryNames = [...]string{"ok", "zero_token", "failed", "rejected", "warmup"}

// String returns the category's name as used in reports.
func (c Category) String() string { return nameOf(categoryNames[:], c, "Category") }

// Category returns the category of a valid record: warm-up for a record
// marked so (or marked preflight), failed for any status but ok, zero-token for an ok record with
// no completion tokens and no text (no chunk arrival, and usage given), ok
// otherwise. An ok record may lack a usable token count (CountState).
// Whether a record is rejected is decided by Validate, not here.
func (r *Record) Category() Category {
	switch {
	case r.Warmup || r.Preflight || r.Unfinished:
		return CategoryWarmup
	case r.Status != StatusOK:
		return CategoryFailed
	case !r.hasText():
		return CategoryZeroToken
	}
	return CategoryOK
}

// hasText reports whether an ok record carries output text: a count of
// at least one token, a text-bearing chunk, or no usage (its text times
// then say when the text came).
func (r *Record) hasText() bool {
	return r.CompletionTokens > 0 || len(r.Chunks) > 0 || r.NoUsage
}

// first and last return the arrivals of the first and last text-bearing
// chunks, from Sent. They assume a valid record.
func (r *Record) first() time.Duration {
	if len(r.Chunks) > 0 {
		return r.Chunks[0]
	}
	return r.FirstText
}

func (r *Record) last() time.Duration {
	if n := len(r.Chunks); n > 0 {
		return r.Chunks[n-1]
	}
	return r.LastText
}

// Validate reports the first problem with the record as a *RecordError that
// names the field and wraps one of the package's sentinel errors; it does not
// know the record's position, so Index is -1. A failed record is checked only
// for its status and counts, since its times are never used.
func (r *Record) Validate() error {
	if err := r.validateOrdered(false); err != nil {
		err.ID = r.ID
		return err
	}
	return nil
}

// validateOrdered is Validate without the id, told by ordered that the record's chunk
// arrivals are known to be in order (no gap between them is negative), as
// a pass that has already taken their gaps knows: it then does not compare
// them again.
func (r *Record) validateOrdered(ordered bool) *RecordError {
	if err := r.validateCounts(); err != nil {
		return err
	}
	if err := r.validateClient(); err != nil {
		return err
	}
	if r.Status != StatusOK {
		return nil
	}
	if r.NoUsage && r.CompletionTokens != 0 {
		return fieldError("completion_tokens", ErrNoCount, "%d tokens, though the record says the server reported no usage", r.CompletionTokens)
	}
	// A count below the chunks is not an error: the record keeps what
	// needs no count (see CountState).
	if !r.hasText() {
		return nil // zero-token: no text, so no times to check
	}
	if len(r.Chunks) == 0 {
		return r.validateTextTimes()
	}
	if err := r.validateChunks(ordered); err != nil {
		return err
	}
	return r.validateChunkTokens()
}

// validateCounts checks the status, the token counts and the send time.
func (r *Record) validateCounts() *RecordError {
	if int(r.Status) >= len(statusNames) {
		return fieldError("status", ErrBadStatus, "%d", r.Status)
	}
	// A negative count is above maxCount as a uint: one test a count.
	if uint(r.PromptTokens) > maxCount || uint(r.CompletionTokens) > maxCount || uint(r.MaxTokens) > maxCount {
		return r.countRangeError()
	}
	if r.Sent < -maxTime || r.Sent > maxTime {
		return fieldError("sent", ErrOutOfRange, "%v is further than %v from the epoch", r.Sent, time.Duration(maxTime))
	}
	return nil
}

// countRangeError returns the error of the first count out of range.
func (r *Record) countRangeError() *RecordError {
	for _, c := range [...]struct {
		name string
		v    int
	}{{"prompt_tokens", r.PromptTokens}, {"completion_tokens", r.CompletionTokens}, {"max_tokens", r.MaxTokens}} {
		if c.v < 0 {
			return fieldError(c.name, ErrNegativeCount, "%d", c.v)
		}
		if c.v > maxCount {
			return fieldError(c.name, ErrOutOfRange, "%d is above %d", c.v, maxCount)
		}
	}
	return nil
}

// validateTextTimes checks the first and last text times of a successful
// record with text and no chunk arrivals.
func (r *Record) validateTextTimes() *RecordError {
	if r.ChunkTokens != nil {
		return fieldError("chunk_tokens", ErrChunkMismatch, "%d counts but no chunk arrivals", len(r.ChunkTokens))
	}
	if r.FirstText < 0 {
		return fieldError("first_text", ErrNegativeDuration, "first text %v before the send time", -r.FirstText)
	}
	if r.LastText < r.FirstText {
		return fieldError("last_text", ErrTimeOrder, "last text %v, first text %v", r.LastText, r.FirstText)
	}
	if r.LastText > maxTime {
		return fieldError("last_text", ErrOutOfRange, "%v after the send time", r.LastText)
	}
	return nil
}

// validateChunks checks the chunk arrivals of a successful record (their
// order unless ordered says it is known) against the first and last text
// times.
func (r *Record) validateChunks(ordered bool) *RecordError {
	if r.Chunks[0] < 0 {
		return fieldError("chunks[0]", ErrNegativeDuration, "first text %v before the send time", -r.Chunks[0])
	}
	for i := 1; i < len(r.Chunks) && !ordered; i++ {
		if r.Chunks[i] < r.Chunks[i-1] {
			return fieldError(fmt.Sprintf("chunks[%d]", i), ErrNonMonotonic, "%v after %v", r.Chunks[i], r.Chunks[i-1])
		}
	}
	if last := r.Chunks[len(r.Chunks)-1]; last > maxTime {
		return fieldError(fmt.Sprintf("chunks[%d]", len(r.Chunks)-1), ErrOutOfRange, "%v after the send time", last)
	}
	if r.FirstText != 0 && r.FirstText != r.Chunks[0] {
		return fieldError("first_text", ErrChunkMismatch, "first text %v, first chunk %v", r.FirstText, r.Chunks[0])
	}
	if last := r.Chunks[len(r.Chunks)-1]; r.LastText != 0 && r.LastText != last {
		return fieldError("last_text", ErrChunkMismatch, "last text %v, last chunk %v", r.LastText, last)
	}
	return nil
}

// validateChunkTokens checks the per-chunk token counts, when the record
// has them, against the chunks and the completion tokens.
func (r *Record) validateChunkTokens() *RecordError {
	if r.ChunkTokens == nil {
		return nil
	}
	if len(r.ChunkTokens) != len(r.Chunks) {
		return fieldError("chunk_tokens", ErrChunkMismatch, "%d counts for %d chunks", len(r.ChunkTokens), len(r.Chunks))
	}
	sum := 0
	for i, t := range r.ChunkTokens {
		if t < 0 {
			return fieldError(fmt.Sprintf("chunk_tokens[%d]", i), ErrNegativeCount, "%d", t)
		}
		if t == 0 {
			return fieldError(fmt.Sprintf("chunk_tokens[%d]", i), ErrChunkMismatch, "0 tokens: a text-bearing chunk carries at least one")
		}
		sum += int(t)
	}
	if sum != r.CompletionTokens && !r.NoUsage { // without usage, no count to match
		return fieldError("chunk_tokens", ErrChunkMismatch, "chunk tokens sum to %d, completion tokens %d", sum, r.CompletionTokens)
	}
	return nil
}

// validateClient checks the client-side facts: times in range, a wait
// that is not negative, a first answer among the text chunks, reasoning
// tokens within the completion tokens.
func (r *Record) validateClient() *RecordError {
	c := r.Client
	if c == nil {
		return nil
	}
	switch {
	case c.Wait < 0:
		return fieldError("wait", ErrNegativeDuration, "%v", c.Wait)
	case c.Wait > maxTime:
		return fieldError("wait", ErrOutOfRange, "%v", c.Wait)
	case c.HasSchedule && (c.Scheduled < -maxTime || c.Scheduled > maxTime):
		return fieldError("scheduled", ErrOutOfRange, "%v", c.Scheduled)
	case c.HasReasoning && (c.ReasoningTokens < 0 || c.ReasoningTokens > r.CompletionTokens && r.counted()):
		return fieldError("reasoning_tokens", ErrChunkMismatch, "%d reasoning tokens of %d completion tokens", c.ReasoningTokens, r.CompletionTokens)
	case c.CachedPromptTokens < 0:
		return fieldError("cached_prompt_tokens", ErrNegativeCount, "%d", c.CachedPromptTokens)
	case c.Turn < 0:
		return fieldError("turn", ErrNegativeCount, "%d", c.Turn)
	}
	if c.HasAnswer && r.Status == StatusOK && r.hasText() && r.first() >= 0 && r.last() >= r.first() { // times comparable
		if c.FirstAnswer < r.first() || c.FirstAnswer > r.last() {
			return fieldError("first_answer", ErrChunkMismatch, "first answer %v outside the text chunks' %v to %v", c.FirstAnswer, r.first(), r.last())
		}
	}
	return nil
}

// checkText validates r and reports ErrNoText unless it carries output
// text (status ok, n ≥ 1). A warm-up record has its per-record metrics too:
// warm-up is an accounting category, not a lack of text.
func (r *Record) checkText() error {
	if err := r.Validate(); err != nil {
		return err
	}
	if r.Status != StatusOK || !r.hasText() {
		return fmt.Errorf("%w (%s)", ErrNoText, r.Category())
	}
	return nil
}
