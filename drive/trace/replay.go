package trace

import (
	"fmt"
	"math"
	"time"

	"github.com/llmmetrics/llmmetrics/drive"
)

// Options choose what of a trace is replayed, and how.
type Options struct {
	// From and To cut a window of the trace: the rows at From ≤ At < To
	// (To 0: to the end). Rows keeps at most the first Rows of it (0: all).
	From, To time.Duration
	Rows     int
	// Speed scales time by 1/Speed (2 replays twice as fast); 0 is 1.
	Speed float64
	// ScaleTokens multiplies every prompt and output length, rounded to
	// the nearest whole token and at least 1; 0 is 1.
	ScaleTokens float64
	// MaxPrompt and MaxOutput cap the lengths a server cannot take (after
	// ScaleTokens); 0: no cap. Each row capped is counted.
	MaxPrompt, MaxOutput int
	// Stream sends every row streamed, those a run file marks
	// Unstreamed too (each counted in Replay.Restreamed): a TTFT for
	// every call, at the cost of a workload production did not send.
	Stream bool
}

// A Replay is a window of a trace ready to send.
type Replay struct {
	// Requests are the rows of the window, in order: each one due at its
	// time from the window's first row, divided by Speed (rounded to the
	// nanosecond), with its lengths scaled and capped, its prefix blocks
	// and its file and line as Source.
	Requests []drive.Request
	// CappedPrompt and CappedOutput count the rows whose prompt or output
	// was capped; Capped the rows with either.
	CappedPrompt, CappedOutput, Capped int
	// Unstreamed counts the requests sent without streaming, as the run
	// file's rows were made (Row.Unstreamed); Restreamed those rows sent
	// streamed all the same (Options.Stream).
	Unstreamed, Restreamed int
	// First is the window's first row's time in the trace, Span the time
	// from it to the last row's, both before Speed.
	First, Span time.Duration
	Speed       float64 // the Options' Speed (1 for 0)
	// BlockTokens is the tokens of a prefix block (Row.Blocks) after
	// ScaleTokens: BlockTokens, 512, scaled like the lengths so that the
	// blocks still share exactly; 0 when no row of the window has blocks.
	BlockTokens int
}

// BlockTokens is the tokens of one of Mooncake's prefix-cache blocks
// (hash_ids).
const BlockTokens = 512

// MeanRate is the replay's requests a second, as sent: (n−1) over the
// time from the first to the last; n a second when they all come at once.
func (r *Replay) MeanRate() float64 {
	n := len(r.Requests)
	if r.Span <= 0 || n < 2 {
		return float64(n)
	}
	return float64(n-1) * r.Speed / r.Span.Seconds()
}

// Replay returns the window of the trace that o chooses, ready to send.
// A window without a row is an error naming the file.
func (t *Trace) Replay(o Options) (*Replay, error) {
	speed, scale := o.Speed, o.ScaleTokens
	if speed == 0 {
		speed = 1
	}
	if scale == 0 {
		scale = 1
	}
	if !(speed > 0) || math.IsInf(speed, 0) || !(scale > 0) || math.IsInf(scale, 0) || o.Rows < 0 || o.MaxPrompt < 0 || o.MaxOutput < 0 || o.From < 0 || o.To < 0 {
		return nil, fmt.Errorf("trace: speed %v, token scale %v, rows %d and caps %d, %d: want positive numbers (0 for none)", o.Speed, o.ScaleTokens, o.Rows, o.MaxPrompt, o.MaxOutput)
	}
	var rows []Row
	for _, r := range t.Rows {
		if r.At >= o.From && (o.To == 0 || r.At < o.To) {
			rows = append(rows, r)
			if o.Rows > 0 && len(rows) == o.Rows {
				break
			}
		}
	}
	if len(rows) == 0 {
		to := "the end"
		if o.To > 0 {
			to = o.To.String()
		}
		return nil, &Error{File: t.File, Field: fmt.Sprintf("window %v to %s", o.From, to),
			Err: fmt.Errorf("%w in it: the rows run from %v to %v", ErrEmptyWindow, t.Rows[0].At, t.Rows[len(t.Rows)-1].At)}
	}
	out := &Replay{Speed: speed, First: rows[0].At, Span: rows[len(rows)-1].At - rows[0].At, Requests: make([]drive.Request, len(rows))}
	for i, r := range rows {
		off := r.At - out.First
		if speed != 1 {
			off = time.Duration(math.Round(float64(off) / speed))
		}
		prompt, output := scaled(r.Prompt, scale), scaled(r.Output, scale)
		cp, co := o.MaxPrompt > 0 && prompt > o.MaxPrompt, o.MaxOutput > 0 && output > o.MaxOutput
		if cp {
			prompt = o.MaxPrompt
			out.CappedPrompt++
		}
		if co {
			output = o.MaxOutput
			out.CappedOutput++
		}
		if cp || co {
			out.Capped++
		}
		if len(r.Blocks) > 0 {
			out.BlockTokens = scaled(BlockTokens, scale)
		}
		out.Requests[i] = drive.Request{Scheduled: off, HasSchedule: true, PromptTokens: prompt, MaxTokens: output, PrefixBlocks: r.Blocks, Source: t.source(r)}
		out.stream(&out.Requests[i], r, o.Stream)
	}
	return out, nil
}

// scaled returns n·f rounded, at least 1.
func scaled(n int, f float64) int {
	if f == 1 {
		return n
	}
	return max(1, int(math.Round(float64(n)*f)))
}

// stream marks request q of row r unstreamed as the row was made, unless
// every request is streamed, and counts it.
func (out *Replay) stream(q *drive.Request, r Row, all bool) {
	switch {
	case !r.Unstreamed:
	case all:
		out.Restreamed++
	default:
		q.Unstreamed = true
		out.Unstreamed++
	}
}
