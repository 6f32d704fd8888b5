package llmmetrics

import (
	"fmt"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// An SLO is a per-request service-level objective: limits on TTFT, TPOT,
// E2E and the largest chunk gap, judged jointly on each request. A zero
// limit means no limit, so SLO{} is met by every successful request.
//
// A limit is met when the value is at most the limit (≤); with Strict, only
// when it is below it (<). The specification uses both forms.
type SLO struct {
	TTFT   time.Duration
	TPOT   time.Duration
	E2E    time.Duration
	MaxGap time.Duration // the request's largest gap between text chunks; needs chunk arrivals
	Strict bool
}

// ParseSLO parses limits written as "ttft=500ms,tpot=50ms,e2e=5s,max_gap=1s"
// (any subset, Go duration syntax). It returns ErrInvalidSLO for an unknown
// key, a repeated key or a limit that is not positive.
func ParseSLO(s string) (SLO, error) {
	var slo SLO
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok {
			return SLO{}, fmt.Errorf("%w: %q is not key=duration", ErrInvalidSLO, f)
		}
		m, _ := metricByKey(key)
		dst := m.limit(&slo)
		if dst == nil {
			return SLO{}, fmt.Errorf("%w: unknown key %q (want %s)", ErrInvalidSLO, key, sloKeys())
		}
		if seen[key] {
			return SLO{}, fmt.Errorf("%w: %s given twice", ErrInvalidSLO, key)
		}
		seen[key] = true
		d, err := time.ParseDuration(val)
		if err != nil || d <= 0 {
			return SLO{}, fmt.Errorf("%w: %s=%q is not a positive duration", ErrInvalidSLO, key, val)
		}
		*dst = d
	}
	return slo, nil
}

// String writes the SLO in the form ParseSLO reads, with "(strict <)" or
// "(inclusive ≤)" after it; "none" for SLO{}.
func (s SLO) String() string {
	var parts []string
	for _, l := range s.limits() {
		if l.limit > 0 {
			parts = append(parts, l.name+"="+l.limit.String())
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	cmp := "inclusive ≤"
	if s.Strict {
		cmp = "strict <"
	}
	return strings.Join(parts, ",") + " (" + cmp + ")"
}

func (s SLO) validate() error {
	for _, l := range s.limits() {
		if l.limit < 0 {
			return fmt.Errorf("%w: negative %s limit %v", ErrInvalidSLO, l.name, l.limit)
		}
	}
	return nil
}

type limit struct {
	name  string
	limit time.Duration
}

// limits returns the SLO's limits in the catalogue's order, each named
// by its metric's key; judgeTimes and goodputCounter keep that order.
func (s SLO) limits() [4]limit {
	return [4]limit{{keyTTFT, s.TTFT}, {keyTPOT, s.TPOT}, {keyE2E, s.E2E}, {keyMaxGap, s.MaxGap}}
}

// sloKeys lists the keys an SLO can limit, for a message: "ttft, tpot,
// e2e or max_gap".
func sloKeys() string {
	var keys []string
	for _, m := range catalogue {
		if m.limit(&SLO{}) != nil {
			keys = append(keys, m.Key)
		}
	}
	return plural.Or(keys)
}

func (s SLO) within(v, limit time.Duration) bool {
	if limit == 0 {
		return true
	}
	if s.Strict {
		return v < limit
	}
	return v <= limit
}

// verdict is the judgement of one request against an SLO.
type verdict struct {
	good bool
	// failed[i] is true when the request failed limit i of limits().
	failed [4]bool
	// tpotNA and gapNA are true when the request has no TPOT (n = 1) or no
	// chunk gap (fewer than two chunks), so that limit did not apply;
	// unjudged when it met every limit but a TPOT limit its unknown count
	// leaves unjudged (see Goodput.Unjudged).
	tpotNA, gapNA, unjudged bool
}

// okTimes are the latencies of a request in CategoryOK that an SLO
// judges: its TPOT when it has n ≥ 2 tokens, its largest chunk gap when it
// has two chunks or more.
type okTimes struct {
	ttft, tpot, e2e, maxGap  time.Duration
	hasTPOT, hasGap, noCount bool // noCount: no usable token count, so TPOT unknown
}

// timesOf returns the latencies of a valid record in CategoryOK, all but
// its largest gap, which is read in one more pass over its chunks.
func timesOf(r *Record) okTimes {
	// An unstreamed answer has no TPOT (its text at once, whatever its
	// count), nor one of max_tokens 1: a TPOT limit does not apply.
	un := r.unstreamed()
	t := okTimes{ttft: ttft(r), e2e: e2e(r), hasTPOT: hasTPOT(r) && !un, hasGap: hasGaps(r), noCount: !r.counted() && !un && r.MaxTokens != 1}
	if t.hasTPOT {
		t.tpot = tpot(r)
	}
	return t
}

// judge judges a valid record in CategoryOK. A request with n = 1 has no
// TPOT and one with fewer than two chunks has no gap: such a limit does not
// apply to it. A MaxGap limit on a record without chunk arrivals is an error,
// since its gaps are unknown.
func (s SLO) judge(r *Record) (verdict, error) {
	t := timesOf(r)
	if t.hasGap && s.MaxGap > 0 {
		t.maxGap = maxGap(r)
	}
	return s.judgeTimes(&t, len(r.Chunks) > 0)
}

// judgeTimes judges a request in CategoryOK by its latencies; chunks says
// whether it has chunk arrivals.
func (s SLO) judgeTimes(t *okTimes, chunks bool) (verdict, error) {
	v := verdict{tpotNA: !t.hasTPOT && !t.noCount, gapNA: !t.hasGap}
	if s.MaxGap > 0 && !chunks {
		return v, fmt.Errorf("%w: a max_gap limit needs chunk arrivals", ErrNoChunks)
	}
	vals := [4]time.Duration{t.ttft, t.tpot, t.e2e, t.maxGap}
	v.good = true
	for i, l := range s.limits() {
		if (i == 1 && !t.hasTPOT) || (i == 3 && v.gapNA) {
			continue
		}
		if !s.within(vals[i], l.limit) {
			v.failed[i] = true
			v.good = false
		}
	}
	v.unjudged = v.good && s.TPOT > 0 && t.noCount
	v.good = v.good && !v.unjudged
	return v, nil
}

// Meets reports whether the request meets every limit of the SLO. Only a
// successful request with at least one output token can: a failed or
// zero-token request never meets an SLO (Meets returns false and a nil
// error for it). It returns an error for an invalid record or SLO, and
// ErrNoChunks when a MaxGap limit is set and the record has no chunk
// arrivals.
func (s SLO) Meets(r *Record) (bool, error) {
	if err := s.validate(); err != nil {
		return false, err
	}
	if err := r.Validate(); err != nil {
		return false, err
	}
	if r.Category() != CategoryOK {
		return false, nil
	}
	v, err := s.judge(r)
	return v.good, err
}

// Goodput reports how many offered requests met an SLO, as two different
// figures: Attainment, a fraction of the offered requests, and
// RequestsPerSecond, good requests per second of the window. Failed,
// timed-out, zero-token and rejected requests stay in the offered count and
// are never good; warm-up requests are not measured, and so not judged:
// Offered is every offered request but warm-up.
type Goodput struct {
	SLO     SLO
	Good    int
	Offered int
	// Attainment is Good / Offered.
	Attainment float64
	// RequestsPerSecond is Good / Window.Length. It is set only when the run
	// has a window (WindowErr is nil).
	RequestsPerSecond RequestRate
	Window            Window
	WindowErr         error
	// TPOTNotApplicable counts ok requests without a TPOT that any TPOT
	// limit would pass, to which it does not apply: one output token, text
	// at once, or no usable count but max_tokens 1; GapNotApplicable counts ok
	// requests with fewer than two chunks, to which a MaxGap limit does
	// not apply. Unjudged counts the ok requests without a usable token
	// count (Accounting.Uncounted) that met every limit but a TPOT limit,
	// which their unknown TPOT leaves unjudged: they are not counted good,
	// so that Attainment and RequestsPerSecond are then lower bounds.
	TPOTNotApplicable int
	GapNotApplicable  int
	Unjudged          int
	// FailedTTFT, FailedTPOT, FailedE2E and FailedMaxGap count the ok
	// requests that failed each limit (a request can fail several).
	FailedTTFT, FailedTPOT, FailedE2E, FailedMaxGap int
}

// failed returns the counts of requests that failed each limit, in the
// order of SLO.limits.
func (g *Goodput) failed() [4]int {
	return [4]int{g.FailedTTFT, g.FailedTPOT, g.FailedE2E, g.FailedMaxGap}
}

// goodputCounter accumulates verdicts.
type goodputCounter struct {
	g Goodput
}

func (c *goodputCounter) add(v verdict) {
	if v.good {
		c.g.Good++
	}
	if v.tpotNA {
		c.g.TPOTNotApplicable++
	}
	if v.unjudged {
		c.g.Unjudged++
	}
	if v.gapNA {
		c.g.GapNotApplicable++
	}
	for i, dst := range [4]*int{&c.g.FailedTTFT, &c.g.FailedTPOT, &c.g.FailedE2E, &c.g.FailedMaxGap} {
		if v.failed[i] {
			*dst++
		}
	}
}

// merge adds another counter's verdicts.
func (c *goodputCounter) merge(o *goodputCounter) {
	c.g.Good += o.g.Good
	c.g.TPOTNotApplicable += o.g.TPOTNotApplicable
	c.g.GapNotApplicable += o.g.GapNotApplicable
	c.g.Unjudged += o.g.Unjudged
	c.g.FailedTTFT += o.g.FailedTTFT
	c.g.FailedTPOT += o.g.FailedTPOT
	c.g.FailedE2E += o.g.FailedE2E
	c.g.FailedMaxGap += o.g.FailedMaxGap
}

// AttainmentUpper is the most Attainment can be: (Good + Unjudged) / Offered.
func (g *Goodput) AttainmentUpper() float64 { return float64(g.Good+g.Unjudged) / float64(g.Offered) }

// finish sets the two figures: attainment = good/offered, and
// goodput = good/window.
func (c *goodputCounter) finish(slo SLO, offered int, w Window, werr error) Goodput {
	g := c.g
	g.SLO, g.Offered = slo, offered
	g.Attainment = float64(g.Good) / float64(offered)
	g.Window, g.WindowErr = w, werr
	if werr == nil {
		g.RequestsPerSecond = RequestRate(float64(g.Good) / w.Length.Seconds())
	}
	return g
}
