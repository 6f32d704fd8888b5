package bounded

import (
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/exact"
	"github.com/llmmetrics/llmmetrics/internal/inflight"
)

// A tally is what the first pass counts of the records, as the root's
// tally, gatherer and okFacts count them.
type tally struct {
	a                       llmmetrics.Accounting
	span                    inflight.Span // the window: first send to last text
	outTokens, promptTokens int64
	nPrompt, nTPOT          int // ok records with a prompt count; with a TPOT by their count
	nTPOTOut                int // of nTPOT, the unstreamed
	decode                  exact.Sum128
	decodeGaps              int64 // the gap-weighted TPOT: Σ decode time / Σ (n − 1)
	noChunks, tokenBasis    int
	chunkBasis              int
	noCountChunks           int  // ok records with chunk arrivals but no usable count
	oneChunk                int  // unstreamed ok records of one chunk without a count
	client                  bool // a measured record carries client facts
	good                    llmmetrics.Goodput
}

// one tallies a valid record, judging an ok one against slo when it is
// not nil.
func (t *tally) one(r *llmmetrics.Record, slo *llmmetrics.SLO) error {
	a := &t.a
	a.Offered++
	switch r.Category() {
	case llmmetrics.CategoryWarmup:
		switch {
		case r.Unfinished:
			a.Unfinished++
		case r.Preflight:
			a.Preflight++
		default:
			a.Warmup++
		}
		return nil
	case llmmetrics.CategoryFailed:
		a.Failed++
		t.failed(r.Status)
	case llmmetrics.CategoryZeroToken:
		a.ZeroToken++
	case llmmetrics.CategoryOK:
		if err := t.ok(r, slo); err != nil {
			return err
		}
	}
	t.client = t.client || r.Client != nil
	t.span.AddStart(r.Sent)
	return nil
}

// failed counts a failed record by its status.
func (t *tally) failed(s llmmetrics.Status) {
	switch s {
	case llmmetrics.StatusError:
		t.a.Errors++
	case llmmetrics.StatusTimeout:
		t.a.Timeouts++
	case llmmetrics.StatusCancelled:
		t.a.Cancelled++
	}
}

// ok tallies an ok record.
func (t *tally) ok(r *llmmetrics.Record, slo *llmmetrics.SLO) error {
	a := &t.a
	a.OK++
	e2e, _ := r.E2E()
	t.span.AddEnd(r.Sent + e2e)
	t.promptTokens += int64(r.PromptTokens)
	if r.PromptTokens > 0 {
		t.nPrompt++
	}
	t.counts(r)
	t.basis(r)
	if slo == nil {
		return nil
	}
	return t.judge(r, *slo)
}

// counts tallies an ok record by its token count.
func (t *tally) counts(r *llmmetrics.Record) {
	a := &t.a
	un := unstreamed(r)
	if un {
		a.Unstreamed++
	}
	switch st := r.CountState(); {
	case st != llmmetrics.CountKnown:
		switch st {
		case llmmetrics.CountNoUsage:
			a.Uncounted.NoUsage++
		case llmmetrics.CountZeroUsage:
			a.Uncounted.ZeroUsage++
		default:
			a.Uncounted.BelowChunks++
		}
		switch {
		case !un:
			t.noCountChunks += min(len(r.Chunks), 1) // with chunks: unknown basis
		case r.Client == nil || !r.Client.OneBody:
			t.oneChunk++ // may have held one token
		}
	case r.CompletionTokens >= 2:
		t.outTokens += int64(r.CompletionTokens)
		t.nTPOT++
		if un {
			t.nTPOTOut++
			return
		}
		first, _ := r.TTFT()
		last, _ := r.E2E()
		t.decode.Add(int64(last - first))
		t.decodeGaps += int64(r.CompletionTokens - 1)
	default:
		t.outTokens += int64(r.CompletionTokens)
		a.OneToken++
	}
}

// basis tallies an ok record by the basis of its gaps.
func (t *tally) basis(r *llmmetrics.Record) {
	switch b, _ := r.GapBasis(); {
	case len(r.Chunks) == 0:
		t.noChunks++
	case unstreamed(r): // its one chunk: no gap, no basis
	case b == llmmetrics.BasisToken:
		t.tokenBasis++
	default:
		t.chunkBasis++
	}
}

// judge judges an ok record against slo, as the root's SLO.judge does:
// a TPOT limit does not apply to a record of one counted token, and
// leaves one without a usable count unjudged (Goodput.Unjudged),
// nor a max_gap limit to one without two chunks; an unstreamed answer is
// judged on its first text and its TPOT, which its text at once makes 0.
func (t *tally) judge(r *llmmetrics.Record, slo llmmetrics.SLO) error {
	if slo.MaxGap > 0 && len(r.Chunks) == 0 {
		return fmt.Errorf("%w: a max_gap limit needs chunk arrivals", llmmetrics.ErrNoChunks)
	}
	v, has := values(r)
	v[sampleTTFT], _ = r.TTFT()
	has[sampleTPOT] = hasTPOT(r) && !unstreamed(r) // text at once: no TPOT
	if has[sampleTPOT] {
		v[sampleTPOT], _ = r.TPOT()
	}
	g := &t.good
	// An unstreamed TPOT is 0, and max_tokens 1 leaves none: a limit met.
	noCount := r.CountState() != llmmetrics.CountKnown && !unstreamed(r) && r.MaxTokens != 1
	if !has[sampleTPOT] && !noCount {
		g.TPOTNotApplicable++
	}
	if !has[sampleMaxGap] {
		g.GapNotApplicable++
	}
	good := true
	for _, l := range [...]struct {
		i      int
		limit  time.Duration
		failed *int
	}{{sampleTTFT, slo.TTFT, &g.FailedTTFT}, {sampleTPOT, slo.TPOT, &g.FailedTPOT}, {sampleE2E, slo.E2E, &g.FailedE2E}, {sampleMaxGap, slo.MaxGap, &g.FailedMaxGap}} {
		if (l.i == sampleTTFT || has[l.i]) && !within(slo, v[l.i], l.limit) {
			*l.failed++
			good = false
		}
	}
	switch {
	case good && slo.TPOT > 0 && noCount:
		g.Unjudged++ // its TPOT unknown, as the root's judgeTimes
	case good:
		g.Good++
	}
	return nil
}

// within says whether v meets a limit of slo (none when 0).
func within(slo llmmetrics.SLO, v, limit time.Duration) bool {
	switch {
	case limit == 0:
		return true
	case slo.Strict:
		return v < limit
	}
	return v <= limit
}
