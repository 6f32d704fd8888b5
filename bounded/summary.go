package bounded

import (
	"fmt"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/reason"
)

// Absent's keys, as the root's catalogue names the metrics: it lists
// TTFT, TPOT, E2E, ITL and the largest gap first (see llmmetrics.Metrics).
var keyTTFT, keyTPOT, keyE2E, keyITL, keyMaxGap = metricKeys()

func metricKeys() (ttft, tpot, e2e, itl, maxGap string) {
	m := llmmetrics.Metrics()
	return m[0].Key, m[1].Key, m[2].Key, m[3].Key, m[4].Key
}

// summary puts the tally and the distributions together as the root's
// summarize does.
func (rd *reader) summary(ps []llmmetrics.Percentile, ds [nSamples]*llmmetrics.Distribution) *llmmetrics.Summary {
	opt, t, file := rd.opt.Options, &rd.t, rd.whole()
	if opt.Window == 0 {
		opt.Window = file.window
	}
	opt.NoSendTimes = opt.NoSendTimes || file.noSendTimes
	s := &llmmetrics.Summary{Method: opt.Method, Percentiles: ps, Requests: t.a, Absent: map[string]string{}, Notes: opt.Notes}
	s.Rejected = rd.asides.rejected()
	s.TTFT, s.E2E, s.MaxGap = ds[sampleTTFT], ds[sampleE2E], ds[sampleMaxGap]
	if d := ds[sampleTPOT]; d != nil {
		s.TPOT = &llmmetrics.TPOTStats{Distribution: *d, GapWeightedMean: t.decode.DivRound(t.decodeGaps), Excluded: t.a.OneToken}
	}
	if d := ds[sampleITL]; d != nil {
		s.ITL = t.itl(d)
	}
	t.absentLatencies(s)
	for _, k := range []string{"workload", "workload.prompt", "workload.output", "workload.arrivals", "workload.concurrency", "workload.early_stop"} {
		s.Absent[k] = NotComputed
	}
	if t.client {
		s.Absent["client"] = NotComputed
	}
	w, werr := t.rates(s, opt)
	if opt.SLO != nil {
		t.goodput(s, w, werr, *opt.SLO)
	}
	s.Header = file.header
	s.Completeness = completeness(file.header, file.end, file.cut, t.a.Offered)
	if e := file.end; e != nil && len(e.Notes) > 0 {
		s.Notes = append(s.Notes[:len(s.Notes):len(s.Notes)], e.Notes...)
	}
	return s
}

// itl returns the pooled gaps' figures: their distribution d and the
// basis of the requests pooled, those without a usable count apart.
func (t *tally) itl(d *llmmetrics.Distribution) *llmmetrics.ITLStats {
	it := &llmmetrics.ITLStats{Distribution: *d, NoChunks: t.noChunks, TokenBasis: t.tokenBasis, ChunkBasis: t.chunkBasis}
	if it.ChunkBasis > 0 {
		it.Basis = llmmetrics.BasisChunk
	}
	it.ChunkBasis -= t.noCountChunks
	it.UnknownBasis = t.noCountChunks
	return it
}

// absentLatencies says why each latency is absent, or leaves out some
// ok requests, in the root's words.
func (t *tally) absentLatencies(s *llmmetrics.Summary) {
	a := &t.a
	if a.OK == 0 {
		why := "no ok request"
		if measured(a) == 0 {
			why = nothingMeasured(a)
		}
		s.Absent[keyTTFT], s.Absent[keyE2E] = why, why
	} else if a.OK == a.Unstreamed {
		s.Absent[keyTTFT] = "every ok request's text came at once (" + reason.AtOnce(t.oneChunk) + "), so it has no time to first token or per token"
	}
	t.absentTPOT(s)
	if s.ITL == nil && a.OK > 0 {
		s.Absent[keyITL] = reason.NoGaps(a.OK, t.noChunks)
		s.Absent[keyMaxGap] = s.Absent[keyITL]
	}
	if n := a.Unstreamed; n > 0 && s.TTFT != nil {
		s.Absent[keyTTFT+"_unstreamed"] = fmt.Sprintf("%d of the %d ok requests left out: their text came at once (%s), so they have no time to first token", n, a.OK, reason.AtOnce(t.oneChunk))
	}
	if n := t.nTPOTOut; n > 0 && s.TPOT != nil {
		s.TPOT.Unstreamed, s.Absent[keyTPOT+"_unstreamed"] = n, fmt.Sprintf("%d of the %d ok requests of two or more counted tokens left out: their text came at once (not streamed), so they have no time per token", n, t.nTPOT)
	}
}

// absentTPOT says why TPOT is absent, in the root's words.
func (t *tally) absentTPOT(s *llmmetrics.Summary) {
	a := &t.a
	switch {
	case s.TPOT != nil:
	case t.nTPOT > 0: // every one unstreamed
		s.Absent[keyTPOT] = fmt.Sprintf("no ok request has two or more output tokens by a server count that were streamed (%d one-token requests, %d without a usable count, %d whose text came at once)",
			a.OneToken, a.Uncounted.Total(), a.Unstreamed)
	case a.OK > 0 && a.Uncounted.Total() > 0:
		s.Absent[keyTPOT] = fmt.Sprintf("no ok request has two or more output tokens by a server count (%d one-token requests, %d without a usable count)", a.OneToken, a.Uncounted.Total())
	case a.OK > 0:
		s.Absent[keyTPOT] = fmt.Sprintf("no ok request has two or more output tokens (%d one-token requests)", a.OneToken)
	}
}

// measured is the number of valid measured records.
func measured(a *llmmetrics.Accounting) int {
	return a.Offered - a.Warmup - a.Preflight - a.Unfinished - a.Rejected
}

// nothingMeasured is why a figure of a run without a measured request is
// absent, in the root's words.
func nothingMeasured(a *llmmetrics.Accounting) string {
	if a.Unfinished > 0 {
		return "no request was measured: every record is preflight, warm-up, unfinished at the run's end or rejected"
	}
	return "no request was measured: every record is preflight, warm-up or rejected"
}

// rates sets the throughput over the run's window, or says why it is
// absent, and returns the window and why there is none, as the root's
// Summary.rates does.
func (t *tally) rates(s *llmmetrics.Summary, opt llmmetrics.Options) (llmmetrics.Window, error) {
	a := &t.a
	w, werr := t.window(opt)
	switch {
	case werr == nil:
		s.Throughput = t.throughput(w)
		if t.promptTokens == 0 {
			s.Absent["prompt_tokens_per_s"] = "no ok record carries a prompt token count"
		}
		if a.OK > 0 && s.Throughput.CountedRequests == 0 {
			s.Absent["output_tokens_per_s"] = "no ok request has an output token count (" + why(a.Uncounted) + ")"
		}
	case measured(a) == 0 && opt.Window == 0:
		s.Absent["throughput"] = nothingMeasured(a)
	default:
		s.Absent["throughput"] = strings.TrimPrefix(werr.Error(), llmmetrics.ErrInvalidWindow.Error()+": ")
	}
	return w, werr
}

// window returns the run's window: declared, or from the first send of a
// measured request to the last text of an ok one.
func (t *tally) window(opt llmmetrics.Options) (llmmetrics.Window, error) {
	const declare = "; declare one (report --window; Options.Window in Go)"
	switch {
	case opt.Window > 0:
		return llmmetrics.Window{Length: opt.Window, Declared: true}, nil
	case opt.NoSendTimes:
		return llmmetrics.Window{}, fmt.Errorf("%w: the records carry no send times, so no window can be derived"+declare, llmmetrics.ErrInvalidWindow)
	case !t.span.HasEnd:
		return llmmetrics.Window{}, fmt.Errorf("%w: no ok request received text, so the window has no end"+declare, llmmetrics.ErrInvalidWindow)
	}
	w := llmmetrics.Window{Length: t.span.End - t.span.Start, Start: t.span.Start, End: t.span.End}
	if w.Length <= 0 {
		return llmmetrics.Window{}, fmt.Errorf("%w: the first send and the last text chunk are %v apart"+declare, llmmetrics.ErrInvalidWindow, w.Length)
	}
	return w, nil
}

// throughput returns the rates of the counted totals over w.
func (t *tally) throughput(w llmmetrics.Window) *llmmetrics.Throughput {
	a, sec := &t.a, w.Length.Seconds()
	return &llmmetrics.Throughput{
		Window:                w,
		Requests:              a.OK,
		CountedRequests:       a.OK - a.Uncounted.Total(),
		PromptCountedRequests: t.nPrompt,
		OutputTokens:          t.outTokens,
		PromptTokens:          t.promptTokens,
		OutputTokensPerSecond: llmmetrics.OutputTokenRate(float64(t.outTokens) / sec),
		PromptTokensPerSecond: llmmetrics.PromptTokenRate(float64(t.promptTokens) / sec),
		RequestsPerSecond:     llmmetrics.RequestRate(float64(a.OK) / sec),
	}
}

// goodput sets the goodput of the measured requests against slo, or says
// why it is absent, as the root's Summary.goodput does.
func (t *tally) goodput(s *llmmetrics.Summary, w llmmetrics.Window, werr error, slo llmmetrics.SLO) {
	a := &t.a
	measured := a.Offered - a.Warmup - a.Preflight - a.Unfinished
	switch {
	case measured > 0:
		g := t.good
		g.SLO, g.Offered = slo, measured
		g.Attainment = float64(g.Good) / float64(measured)
		g.Window, g.WindowErr = w, werr
		if werr == nil {
			g.RequestsPerSecond = llmmetrics.RequestRate(float64(g.Good) / w.Length.Seconds())
		} else {
			s.Absent["goodput.requests_per_s"] = strings.TrimPrefix(werr.Error(), llmmetrics.ErrInvalidWindow.Error()+": ")
		}
		s.Goodput = &g
	case a.Unfinished > 0:
		s.Absent["goodput"] = "every request was warm-up, preflight or unfinished at the run's end: none was judged"
	default:
		s.Absent["goodput"] = "every request was warm-up or preflight: none was judged"
	}
}

// why names the reasons of the uncounted requests, as the root's
// Uncounted.why does: "no usage", "2 no usage, 1 usage of zero".
func why(u llmmetrics.Uncounted) string {
	var out []string
	for _, c := range [...]struct {
		n    int
		what string
	}{{u.NoUsage, "no usage"}, {u.ZeroUsage, "usage of zero"}, {u.BelowChunks, "count below the chunks"}} {
		switch {
		case c.n == u.Total():
			out = append(out, fmt.Sprintf("%d with %s", c.n, c.what))
		case c.n > 0:
			out = append(out, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return strings.Join(out, ", ")
}
