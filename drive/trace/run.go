package trace

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// readRun reads a run file of llmmetrics: each ok request that was not a
// preflight request (the warm-up's included: it was sent) becomes a row
// at its send time, with the prompt and completion tokens of its usage.
// The file is written as requests end; the rows are put in send order.
// A request whose answer came at once, not streamed, is marked so
// (Row.Unstreamed). An ok request without usage has no lengths: it is left out and counted
// in the Trace's NoUsage, unless every one lacks it (an error). A file
// whose records carry no send times (no sent_ns) is an error too.
func readRun(r io.Reader, b *builder) error {
	run, err := llmmetrics.ReadJSONL(r)
	if err != nil {
		return fmt.Errorf("%s: %w", b.t.File, err)
	}
	if run.NoSendTimes {
		return &Error{File: b.t.File, Line: run.Lines[0], Field: "sent_ns",
			Err: fmt.Errorf("%w: no record gives its send time, which a replay sends at", ErrMissing)}
	}
	type sent struct {
		rec  *llmmetrics.Record
		line int
	}
	var ok []sent
	for i := range run.Records {
		rec := &run.Records[i]
		if rec.Status == llmmetrics.StatusOK && !rec.Preflight {
			ok = append(ok, sent{rec, run.Lines[i]})
		}
	}
	slices.SortStableFunc(ok, func(a, b sent) int { return cmp.Compare(a.rec.Sent, b.rec.Sent) })
	first := 0 // the line of the first ok request without usage
	b.t.NoUsageWhy = noUsageWhy(run.Header)
	for _, s := range ok {
		rec := s.rec
		row := Row{At: rec.Sent, Prompt: rec.PromptTokens, Output: rec.CompletionTokens, Line: s.line, Unstreamed: unstreamed(rec)}
		if rec.NoUsage { // no lengths to replay: left out, counted
			if b.t.NoUsage++; first == 0 {
				first = s.line
			}
			continue
		}
		at := field{"sent_ns", strconv.FormatInt(int64(rec.Sent), 10)}
		pt := field{"prompt_tokens", strconv.Itoa(rec.PromptTokens)}
		ct := field{"completion_tokens", strconv.Itoa(rec.CompletionTokens)}
		if err := b.add(row, at, pt, ct); err != nil {
			return err
		}
		if rec.Client != nil && rec.Client.Turn > 0 {
			b.t.SessionTurns++
		}
		if row.Unstreamed {
			b.t.Unstreamed++
		}
	}
	if len(ok) > 0 && b.t.NoUsage == len(ok) {
		which := fmt.Sprintf("any of the %d ok requests", len(ok))
		if len(ok) == 1 {
			which = "the one ok request"
		}
		return &Error{File: b.t.File, Line: first, Field: "completion_tokens",
			Err: fmt.Errorf("%w: the server gave no usage for %s: %s", ErrMissing, which, b.t.NoUsageWhy)}
	}
	return nil
}

// gatewayTool begins the tool of a run header written by the recording
// gateway (examples/gateway).
const gatewayTool = "llmmetrics examples/gateway"

// noUsageWhy says why a run file's ok requests lack usage, and what to
// do, by the tool its header names: the gateway records usage only where
// the client asked for it, or with its --include-usage; llmmetrics run
// asks for it on chat and completions, so a server that sent none (or a
// --body that turned it off) is the cause.
func noUsageWhy(h *llmmetrics.RunHeader) string {
	switch {
	case h == nil:
		return "the file has no run header to say what recorded it; a file of the gateway needs its --include-usage"
	case strings.HasPrefix(h.Tool, gatewayTool):
		return "record with the gateway's --include-usage"
	case strings.HasPrefix(h.Tool, "llmmetrics"):
		return "the server sent no usage in its answers to llmmetrics run (a server that ignores stream_options.include_usage, or a --body that turned it off)"
	}
	return fmt.Sprintf("the server sent no usage in the answers %s recorded", h.Tool)
}

// unstreamed says whether production made an ok request without
// streaming, by the rule of the llmmetrics package's reports (an answer
// they leave out of TTFT and TPOT as not streamed): two or more tokens by
// a server count its chunks do not contradict, and its text came at once,
// in one chunk or, without chunk arrivals, its first text when its last
// came. One token's answer comes at once streamed or not: it is streamed.
func unstreamed(rec *llmmetrics.Record) bool {
	if rec.CompletionTokens < 2 || rec.CountState() != llmmetrics.CountKnown {
		return false
	}
	if len(rec.Chunks) > 0 {
		return len(rec.Chunks) == 1
	}
	return rec.FirstText == rec.LastText
}
