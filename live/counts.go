package live

import "github.com/llmmetrics/llmmetrics"

// Counts is the accounting of a label set. It always holds that
//
//	Offered = OK + ZeroToken + Failed + Rejected + Warmup
//	Failed  = Errors + Timeouts + Cancelled
//
// Judged counts the requests in the goodput denominator (every offered
// request but warm-up, when an SLO is set) and Good those that met it.
type Counts struct {
	Offered, OK, ZeroToken, Failed, Rejected, Warmup int64
	Errors, Timeouts, Cancelled                      int64
	OneToken                                         int64 // ok requests with n = 1: no TPOT
	// NoUsage, ZeroUsage and BelowChunks are the ok requests without a
	// usable token count, by reason (llmmetrics.CountState): among OK,
	// exported as the outcome no_count. They have TTFT, E2E and gaps,
	// and no TPOT or output tokens.
	NoUsage, ZeroUsage, BelowChunks int64
	TokenBasis, ChunkBasis          int64 // ok requests with ≥ 2 chunks, by gap basis
	OutputTokens, PromptTokens      int64 // of ok requests; never to be added together
	Judged, Good                    int64
}

func (c *Counts) add(o *Observation) {
	c.Offered++
	switch o.Outcome {
	case OutcomeOK, OutcomeNoCount:
		c.OK++
		switch o.Count {
		case llmmetrics.CountNoUsage:
			c.NoUsage++
		case llmmetrics.CountZeroUsage:
			c.ZeroUsage++
		case llmmetrics.CountBelowChunks:
			c.BelowChunks++
		default:
			if o.OutputTokens == 1 {
				c.OneToken++
			}
		}
		if o.HasMaxGap {
			if o.TokenBasis {
				c.TokenBasis++
			} else {
				c.ChunkBasis++
			}
		}
		c.OutputTokens += int64(o.OutputTokens)
		c.PromptTokens += int64(o.PromptTokens)
	case OutcomeZeroToken:
		c.ZeroToken++
	case OutcomeFailed:
		c.Failed++
		switch o.Status {
		case llmmetrics.StatusTimeout:
			c.Timeouts++
		case llmmetrics.StatusCancelled:
			c.Cancelled++
		default:
			c.Errors++
		}
	case OutcomeRejected:
		c.Rejected++
	case OutcomeWarmup:
		c.Warmup++
	}
	if o.Judged {
		c.Judged++
		if o.Good {
			c.Good++
		}
	}
}

func (c *Counts) merge(d Counts) {
	c.Offered += d.Offered
	c.OK += d.OK
	c.ZeroToken += d.ZeroToken
	c.Failed += d.Failed
	c.Rejected += d.Rejected
	c.Warmup += d.Warmup
	c.Errors += d.Errors
	c.Timeouts += d.Timeouts
	c.Cancelled += d.Cancelled
	c.OneToken += d.OneToken
	c.NoUsage += d.NoUsage
	c.ZeroUsage += d.ZeroUsage
	c.BelowChunks += d.BelowChunks
	c.TokenBasis += d.TokenBasis
	c.ChunkBasis += d.ChunkBasis
	c.OutputTokens += d.OutputTokens
	c.PromptTokens += d.PromptTokens
	c.Judged += d.Judged
	c.Good += d.Good
}

// Attainment returns Good / Judged, and false when nothing was judged.
func (c Counts) Attainment() (float64, bool) {
	if c.Judged == 0 {
		return 0, false
	}
	return float64(c.Good) / float64(c.Judged), true
}
