package llmmetrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/llmmetrics/llmmetrics/internal/lineio"
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
//	sent_ns             send time, from the run's epoch; 0 when absent
//	first_text_ns       first text-bearing chunk, from sent_ns
//	last_text_ns        last text-bearing chunk, from sent_ns
//	chunk_arrivals_ns   every text-bearing chunk, from sent_ns, in order
//	chunk_tokens        tokens carried by each chunk, where the server says
//	prompt_tokens       prompt tokens from usage
//	completion_tokens   output tokens n from usage; required when status is ok
//	max_tokens          the requested max_tokens
//	warmup              true for a request sent during the warm-up
//	scheduled_ns        when the request was due, from the run's epoch (open loop)
//	wait_ns             the client's own wait before the request was written
//	first_answer_ns     the first non-reasoning text chunk, from sent_ns
//	reasoning_tokens    reasoning tokens among the completion tokens, from usage
//
// A load generator may write a first line describing the run,
// {"llmmetrics_run": {...}} (see RunHeader); the reader keeps it in
// Run.Header.
//
// An ok record with n ≥ 1 needs chunk_arrivals_ns, or first_text_ns and
// last_text_ns. Unknown keys are an error, so a misspelt key is never
// silently ignored.
type jsonRecord struct {
	ID               string  `json:"id"`
	Status           string  `json:"status,omitempty"`
	Message          string  `json:"message,omitempty"`
	SentNS           int64   `json:"sent_ns"`
	FirstTextNS      *int64  `json:"first_text_ns,omitempty"`
	LastTextNS       *int64  `json:"last_text_ns,omitempty"`
	ChunkArrivalsNS  []int64 `json:"chunk_arrivals_ns,omitempty"`
	ChunkTokens      []int32 `json:"chunk_tokens,omitempty"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens *int    `json:"completion_tokens,omitempty"`
	MaxTokens        int     `json:"max_tokens,omitempty"`
	Warmup           bool    `json:"warmup,omitempty"`
	ScheduledNS      *int64  `json:"scheduled_ns,omitempty"`
	WaitNS           *int64  `json:"wait_ns,omitempty"`
	FirstAnswerNS    *int64  `json:"first_answer_ns,omitempty"`
	ReasoningTokens  *int    `json:"reasoning_tokens,omitempty"`
}

// maxLine bounds one JSONL line or CSV row, so that a file with no newline
// cannot take all memory. It is a variable so that tests can lower it.
var maxLine = 256 << 20

// ReadJSONL reads a run from the JSONL format, strictly; see
// ReadOptions.ReadJSONL.
func ReadJSONL(r io.Reader) (*Run, error) { return ReadOptions{}.ReadJSONL(r) }

// ReadJSONL reads a run from the JSONL format. Blank lines are skipped; a
// UTF-8 byte order mark at the start of a line is ignored. A line that
// cannot be parsed stops reading with its *RecordError (line, column, key),
// or, with Lenient, is set aside in the Run, which is then returned with
// Run.Err. An unreadable input, or a line longer than 256 MiB, is an error.
func (o ReadOptions) ReadJSONL(r io.Reader) (*Run, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	run := &Run{}
	var buf []byte
	for line := 1; ; line++ {
		b, err := lineio.Read(br, buf[:0], maxLine)
		buf = b
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("llmmetrics: reading JSONL line %d: %w", line, err)
		}
		body := bytes.TrimPrefix(b, bom)
		lead := len(b) - len(body) // bytes before the line's text starts
		if t := bytes.TrimSpace(body); len(t) > 0 {
			lead += len(body) - len(bytes.TrimLeft(body, " \t\r\n"))
			if isHeader(t) {
				if herr := readHeader(run, t, line); herr != nil {
					return nil, herr
				}
			} else if rerr := o.readRecord(run, t, line, lead); rerr != nil {
				return nil, rerr
			}
		}
		if err == io.EOF {
			return run, run.Err()
		}
	}
}

// readRecord parses one line into the run: a record, or, in lenient mode, a
// row set aside; in strict mode a bad line is the error returned.
func (o ReadOptions) readRecord(run *Run, t []byte, line, lead int) error {
	rec, rerr := parseJSONLine(t)
	if rerr == nil {
		run.Records = append(run.Records, rec)
		run.Lines = append(run.Lines, line)
		return nil
	}
	rerr.Line = line
	if rerr.Column > 0 {
		rerr.Column += lead
	}
	return o.reject(run, rerr)
}

// WriteJSONL writes records in the JSONL format, one object a line. Reading
// the output back with ReadJSONL gives equal records.
func WriteJSONL(w io.Writer, recs []Record) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range recs {
		r := &recs[i]
		n := r.CompletionTokens
		jr := jsonRecord{
			ID:               r.ID,
			Status:           r.Status.String(),
			Message:          r.Message,
			SentNS:           int64(r.Sent),
			ChunkTokens:      r.ChunkTokens,
			PromptTokens:     r.PromptTokens,
			CompletionTokens: &n,
			MaxTokens:        r.MaxTokens,
		}
		if len(r.Chunks) > 0 {
			jr.ChunkArrivalsNS = make([]int64, len(r.Chunks))
			for k, c := range r.Chunks {
				jr.ChunkArrivalsNS[k] = int64(c)
			}
		}
		// The text times are written when they hold something the chunks
		// do not say, so that a round trip gives equal records.
		needed := len(r.Chunks) == 0 && r.Status == StatusOK && n > 0
		if first := int64(r.FirstText); first != 0 || needed {
			jr.FirstTextNS = &first
		}
		if last := int64(r.LastText); last != 0 || needed {
			jr.LastTextNS = &last
		}
		jr.Warmup = r.Warmup
		if c := r.Client; c != nil {
			wait := int64(c.Wait)
			jr.WaitNS = &wait
			if c.HasSchedule {
				at := int64(c.Scheduled)
				jr.ScheduledNS = &at
			}
			if c.HasAnswer {
				at := int64(c.FirstAnswer)
				jr.FirstAnswerNS = &at
			}
			if c.HasReasoning {
				n := c.ReasoningTokens
				jr.ReasoningTokens = &n
			}
		}
		if err := enc.Encode(&jr); err != nil {
			return err
		}
	}
	return bw.Flush()
}
