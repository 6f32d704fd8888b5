package llmmetrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

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
}

// maxLine bounds one JSONL line, so that a file with no newline cannot take
// all memory.
const maxLine = 256 << 20

// ReadJSONL reads a run from the JSONL format. Blank lines are skipped. A
// line that cannot be parsed is set aside in Run.Rejected with its line and
// field; see Run.Err and Options.Lenient. An unreadable input is an error.
func ReadJSONL(r io.Reader) (*Run, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	run := &Run{}
	var buf []byte
	for line := 1; ; line++ {
		b, err := lineio.Read(br, buf[:0], maxLine)
		buf = b
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("llmmetrics: reading JSONL line %d: %w", line, err)
		}
		if t := bytes.TrimSpace(bytes.TrimPrefix(b, bom)); len(t) > 0 {
			rec, rerr := parseJSONLine(t)
			if rerr != nil {
				rerr.Line = line
				run.Rejected = append(run.Rejected, rerr)
			} else {
				run.Records = append(run.Records, rec)
				run.Lines = append(run.Lines, line)
			}
		}
		if err == io.EOF {
			return run, nil
		}
	}
}

func parseJSONLine(b []byte) (Record, *RecordError) {
	var jr jsonRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jr); err != nil {
		e := &RecordError{Index: -1, Err: fmt.Errorf("%w: %w", ErrSyntax, err)}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			e.Field = te.Field
		}
		return Record{}, e
	}
	if dec.More() {
		return Record{}, &RecordError{Index: -1, ID: jr.ID, Err: fmt.Errorf("%w: text after the JSON object", ErrSyntax)}
	}
	rec := Record{
		ID:           jr.ID,
		Message:      jr.Message,
		Sent:         time.Duration(jr.SentNS),
		ChunkTokens:  jr.ChunkTokens,
		PromptTokens: jr.PromptTokens,
		MaxTokens:    jr.MaxTokens,
	}
	fail := func(field string, err error) (Record, *RecordError) {
		return Record{}, &RecordError{Index: -1, ID: jr.ID, Field: field, Err: err}
	}
	var err error
	if rec.Status, err = ParseStatus(jr.Status); err != nil {
		return fail("status", err)
	}
	if jr.CompletionTokens != nil {
		rec.CompletionTokens = *jr.CompletionTokens
	} else if rec.Status == StatusOK {
		return fail("completion_tokens", ErrMissingField)
	}
	if len(jr.ChunkArrivalsNS) > 0 {
		rec.Chunks = make([]time.Duration, len(jr.ChunkArrivalsNS))
		for i, c := range jr.ChunkArrivalsNS {
			rec.Chunks[i] = time.Duration(c)
		}
	}
	if jr.FirstTextNS != nil {
		rec.FirstText = time.Duration(*jr.FirstTextNS)
	}
	if jr.LastTextNS != nil {
		rec.LastText = time.Duration(*jr.LastTextNS)
	}
	if rec.Status == StatusOK && rec.CompletionTokens > 0 && len(rec.Chunks) == 0 {
		if jr.FirstTextNS == nil {
			return fail("first_text_ns", fmt.Errorf("%w: an ok record needs chunk_arrivals_ns or first_text_ns and last_text_ns", ErrMissingField))
		}
		if jr.LastTextNS == nil {
			return fail("last_text_ns", fmt.Errorf("%w: an ok record needs chunk_arrivals_ns or first_text_ns and last_text_ns", ErrMissingField))
		}
	}
	return rec, nil
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
		if err := enc.Encode(&jr); err != nil {
			return err
		}
	}
	return bw.Flush()
}
