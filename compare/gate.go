package compare

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// A Condition is a threshold a run must not cross, for a gate in CI, as
// k6's thresholds are: "p99(ttft)>500ms" fails the run when its p99 TTFT
// is above 500 ms. It reads
//
//	STAT(METRIC) OP LIMIT   STAT: pNN (a percentile), mean, min or max;
//	                        METRIC: a key of llmmetrics.Metrics (ttft,
//	                        tpot, e2e, itl, max_gap, ttft_from_scheduled
//	                        or e2e_from_scheduled);
//	                        LIMIT: a duration (500ms)
//	FIGURE OP LIMIT         FIGURE: attainment or error_rate (fractions,
//	                        0.95), output_tokens_per_s, prompt_tokens_per_s
//	                        or requests_per_s (numbers)
//
// with OP one of >, >=, < and <=. error_rate is the failed share of the
// measured requests (warm-up, preflight, unfinished and rejected ones left
// out). A percentile must be among the summary's percentiles. ttft_from_scheduled and e2e_from_scheduled are an open
// loop's TTFT and E2E from each request's scheduled time
// (ClientStats.TTFTFromScheduled): a gate on them sees the time requests
// waited to be sent, which one on ttft or e2e does not.
type Condition struct {
	Text   string // as written
	Stat   string // "p99", "mean", "min", "max"; "" for a figure
	Metric string
	Op     string
	Limit  float64 // nanoseconds for a latency
}

// ParseCondition reads a condition (see Condition). It returns an error
// wrapping ErrInvalidOption for one it cannot read.
func ParseCondition(s string) (Condition, error) {
	c := Condition{Text: strings.TrimSpace(s)}
	bad := func(why string) (Condition, error) {
		return Condition{}, fmt.Errorf("%w: condition %q: %s", llmmetrics.ErrInvalidOption, s, why)
	}
	i := strings.IndexAny(c.Text, "<>")
	if i < 0 {
		return bad("no comparison (>, >=, < or <=)")
	}
	lhs, rest := strings.TrimSpace(c.Text[:i]), c.Text[i:]
	c.Op = rest[:1]
	if strings.HasPrefix(rest[1:], "=") {
		c.Op += "="
	}
	limit := strings.TrimSpace(rest[len(c.Op):])
	if stat, arg, ok := strings.Cut(lhs, "("); ok {
		if !strings.HasSuffix(arg, ")") {
			return bad("unclosed parenthesis")
		}
		c.Stat, c.Metric = strings.TrimSpace(stat), strings.TrimSpace(strings.TrimSuffix(arg, ")"))
		if _, ok := metricOf(c.Metric); !ok {
			return bad(fmt.Sprintf("unknown metric %q (want %s)", c.Metric, metricKeys(func(llmmetrics.Metric) bool { return true })))
		}
		switch {
		case c.Stat == "mean" || c.Stat == "min" || c.Stat == "max":
		case strings.HasPrefix(c.Stat, "p"):
			var p llmmetrics.Percentile
			if err := p.UnmarshalText([]byte(c.Stat[1:])); err != nil {
				return bad(err.Error())
			}
		default:
			return bad(fmt.Sprintf("unknown statistic %q (want pNN, mean, min or max)", c.Stat))
		}
		d, err := time.ParseDuration(limit)
		if err != nil {
			return bad(fmt.Sprintf("the limit %q is not a duration", limit))
		}
		c.Limit = float64(d)
		return c, nil
	}
	c.Metric = lhs
	if _, ok := runFigureNamed(c.Metric); !ok {
		return bad(fmt.Sprintf("unknown figure %q (want STAT(METRIC), attainment, error_rate, output_tokens_per_s, prompt_tokens_per_s or requests_per_s)", c.Metric))
	}
	v, err := strconv.ParseFloat(limit, 64)
	if err != nil || v != v || v > 1e300 || v < -1e300 {
		return bad(fmt.Sprintf("the limit %q is not a number", limit))
	}
	c.Limit = v
	return c, nil
}

// Check reports whether the summary crosses the condition (failed), with
// the figure it read, formatted. A figure the summary does not have (no ok
// request, no SLO for attainment, a percentile not computed) is an error
// wrapping ErrInvalidOption: a gate never passes on a missing figure.
//
// A figure that is only a lower bound of the true one (an output or
// prompt rate that leaves out ok requests without a token count) decides a condition
// only where every value at or above it would: "output_tokens_per_s<100"
// passes on a bound of 120 and cannot be judged on a bound of 80. Where
// the most the figure can be is known too (an attainment with unjudged
// requests is at most what it would be were they all good), a condition
// that both ends cross, or both meet, is decided, its value the range
// ("0.3 to 0.6").
//
// A statistic of TPOT where some ok requests have no usable token count
// (Accounting.Uncounted: their TPOT is unknown, left out of the
// distribution) decides a condition only where every value their TPOTs
// could take would: the max is at least the known max, the min at most
// the known min, the mean at least the known TPOTs' sum over every
// request, and a percentile may be anything, so that a condition on a
// percentile cannot be judged there. A decided one gives that bound as
// its value ("≥50ms").
func (c Condition) Check(s *llmmetrics.Summary) (failed bool, value string, err error) {
	v, value, err := c.read(s)
	if err != nil {
		return false, "", err
	}
	if failed, rng, ok, err := c.checkUnknown(s, v, value); ok {
		return failed, rng, err
	}
	failed = c.crosses(v)
	if why := c.lowerBound(s); why != "" {
		// Above the bound the figure only grows: a condition against high
		// values that the bound crosses is crossed; one against low values
		// that the bound meets is met; any other is undecided.
		high := c.Op == ">" || c.Op == ">="
		if high == failed {
			return failed, "≥" + value, nil
		}
		// Where the most the figure can be is known, a condition that it
		// and the bound both meet, or both cross, is decided.
		if f, _ := runFigureNamed(c.Metric); f.upper != nil {
			if hi, ok := f.upper(s); ok && c.crosses(hi) == failed {
				return failed, value + " to " + strconv.FormatFloat(hi, 'g', 6, 64), nil
			}
		}
		return false, "", &AbsentError{Condition: c.Text, Reason: fmt.Sprintf("≥%s is a lower bound (%s)", value, why)}
	}
	return failed, value, nil
}

// crosses reports whether v crosses the condition's limit.
func (c Condition) crosses(v float64) bool {
	switch c.Op {
	case ">":
		return v > c.Limit
	case ">=":
		return v >= c.Limit
	case "<":
		return v < c.Limit
	case "<=":
		return v <= c.Limit
	}
	return false
}

// lowerBound says why the condition's figure is a lower bound in s, or
// "" when it is not.
func (c Condition) lowerBound(s *llmmetrics.Summary) string {
	if c.Stat != "" {
		return ""
	}
	if f, _ := runFigureNamed(c.Metric); f.lower != nil {
		return f.lower(s)
	}
	return ""
}

// An AbsentError is a condition whose figure the run does not have (no ok
// request gave a TTFT, a closed loop has no figures from the scheduled
// time, no SLO was set): it can be neither met nor crossed, so it is an
// error, never a pass. It is an llmmetrics.ErrInvalidOption for errors.Is.
type AbsentError struct {
	Condition string // the condition's text
	Reason    string // why the figure is absent
}

func (e *AbsentError) Error() string {
	return fmt.Sprintf("condition %q cannot be judged: %s", e.Condition, e.Reason)
}

func (e *AbsentError) Unwrap() error { return llmmetrics.ErrInvalidOption }

// read returns the figure the condition is about.
func (c Condition) read(s *llmmetrics.Summary) (float64, string, error) {
	missing := func(why string) (float64, string, error) {
		return 0, "", fmt.Errorf("%w: condition %q: %s", llmmetrics.ErrInvalidOption, c.Text, why)
	}
	if c.Stat == "" {
		f, _ := runFigureNamed(c.Metric)
		v, absent := f.value(s)
		if absent != "" {
			return 0, "", &AbsentError{Condition: c.Text, Reason: absent}
		}
		return v, strconv.FormatFloat(v, 'g', 6, 64), nil
	}
	m, _ := metricOf(c.Metric)
	d := m.Distribution(s)
	if d == nil {
		why := fmt.Sprintf("the run has no %s distribution", c.Metric)
		switch {
		case strings.HasSuffix(c.Metric, "_from_scheduled"):
			why += " (only an open loop's ok requests carry a scheduled time)"
		case s.Absent[m.Key] != "":
			why += ": " + s.Absent[m.Key] // its reason, as the report gives it
		}
		return 0, "", &AbsentError{Condition: c.Text, Reason: why}
	}
	var v time.Duration
	switch c.Stat {
	case "mean":
		v = d.Mean
	case "min":
		v = d.Min
	case "max":
		v = d.Max
	default:
		var p llmmetrics.Percentile
		p.UnmarshalText([]byte(c.Stat[1:])) // checked when the condition was parsed
		var ok bool
		if v, ok = d.At(p); !ok {
			return missing(fmt.Sprintf("%s was not computed (add it to the percentiles)", c.Stat))
		}
	}
	return float64(v), v.String(), nil
}

// metricOf returns the catalogue's metric of a key, and false for a key
// it does not hold.
func metricOf(key string) (llmmetrics.Metric, bool) {
	var m llmmetrics.Metric
	err := m.UnmarshalText([]byte(key))
	return m, err == nil
}

// metricKeys lists the keys of the catalogue's metrics for which keep is
// true, for a message: "ttft, tpot or e2e".
func metricKeys(keep func(llmmetrics.Metric) bool) string {
	var keys []string
	for _, m := range llmmetrics.Metrics() {
		if keep(m) {
			keys = append(keys, m.Key)
		}
	}
	if len(keys) < 2 {
		return strings.Join(keys, "")
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1]
}
