package jsonline

import (
	"bufio"
	"encoding/json"
	"io"
)

// The JSONL format holds one request per line as a JSON object. Times are
// integers of nanoseconds, with the unit in each key:
//
//	{"id":"r1","status":"ok","sent_ns":0,
//	 "chunk_arrivals_ns":[120000000,155000000,192000000,228000000,265000000],
//	 "chunk_tokens":[1,1,1,1,1],
//	 "prompt_tokens":512,"completion_tokens":5,"max_tokens":5}
//
// Keys (all optional except as noted):
//
//	id                  the request's id
//	status              ok, error, timeout or cancelled; ok when absent
//	message             a failed request's error text
//	sent_ns             send time, from the run's epoch; on every record
//	                    or on none (a file without send times)
//	first_text_ns       first text-bearing chunk, from sent_ns
//	last_text_ns        last text-bearing chunk, from sent_ns
//	chunk_arrivals_ns   every text-bearing chunk, from sent_ns, in order
//	chunk_tokens        tokens carried by each chunk, where the server says
//	prompt_tokens       prompt tokens from usage; absent (0) when unknown
//	completion_tokens   output tokens n from usage; absent when the server
//	                    reported none (Record.NoUsage: n unknown, never 0),
//	                    and in a failed record when no count came
//	max_tokens          the requested max_tokens
//	warmup              true for a request sent during the warm-up
//	preflight           true for a request sent before the load to check
//	                    the endpoint or size the prompts (Record.Preflight;
//	                    it implies warmup)
//	scheduled_ns        when the request was due, from the run's epoch (open loop)
//	wait_ns             the client's own wait before the request was written;
//	                    absent, with other client facts, when not known
//	first_answer_ns     the first non-reasoning text chunk, from sent_ns
//	reasoning_tokens    reasoning tokens among the completion tokens, from usage
//	cached_prompt_tokens prompt tokens the server took from its prefix cache,
//	                    where usage gave them
//	session             the multi-turn conversation the request belongs to
//	turn                the request's turn in its session, from 1
//	one_body            true for a reply that came as one body, not a
//	                    stream (ClientSide.OneBody)
//
// cached_prompt_tokens and turn are whole numbers, never negative.
//
// A load generator may write a first line describing the run,
// {"llmmetrics_run": {...}} (the root's RunHeader), and a last line saying
// how it ended, {"llmmetrics_end": {...}} (the root's RunEnd); the root's
// reader keeps them in Run.Header and Run.End. The end line is the file's last: a line after
// it (blank lines aside) is an error, in strict and lenient mode alike.
//
// A last line without a newline that is the unfinished beginning of a JSON
// object (the writer was killed mid-write, or its disk filled) is not read
// as a record nor as an error: Run.Cut says where the input ends, and the
// summary's Completeness says TRUNCATED, in strict and lenient mode alike.
// Any other malformed line, the last one included, stays an error.
//
// An ok record with n ≥ 1, or without completion_tokens, needs
// chunk_arrivals_ns, or first_text_ns and last_text_ns. Unknown keys are
// an error, so a misspelt key is never silently ignored.
type record struct {
	ID               string  `json:"id"`
	Status           string  `json:"status,omitempty"`
	Message          string  `json:"message,omitempty"`
	SentNS           *int64  `json:"sent_ns,omitempty"`
	FirstTextNS      *int64  `json:"first_text_ns,omitempty"`
	LastTextNS       *int64  `json:"last_text_ns,omitempty"`
	ChunkArrivalsNS  []int64 `json:"chunk_arrivals_ns,omitempty"`
	ChunkTokens      []int32 `json:"chunk_tokens,omitempty"`
	PromptTokens     int     `json:"prompt_tokens,omitempty"`
	CompletionTokens *int    `json:"completion_tokens,omitempty"`
	MaxTokens        int     `json:"max_tokens,omitempty"`
	Warmup           bool    `json:"warmup,omitempty"`
	Preflight        bool    `json:"preflight,omitempty"`
	ScheduledNS      *int64  `json:"scheduled_ns,omitempty"`
	WaitNS           *int64  `json:"wait_ns,omitempty"`
	FirstAnswerNS    *int64  `json:"first_answer_ns,omitempty"`
	ReasoningTokens  *int    `json:"reasoning_tokens,omitempty"`
	CachedPrompt     *int    `json:"cached_prompt_tokens,omitempty"`
	Session          string  `json:"session,omitempty"`
	Turn             int     `json:"turn,omitempty"`
	OneBody          bool    `json:"one_body,omitempty"`
}

// A Writer writes lines of the format with encoding/json, over record.
type Writer struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

// NewWriter returns a Writer to w, buffered: call Flush at the end.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriter(w)
	return &Writer{bw: bw, enc: json.NewEncoder(bw)}
}

// Write writes l, with the status named status, as one line. A field whose
// Has… is false is left out (sent_ns too), as are the zero prompt tokens, max tokens,
// message and marks, and empty chunk lists.
func (w *Writer) Write(l *Line, status string) error {
	jr := record{
		ID: l.ID, Status: status, Message: l.Message, SentNS: optional(int64(l.Sent), l.HasSent),
		ChunkTokens: l.ChunkTokens, PromptTokens: l.Prompt, MaxTokens: l.MaxTokens,
		Warmup: l.Warmup, Preflight: l.Preflight,
	}
	if l.HasCompletion {
		jr.CompletionTokens = &l.Completion
	}
	if len(l.Chunks) > 0 {
		jr.ChunkArrivalsNS = make([]int64, len(l.Chunks))
		for k, c := range l.Chunks {
			jr.ChunkArrivalsNS[k] = int64(c)
		}
	}
	jr.FirstTextNS = optional(int64(l.First), l.HasFirst)
	jr.LastTextNS = optional(int64(l.Last), l.HasLast)
	if c := &l.Client; l.HasClient {
		jr.WaitNS = optional(int64(c.Wait), !c.NoWait)
		jr.ScheduledNS = optional(int64(c.Scheduled), c.HasSchedule)
		jr.FirstAnswerNS = optional(int64(c.FirstAnswer), c.HasAnswer)
		if c.HasReasoning {
			jr.ReasoningTokens = &c.ReasoningTokens
		}
		if c.HasCached {
			jr.CachedPrompt = &c.CachedPromptTokens
		}
		jr.Session, jr.Turn, jr.OneBody = c.Session, c.Turn, c.OneBody
	}
	return w.enc.Encode(&jr)
}

// optional returns a pointer to v when it is given, nil otherwise.
func optional(v int64, given bool) *int64 {
	if !given {
		return nil
	}
	return &v
}

// Flush writes what is buffered.
func (w *Writer) Flush() error { return w.bw.Flush() }
