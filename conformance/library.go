package conformance

import (
	"errors"
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// Record returns the request as the library's record: the text events'
// arrivals as its chunks (from the send; a failed request keeps the text
// it streamed before it failed, as the observer records it), the client's
// wait before the send, and the server's counts. An ok request without usage has
// NoUsage set (CompletionTokens 0, n unknown).
func (r *Request) Record() (llmmetrics.Record, error) {
	var st llmmetrics.Status
	if err := st.UnmarshalText([]byte(r.Status)); err != nil {
		return llmmetrics.Record{}, fmt.Errorf("request %s: %w", r.ID, err)
	}
	rec := llmmetrics.Record{ID: r.ID, Status: st, Message: r.Message, Warmup: r.Warmup, Sent: r.Sent, MaxTokens: r.MaxTokens}
	var tokens []int32
	counted := true
	for _, e := range r.Events {
		if e.Kind != KindText {
			continue
		}
		rec.Chunks = append(rec.Chunks, e.At-r.Sent)
		tokens = append(tokens, int32(e.Tokens))
		counted = counted && e.Tokens > 0
	}
	if counted && len(tokens) > 0 {
		rec.ChunkTokens = tokens
	}
	if r.CompletionTokens != nil {
		rec.CompletionTokens = *r.CompletionTokens
	} else if st == llmmetrics.StatusOK && len(rec.Chunks) > 0 {
		rec.NoUsage = true
	}
	if r.PromptTokens != nil {
		rec.PromptTokens = *r.PromptTokens
	}
	if r.Start != r.Sent {
		rec.Client = &llmmetrics.ClientSide{Wait: r.Sent - r.Start}
	}
	return rec, nil
}

// Records returns a case's requests as the library's records.
func (c *Case) Records() ([]llmmetrics.Record, error) {
	recs := make([]llmmetrics.Record, len(c.Requests))
	for i := range c.Requests {
		rec, err := c.Requests[i].Record()
		if err != nil {
			return nil, err
		}
		recs[i] = rec
	}
	return recs, nil
}

// LibraryOptions returns a case's options as the library's.
func (o Options) LibraryOptions() (llmmetrics.Options, error) {
	var m llmmetrics.Method
	if err := m.UnmarshalText([]byte(o.Method)); err != nil {
		return llmmetrics.Options{}, err
	}
	opt := llmmetrics.Options{Method: m, Window: o.Window}
	for _, p := range o.Percentiles {
		q, err := llmmetrics.NewPercentile(p)
		if err != nil {
			return llmmetrics.Options{}, err
		}
		opt.Percentiles = append(opt.Percentiles, q)
	}
	if s := o.SLO; s != nil {
		opt.SLO = &llmmetrics.SLO{TTFT: s.TTFT, TPOT: s.TPOT, E2E: s.E2E, MaxGap: s.MaxGap, Strict: s.Strict}
	}
	if o.WarmupRequests > 0 {
		opt.Warmup = &llmmetrics.WarmupSpec{Requests: o.WarmupRequests}
	}
	return opt, nil
}

// Library is the library itself as a Tool: each case's records through
// llmmetrics.Summarize and the per-record methods. It is the example of a
// Tool, and the library's own test runs every case through it.
func Library(c Case) (Figures, error) {
	recs, err := c.Records()
	if err != nil {
		return nil, err
	}
	opt, err := c.Options.LibraryOptions()
	if err != nil {
		return nil, err
	}
	f := Figures{}
	s, err := llmmetrics.Summarize(recs, opt)
	switch {
	case errors.Is(err, llmmetrics.ErrNoRecords):
		s = &llmmetrics.Summary{}
	case err != nil:
		return nil, err
	}
	count := func(name string, k int) { f[name] = Num(float64(k)) }
	a := s.Requests
	count("requests.offered", a.Offered)
	count("requests.ok", a.OK)
	count("requests.zero_token", a.ZeroToken)
	count("requests.failed", a.Failed)
	count("requests.warmup", a.Warmup)
	count("requests.one_token", a.OneToken)
	count("requests.no_token_count", a.Uncounted.Total())

	var tpot, itl *llmmetrics.Distribution
	if s.TPOT != nil {
		tpot = &s.TPOT.Distribution
		f["tpot_ms.gap_weighted_mean"] = millis(s.TPOT.GapWeightedMean)
	} else {
		f["tpot_ms.gap_weighted_mean"] = Absent
	}
	if s.ITL != nil {
		itl = &s.ITL.Distribution
	}
	distribution(f, "ttft_ms", s.TTFT, c.Options.Percentiles)
	distribution(f, "e2e_ms", s.E2E, c.Options.Percentiles)
	distribution(f, "tpot_ms", tpot, c.Options.Percentiles)
	distribution(f, "itl_ms", itl, c.Options.Percentiles)

	for _, name := range []string{"output_tokens_per_s", "prompt_tokens_per_s", "requests_per_s"} {
		f[name] = Absent
	}
	if t := s.Throughput; t != nil {
		if _, none := s.Absent["output_tokens_per_s"]; !none {
			f["output_tokens_per_s"] = Num(float64(t.OutputTokensPerSecond))
		}
		f["requests_per_s"] = Num(float64(t.RequestsPerSecond))
		if _, none := s.Absent["prompt_tokens_per_s"]; !none {
			f["prompt_tokens_per_s"] = Num(float64(t.PromptTokensPerSecond))
		}
	}
	if c.Options.SLO != nil {
		f["goodput.good"], f["goodput.attainment"], f["goodput.requests_per_s"] = Num(0), Absent, Absent
		if g := s.Goodput; g != nil {
			count("goodput.good", g.Good)
			f["goodput.attainment"] = Num(g.Attainment)
			if g.WindowErr == nil {
				f["goodput.requests_per_s"] = Num(float64(g.RequestsPerSecond))
			}
		}
	}

	for i := range recs {
		r := &recs[i]
		if r.Warmup {
			continue
		}
		fig := func(name string) string { return perRequest(r.ID, name) }
		// Each metric of the catalogue with a value per request: ttft_ms,
		// tpot_ms, e2e_ms, max_gap_ms.
		for _, m := range llmmetrics.Metrics() {
			if m.PerRequest {
				f[fig(m.Key+"_"+m.Unit)] = millisOf(m.Value(r))
			}
		}
		if tps, err := r.UserTPS(); err == nil {
			f[fig("user_tps")] = Num(float64(tps))
		} else {
			f[fig("user_tps")] = Absent
		}
	}
	return f, nil
}

// distribution sets a distribution's figures: n always, the others
// absent when d is nil.
func distribution(f Figures, name string, d *llmmetrics.Distribution, ps []float64) {
	f[name+".n"] = Num(0)
	for _, k := range []string{"mean", "min", "max"} {
		f[name+"."+k] = Absent
	}
	for _, p := range ps {
		f[name+"."+PercentileKey(p)] = Absent
	}
	if d == nil {
		return
	}
	f[name+".n"] = Num(float64(d.N))
	f[name+".mean"], f[name+".min"], f[name+".max"] = millis(d.Mean), millis(d.Min), millis(d.Max)
	for _, p := range ps {
		q, err := llmmetrics.NewPercentile(p)
		if err != nil {
			continue
		}
		if x, ok := d.At(q); ok {
			f[name+"."+PercentileKey(p)] = millis(x)
		}
	}
}

// millis is a duration as a figure in milliseconds.
func millis(d time.Duration) Value { return Num(float64(d) / 1e6) }

// millisOf is millis of a per-record method's result, absent on error.
func millisOf(d time.Duration, err error) Value {
	if err != nil {
		return Absent
	}
	return millis(d)
}
