package llmmetrics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/blocks"
	"github.com/llmmetrics/llmmetrics/internal/jsonline"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// The JSONL format holds one request per line as a JSON object, its keys
// those the README lists; internal/jsonline reads and writes a line (its
// package documentation states every key and rule).

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
		return nil, pastEnd(err, endLine)
	}
	if end.err != nil {
		return nil, fmt.Errorf("llmmetrics: reading JSONL line %d: %w", end.line, end.err)
	}
	if line := linesAfter(run, endLine); line > 0 {
		return nil, afterEnd(line, endLine)
	}
	if err := o.sendTimes(run, end.unsent, end.sent); err != nil {
		return nil, err
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
	return &RecordError{Index: -1, Line: line, Err: fmt.Errorf("%w (line %d), which must be the file's last", ErrAfterEnd, end)}
}

// pastEnd returns err, or, when it is about a line after the end line
// numbered end (one that cannot be read as a record, say), the error of
// text after the end line: what is wrong is that the line is there.
func pastEnd(err error, end int) error {
	var re *RecordError
	if end > 0 && errors.As(err, &re) && re.Line > end {
		return afterEnd(re.Line, end)
	}
	return err
}

// sendTimes applies the rule of sent_ns, told the lines of the records
// without it and the number with it: records that all lack it have no send
// times (Run.NoSendTimes); in a file where some give it, the fewer side
// (those without, on a tie) is the error ErrMixedSends.
func (o ReadOptions) sendTimes(run *Run, unsent []int, sent int) (err error) {
	run.NoSendTimes = len(unsent) > sent
	if sent == 0 || len(unsent) == 0 {
		return nil
	}
	why := fmt.Errorf("%w: %s with sent_ns, %d without; the fewer side (on a tie, those without) is the one in error", ErrMixedSends, plural.Of(sent, "record"), len(unsent))
	run.Records, run.Lines, err = blocks.Remove(run.Records, run.Lines, unsent, run.NoSendTimes, func(r *Record, line int) error {
		return o.reject(run, &RecordError{Index: -1, Line: line, ID: r.ID, Field: "sent_ns", Err: why})
	})
	slices.SortFunc(run.Rejected, func(a, b *RecordError) int { return a.Line - b.Line })
	return err
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
		l, perr := p.Parse(t)
		rec, rerr := record(l, perr)
		if rerr != nil {
			rerr.ID, rerr.Line = rec.ID, line
			if rerr.Column > 0 {
				rerr.Column += lead
			}
			pb.items = append(pb.items, lineItem{line: line, err: rerr})
			return
		}
		pb.recs, pb.lines = append(pb.recs, rec), append(pb.lines, line)
		if !l.HasSent {
			pb.unsent = append(pb.unsent, line)
		}
	})
	return pb
}

// WriteJSONL writes records in the JSONL format, one object a line. Reading
// the output back with ReadJSONL gives equal records (a preflight record
// reads back with Warmup set, as it is always written). A count that is
// not known is left out, never written as 0: completion_tokens of an ok
// record without usage (NoUsage) or of a failed record that got none, and
// prompt_tokens of 0.
func WriteJSONL(w io.Writer, recs []Record) error { return writeJSONL(w, recs, false) }

// WriteJSONL writes the run as ReadJSONL reads it: its header line, its
// records as the function WriteJSONL writes them and its end line, the
// lines it has. A run without send times (NoSendTimes) is written without
// sent_ns, so that it reads back without them, never as sent at 0. The
// records set aside (Rejected) and a cut (Cut) are not written.
func (run *Run) WriteJSONL(w io.Writer) error {
	if run.Header != nil {
		if err := run.Header.WriteLine(w); err != nil {
			return err
		}
	}
	if err := writeJSONL(w, run.Records, run.NoSendTimes); err != nil || run.End == nil {
		return err
	}
	return run.End.WriteLine(w)
}

// writeJSONL writes records as WriteJSONL does, without sent_ns if noSent.
func writeJSONL(w io.Writer, recs []Record, noSent bool) error {
	jw := jsonline.NewWriter(w)
	for i := range recs {
		r := &recs[i]
		n := r.CompletionTokens
		// The text times are written when they hold something the chunks
		// do not say, so that a round trip gives equal records.
		needed := len(r.Chunks) == 0 && r.Status == StatusOK && (n > 0 || r.NoUsage)
		l := jsonline.Line{
			ID: r.ID, Message: r.Message, Sent: r.Sent, HasSent: !noSent, Chunks: r.Chunks, ChunkTokens: r.ChunkTokens,
			First: r.FirstText, HasFirst: r.FirstText != 0 || needed, Last: r.LastText, HasLast: r.LastText != 0 || needed,
			Prompt: r.PromptTokens, MaxTokens: r.MaxTokens, Warmup: r.Warmup || r.Preflight, Preflight: r.Preflight,
			// No count: an ok record's reads back as NoUsage, a failed
			// record's as no count (a failed request rarely gets usage, and
			// an unknown count is never written as 0).
			Completion: n, HasCompletion: !r.NoUsage && (r.Status == StatusOK || n != 0),
		}
		if r.Client != nil {
			l.HasClient, l.Client = true, jsonline.Client(*r.Client)
		}
		if err := jw.Write(&l, r.Status.String()); err != nil {
			return err
		}
	}
	return jw.Flush()
}
