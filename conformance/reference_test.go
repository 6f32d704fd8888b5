package conformance

import (
	"math/big"
	"slices"
	"strconv"
	"time"
)

// This file is the plain reference: the specification's definitions
// computed straight from a case's stream events, in exact rational
// arithmetic (math/big), with no code from the library. It is slow and
// simple on purpose. The generated breadth cases take their expected
// figures from it, and every hand-written case is checked against it.

// rat is an exact number; nil means absent.
type rat = *big.Rat

func ri(x int64) rat { return new(big.Rat).SetInt64(x) }

func add(a, b rat) rat { return new(big.Rat).Add(a, b) }
func sub(a, b rat) rat { return new(big.Rat).Sub(a, b) }
func mul(a, b rat) rat { return new(big.Rat).Mul(a, b) }
func quo(a, b rat) rat { return new(big.Rat).Quo(a, b) }

// nsToMS turns nanoseconds into milliseconds.
func nsToMS(x rat) rat { return quo(x, ri(1_000_000)) }

// refRequest is what the reference knows of one measured request.
type refRequest struct {
	r          Request
	category   string // ok, zero_token, failed, warmup
	text       []time.Duration
	n          int  // the usable token count
	hasCount   bool // usage gave a count that fits the text chunks
	hasTPOT    bool // hasCount and n ≥ 2
	// unstreamed: n ≥ 2 tokens by a usable count in one text chunk. The
	// text came at once, so the request has an E2E but no time to first
	// token and no time per token (specification 000, the client
	// boundary: a response delivered whole cannot reveal TTFT).
	unstreamed bool
	ttft, e2e  time.Duration
	decode     time.Duration // last text − first text
	maxGap     time.Duration
	hasMaxGaps bool
}

func classifyRef(r Request, warm bool) refRequest {
	q := refRequest{r: r, text: r.TextTimes()}
	switch {
	case warm:
		q.category = "warmup"
	case r.Status != "ok":
		q.category = "failed"
	case len(q.text) == 0:
		q.category = "zero_token"
	default:
		q.category = "ok"
		q.ttft = q.text[0] - r.Sent
		q.e2e = q.text[len(q.text)-1] - r.Sent
		q.decode = q.text[len(q.text)-1] - q.text[0]
		if r.CompletionTokens != nil && *r.CompletionTokens >= len(q.text) {
			q.n, q.hasCount = *r.CompletionTokens, true
		}
		q.hasTPOT = q.hasCount && q.n >= 2
		q.unstreamed = q.hasTPOT && len(q.text) == 1
		for i := 1; i < len(q.text); i++ {
			if g := q.text[i] - q.text[i-1]; !q.hasMaxGaps || g > q.maxGap {
				q.maxGap, q.hasMaxGaps = g, true
			}
		}
	}
	return q
}

// warmupSet marks the case's warm-up requests: those flagged, and the
// first N of the others in send order (a request sent at the same instant
// as the first one measured is measured).
func warmupSet(c Case) []bool {
	warm := make([]bool, len(c.Requests))
	var sent []time.Duration
	for i, r := range c.Requests {
		warm[i] = r.Warmup
		if !r.Warmup {
			sent = append(sent, r.Sent)
		}
	}
	if n := c.Options.WarmupRequests; n > 0 && len(sent) > 0 {
		slices.Sort(sent)
		cut := sent[len(sent)-1] + 1
		if n < len(sent) {
			cut = sent[n]
		}
		for i, r := range c.Requests {
			if r.Sent < cut {
				warm[i] = true
			}
		}
	}
	return warm
}

// refDistribution sets the figures of one sample of durations.
func refDistribution(set func(string, rat), name string, xs []time.Duration, o Options) {
	rs := make([]rat, len(xs))
	for i, x := range xs {
		rs[i] = ri(int64(x))
	}
	refRatDistribution(set, name, rs, o)
}

// reference computes every figure of a case from its inputs, as exact
// rationals (nil: absent).
func reference(c Case) map[string]rat {
	out := map[string]rat{}
	set := func(name string, x rat) { out[name] = x }
	count := func(name string, k int) { set(name, ri(int64(k))) }
	warm := warmupSet(c)
	var all []refRequest
	cnt := map[string]int{}
	oneToken, noCount := 0, 0
	for i, r := range c.Requests {
		q := classifyRef(r, warm[i])
		all = append(all, q)
		cnt[q.category]++
		if q.category == "ok" {
			if !q.hasCount {
				noCount++
			} else if q.n == 1 {
				oneToken++
			}
		}
	}
	count("requests.offered", len(c.Requests))
	for _, k := range []string{"ok", "zero_token", "failed", "warmup"} {
		count("requests."+k, cnt[k])
	}
	count("requests.one_token", oneToken)
	count("requests.no_token_count", noCount)

	var ttft, e2e, gaps []time.Duration
	var tpots []rat // exact per-request TPOT (ns)
	decodeSum, gapSum := ri(0), ri(0)
	outTokens, promptTokens, prompts := int64(0), int64(0), 0
	for _, q := range all {
		if q.category == "warmup" {
			continue
		}
		id := q.r.ID
		fig := func(f string) string { return perRequest(id, f) }
		for _, f := range []string{"ttft_ms", "e2e_ms", "tpot_ms", "user_tps", "max_gap_ms"} {
			set(fig(f), nil)
		}
		if q.category != "ok" {
			continue
		}
		e2e = append(e2e, q.e2e)
		set(fig("e2e_ms"), nsToMS(ri(int64(q.e2e))))
		if !q.unstreamed {
			ttft = append(ttft, q.ttft)
			set(fig("ttft_ms"), nsToMS(ri(int64(q.ttft))))
		}
		if q.hasMaxGaps {
			set(fig("max_gap_ms"), nsToMS(ri(int64(q.maxGap))))
			for i := 1; i < len(q.text); i++ {
				gaps = append(gaps, q.text[i]-q.text[i-1])
			}
		}
		if q.hasTPOT && !q.unstreamed {
			tp := quo(ri(int64(q.decode)), ri(int64(q.n-1)))
			tpots = append(tpots, tp)
			set(fig("tpot_ms"), nsToMS(tp))
			if q.decode > 0 {
				set(fig("user_tps"), quo(mul(ri(int64(q.n-1)), ri(1e9)), ri(int64(q.decode))))
			}
			decodeSum = add(decodeSum, ri(int64(q.decode)))
			gapSum = add(gapSum, ri(int64(q.n-1)))
		}
		if q.hasCount {
			outTokens += int64(q.n)
		}
		if q.r.PromptTokens != nil {
			promptTokens += int64(*q.r.PromptTokens)
			prompts++
		}
	}
	o := c.Options
	refDistribution(set, "ttft_ms", ttft, o)
	refDistribution(set, "e2e_ms", e2e, o)
	refDistribution(set, "itl_ms", gaps, o)
	refRatDistribution(set, "tpot_ms", tpots, o)
	if len(tpots) > 0 {
		set("tpot_ms.gap_weighted_mean", nsToMS(quo(decodeSum, gapSum)))
	} else {
		set("tpot_ms.gap_weighted_mean", nil)
	}

	// The window: declared, or from the first measured send to the last
	// text chunk of an ok request.
	var window rat
	if o.Window > 0 {
		window = ri(int64(o.Window))
	} else {
		var start, end time.Duration
		haveStart, haveEnd := false, false
		for _, q := range all {
			if q.category == "warmup" {
				continue
			}
			if !haveStart || q.r.Sent < start {
				start, haveStart = q.r.Sent, true
			}
			if q.category == "ok" {
				if e := q.r.Sent + q.e2e; !haveEnd || e > end {
					end, haveEnd = e, true
				}
			}
		}
		if haveEnd && end > start {
			window = ri(int64(end - start))
		}
	}
	perSecond := func(k int64) rat {
		if window == nil {
			return nil
		}
		return quo(mul(ri(k), ri(1e9)), window)
	}
	set("output_tokens_per_s", perSecond(outTokens))
	set("requests_per_s", perSecond(int64(cnt["ok"])))
	if prompts > 0 {
		set("prompt_tokens_per_s", perSecond(promptTokens))
	} else {
		set("prompt_tokens_per_s", nil)
	}

	if s := o.SLO; s != nil {
		within := func(x, limit time.Duration) bool {
			if limit == 0 {
				return true
			}
			if s.Strict {
				return x < limit
			}
			return x <= limit
		}
		good, judged := 0, 0
		for _, q := range all {
			if q.category == "warmup" {
				continue
			}
			judged++
			if q.category != "ok" {
				continue
			}
			ok := within(q.ttft, s.TTFT) && within(q.e2e, s.E2E)
			if q.hasTPOT && s.TPOT > 0 {
				// TPOT exact: decode/(n − 1) against the limit, as
				// decode against limit·(n − 1).
				lim := s.TPOT * time.Duration(q.n-1)
				if s.Strict {
					ok = ok && q.decode < lim
				} else {
					ok = ok && q.decode <= lim
				}
			}
			if q.hasMaxGaps {
				ok = ok && within(q.maxGap, s.MaxGap)
			}
			if ok {
				good++
			}
		}
		count("goodput.good", good)
		if judged > 0 {
			set("goodput.attainment", quo(ri(int64(good)), ri(int64(judged))))
		} else {
			set("goodput.attainment", nil)
		}
		set("goodput.requests_per_s", perSecond(int64(good)))
	}
	return out
}

// refRatDistribution sets the figures of one sample of exact values (ns):
// its size, mean, extremes and percentiles by the case's method.
func refRatDistribution(set func(string, rat), name string, xs []rat, o Options) {
	set(name+".n", ri(int64(len(xs))))
	keys := []string{"mean", "min", "max"}
	for _, p := range o.Percentiles {
		keys = append(keys, PercentileKey(p))
	}
	if len(xs) == 0 {
		for _, k := range keys {
			set(name+"."+k, nil)
		}
		return
	}
	sorted := slices.Clone(xs)
	slices.SortFunc(sorted, func(a, b rat) int { return a.Cmp(b) })
	sum := ri(0)
	for _, x := range xs {
		sum = add(sum, x)
	}
	n := int64(len(xs))
	set(name+".mean", nsToMS(quo(sum, ri(n))))
	set(name+".min", nsToMS(sorted[0]))
	set(name+".max", nsToMS(sorted[n-1]))
	for _, p := range o.Percentiles {
		pr, _ := new(big.Rat).SetString(strconv.FormatFloat(p, 'f', -1, 64))
		var x rat
		if o.Method == "linear" {
			pos := quo(mul(ri(n-1), pr), ri(100))
			lo := new(big.Int).Quo(pos.Num(), pos.Denom()).Int64()
			if lo+1 >= n {
				x = sorted[n-1]
			} else {
				x = add(sorted[lo], mul(sub(pos, ri(lo)), sub(sorted[lo+1], sorted[lo])))
			}
		} else {
			y := quo(mul(pr, ri(n)), ri(100))
			rank := new(big.Int).Quo(y.Num(), y.Denom()).Int64()
			if !y.IsInt() {
				rank++
			}
			x = sorted[max(rank, 1)-1]
		}
		set(name+"."+PercentileKey(p), nsToMS(x))
	}
}

// toFigures rounds the reference's exact figures to float64.
func toFigures(m map[string]rat) Figures {
	f := Figures{}
	for k, x := range m {
		if x == nil {
			f[k] = Absent
			continue
		}
		y, _ := x.Float64()
		f[k] = Num(y)
	}
	return f
}
