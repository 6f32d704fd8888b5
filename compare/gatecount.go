package compare

import (
	"fmt"
	"math"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// unknownRange returns the range a TPOT statistic can take over every ok
// request, given its value v over those with a usable output token
// count, where k (Accounting.Uncounted) have none: each of theirs is
// unknown, any value from 0 up, or none were the true count 1. The max is
// at least the known max (up to ∞), the min at most the known min (down
// to 0), the mean at least the known TPOTs' sum over every request (the
// unknown at 0; up to ∞), and a percentile anything: the unknown values
// can sit on either side of it. An unstreamed answer without a count has
// no TPOT whatever its count, but the summary does not tell it apart:
// it is among the k, which widens the range and never makes it wrong. ok
// is false for a condition on another metric, or a run whose ok requests
// all have a count.
func (c Condition) unknownRange(s *llmmetrics.Summary, v float64) (lo, hi float64, k int, ok bool) {
	k = s.Requests.Uncounted.Total()
	if c.Metric != "tpot" || c.Stat == "" || k == 0 || s.TPOT == nil {
		return 0, 0, 0, false
	}
	switch n := s.TPOT.N; c.Stat {
	case "max":
		return v, math.Inf(1), k, true
	case "min":
		return 0, v, k, true
	case "mean":
		return v * float64(n) / float64(n+k), math.Inf(1), k, true
	}
	return 0, math.Inf(1), k, true
}

// checkUnknown judges a condition on a TPOT statistic, v its value over
// the requests with a count, where some ok requests have none
// (unknownRange): a verdict its range decides, with the range as the
// value ("≥50ms"), or an AbsentError naming how many are unknown. ok is
// false where no request's TPOT is unknown.
func (c Condition) checkUnknown(s *llmmetrics.Summary, v float64, value string) (failed bool, rng string, ok bool, err error) {
	lo, hi, k, ok := c.unknownRange(s, v)
	if !ok {
		return false, "", false, nil
	}
	rng = "≥" + time.Duration(lo).String()
	if !math.IsInf(hi, 1) {
		rng = "≤" + time.Duration(hi).String()
	}
	failed = c.crosses(lo)
	if c.crosses(hi) == failed {
		return failed, rng, true, nil
	}
	may := "anything"
	switch {
	case lo > 0:
		may = "anything from " + time.Duration(lo).String() + " up"
	case !math.IsInf(hi, 1):
		may = "anything from 0 to " + time.Duration(hi).String()
	}
	unknown := "have no usable token count, so their TPOT is"
	if k == 1 {
		unknown = "has no usable token count, so its TPOT is"
	}
	return false, "", true, &AbsentError{Condition: c.Text, Reason: fmt.Sprintf(
		"%s %s unknown: %s(%s) of the other %d is %s, and of all of them may be %s, on either side of the limit",
		plural.Of(k, "ok request"), unknown, c.Stat, c.Metric, s.TPOT.N, value, may)}
}
