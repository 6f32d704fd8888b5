package llmmetrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/blocks"
	"github.com/llmmetrics/llmmetrics/internal/jsonline"
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
//	wait_ns             the client's own wait before the request was written
//	first_answer_ns     the first non-reasoning text chunk, from sent_ns
//	reasoning_tokens    reasoning tokens among the completion tokens, from usage
//
// A load generator may write a first line describing the run,
// {"llmmetrics_run": {...}} (see RunHeader), and a last line saying how it
// ended, {"llmmetrics_end": {...}} (see RunEnd); the reader keeps them in
// Run.Header and Run.End. The end line is the file's last: a line after
// it (blank lines aside) is an error, in strict and lenient mode alike.
//
// A last line without a newline that is the unfinished beginning of a JSON
// object (the writer was killed mid-write, or its disk filled) is not read
// as a record nor as an error: Run.Cut says where the input ends, and the
// summary's Completeness says TRUNCATED, in strict and lenient mode alike.
// Any other malformed line, the last one included, stays an error.
//
// An ok record with n ≥ 1, or without completion_tokens, needs
// chunk_arrivals_ns, or first_text_ns and last_text_ns. Unknown keys are an error, so a misspelt key is never
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
	PromptTokens     int     `json:"prompt_tokens,omitempty"`
	CompletionTokens *int    `json:"completion_tokens,omitempty"`
	MaxTokens        int     `json:"max_tokens,omitempty"`
	Warmup           bool    `json:"warmup,omitempty"`
	Preflight        bool    `json:"preflight,omitempty"`
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
	lines, commas := o.counts(r)
	dst := newRows(1, lines)
	// Room for the chunk arrivals of every block: a block takes its
	// commas and one, at most the room's length together, the same memory
	// the blocks' own arenas would take.
	var room *blocks.Room[time.Duration]
	if lines > 0 && commas >= 0 {
		room = blocks.NewRoom[time.Duration](lines + commas)
	}
	next, stop := parseBlocks(r, 1, nil, dst, func(b block) parsedBlock { return parseJSONLBlock(b, room) })
	defer stop()
	run := &Run{}
	endLine := 0 // the end line's number, once read
	end, err := o.gather(next, dst, run, func(t []byte, line int) error {
		if endLine > 0 {
			return afterEnd(line, endLine)
		}
		if err := readHeader(run, t, line); err != nil {
			return err
		}
		if run.End != nil {
			endLine = line
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if end.err != nil {
		return nil, fmt.Errorf("llmmetrics: reading JSONL line %d: %w", end.line, end.err)
	}
	if line := linesAfter(run, endLine); line > 0 {
		return nil, afterEnd(line, endLine)
	}
	if run.Cut != nil {
		run.Cut.After = len(run.Records) + run.RejectedCount()
	}
	return run, run.Err()
}

// linesAfter returns the first line after the end line numbered end that
// holds something, a record, a row set aside or an unfinished line; or 0.
// The end line is the file's last: whatever follows it was appended
// after the run ended (two runs in one file, say), and is not the run's.
func linesAfter(run *Run, end int) int {
	if end == 0 {
		return 0
	}
	first := 0
	later := func(line int) {
		if line > end && (first == 0 || line < first) {
			first = line
		}
	}
	if i, _ := slices.BinarySearch(run.Lines, end); i < len(run.Lines) {
		later(run.Lines[i])
	}
	for _, e := range run.Rejected {
		later(e.Line)
	}
	if run.Cut != nil {
		later(run.Cut.Line)
	}
	return first
}

// afterEnd is the error of a line found after the run's end line.
func afterEnd(line, end int) error {
	return &RecordError{Index: -1, Line: line, Err: fmt.Errorf("%w: text after the run's end line (line %d), which is the file's last", ErrSyntax, end)}
}

// parseJSONLBlock parses a block of JSONL lines, the records' chunk
// arrivals in one arena, taken from room when it has enough.
func parseJSONLBlock(b block, room *blocks.Room[time.Duration]) parsedBlock {
	pb := parsedBlock{err: b.Err}
	// One arena for the block, sized by its commas: at least one a number
	// in the arrays, so that one slab usually holds them all.
	arena := room.Take(bytes.Count(b.Data, []byte{','}) + 1)
	pb.recs, pb.lines = b.slots(b.Lines())
	p := &jsonline.Parser{Status: parseStatus, Arena: &arena}
	open := openLine(&b)
	pb.lastLine = blocks.Lines(b.Data, b.FirstLine, func(t []byte, line, lead int) {
		if line == open {
			if cut := cutOf(t, b.Data, line); cut != nil {
				pb.items = append(pb.items, lineItem{line: line, cut: cut})
				return
			}
		}
		if isHeader(t) {
			pb.items = append(pb.items, lineItem{line: line, header: t})
			return
		}
		rec, rerr := record(p.Parse(t))
		if rerr != nil {
			rerr.ID, rerr.Line = rec.ID, line
			if rerr.Column > 0 {
				rerr.Column += lead
			}
			pb.items = append(pb.items, lineItem{line: line, err: rerr})
			return
		}
		pb.recs, pb.lines = append(pb.recs, rec), append(pb.lines, line)
	})
	return pb
}

// WriteJSONL writes records in the JSONL format, one object a line. Reading
// the output back with ReadJSONL gives equal records (a preflight record
// reads back with Warmup set, as it is always written). A count that is
// not known is left out, never written as 0: completion_tokens of an ok
// record without usage (NoUsage) or of a failed record that got none, and
// prompt_tokens of 0.
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
		if r.NoUsage || r.Status != StatusOK && n == 0 {
			// No count: an ok record's reads back as NoUsage, a failed
			// record's as no count (a failed request rarely gets usage,
			// and an unknown count is never written as 0).
			jr.CompletionTokens = nil
		}
		if len(r.Chunks) > 0 {
			jr.ChunkArrivalsNS = make([]int64, len(r.Chunks))
			for k, c := range r.Chunks {
				jr.ChunkArrivalsNS[k] = int64(c)
			}
		}
		// The text times are written when they hold something the chunks
		// do not say, so that a round trip gives equal records.
		needed := len(r.Chunks) == 0 && r.Status == StatusOK && (n > 0 || r.NoUsage)
		if first := int64(r.FirstText); first != 0 || needed {
			jr.FirstTextNS = &first
		}
		if last := int64(r.LastText); last != 0 || needed {
			jr.LastTextNS = &last
		}
		jr.Warmup, jr.Preflight = r.Warmup || r.Preflight, r.Preflight
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
