package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
)

// A loadCheck says whether the load the run offered is the load the
// server got: for an open loop, the achieved request rate beside the
// offered one, and TTFT and E2E measured from each request's scheduled
// time (corrected for coordinated omission, as wrk2 does) beside the
// figures from its send; for a closed loop, a failure storm. Warnings
// are printed first.
type loadCheck struct {
	Loop            string        `json:"loop"`
	OfferedPerS     float64       `json:"offered_requests_per_s,omitempty"`
	ScheduledPerS   float64       `json:"scheduled_requests_per_s,omitempty"`
	AchievedPerS    float64       `json:"achieved_requests_per_s,omitempty"`
	LatenessP99MS   float64       `json:"lateness_p99_ms,omitempty"`
	ScheduledTTFT   *distribution `json:"ttft_from_scheduled_ms,omitempty"`
	ScheduledE2E    *distribution `json:"e2e_from_scheduled_ms,omitempty"`
	Warnings        []string      `json:"warnings,omitempty"`
	percentileNames []string
}

// distribution is a Distribution in milliseconds, for JSON.
type distribution struct {
	N      int                `json:"n"`
	Mean   float64            `json:"mean"`
	Max    float64            `json:"max"`
	Points map[string]float64 `json:"percentiles"`
	d      llmmetrics.Distribution
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func newDistribution(xs []time.Duration, opt llmmetrics.Options) *distribution {
	ps := opt.Percentiles
	if ps == nil {
		ps = llmmetrics.DefaultPercentiles
	}
	d, err := llmmetrics.Describe(xs, opt.Method, ps...)
	if err != nil {
		return nil
	}
	out := &distribution{N: d.N, Mean: ms(d.Mean), Max: ms(d.Max), Points: map[string]float64{}, d: d}
	for _, pt := range d.Points {
		out.Points[pt.P.Key()] = ms(pt.Value)
	}
	return out
}

// checkLoad reads the measured records of a run against its plan.
func checkLoad(p drive.Plan, recs []llmmetrics.Record, s *llmmetrics.Summary, opt llmmetrics.Options) *loadCheck {
	c := &loadCheck{Loop: "closed"}
	a := s.Requests
	if p.Rate <= 0 {
		if ok := a.OK + a.ZeroToken; a.Failed >= 10*max(ok, 1) && a.Failed >= 10 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("WARNING: %d measured requests failed against %d ok: a failing server answers fast and a closed loop refills its slots after at most 1 s of back-off, so the figures describe the failures (see the error set); --max-error-rate stops such a run", a.Failed, ok))
		}
		return c
	}
	c.Loop, c.OfferedPerS = "open", p.Rate
	var sends, due, ttft, e2e []time.Duration
	for i := range recs {
		r := &recs[i]
		if r.Warmup || r.Client == nil || !r.Client.HasSchedule {
			continue
		}
		sends, due = append(sends, r.Sent), append(due, r.Client.Scheduled)
		if r.Status != llmmetrics.StatusOK || r.CompletionTokens == 0 || len(r.Chunks) == 0 {
			continue
		}
		late := r.Sent - r.Client.Scheduled // from when it was due to when it was written
		ttft = append(ttft, late+r.Chunks[0])
		e2e = append(e2e, late+r.Chunks[len(r.Chunks)-1])
	}
	c.ScheduledPerS, c.AchievedPerS = spanRate(due), spanRate(sends)
	c.ScheduledTTFT, c.ScheduledE2E = newDistribution(ttft, opt), newDistribution(e2e, opt)
	// The sends are compared with their own schedule, not with the rate
	// asked for: a short random (Poisson) schedule draws fewer or more
	// arrivals than rate × duration by chance, and that is the load asked
	// for; sends that lag their schedule are a client or server behind.
	if c.AchievedPerS > 0 && c.AchievedPerS < 0.9*c.ScheduledPerS {
		c.Warnings = append(c.Warnings, fmt.Sprintf("WARNING: the achieved rate, %.3g requests/s, is %.0f%% below the %.3g of the schedule (offered %.3g): the client or the server fell behind, and the load was not the one asked for",
			c.AchievedPerS, 100*(1-c.AchievedPerS/c.ScheduledPerS), c.ScheduledPerS, c.OfferedPerS))
	}
	if cs := s.Client; cs != nil && cs.Lateness != nil {
		p99, _ := llmmetrics.Percentiles(lateness(recs), opt.Method, llmmetrics.MustPercentile(99))
		if len(p99) == 1 {
			c.LatenessP99MS = ms(p99[0])
			if p99[0] > time.Second {
				c.Warnings = append(c.Warnings, fmt.Sprintf("WARNING: lateness p99 is %v: requests were sent well after their scheduled time; the TTFT and E2E from the scheduled time below include it", p99[0].Round(time.Millisecond)))
			}
		}
	}
	return c
}

// spanRate is the rate of the instants xs over their span, (n − 1)/span,
// or 0 with fewer than two or no span. It sorts xs.
func spanRate(xs []time.Duration) float64 {
	if len(xs) < 2 {
		return 0
	}
	slices.Sort(xs)
	span := xs[len(xs)-1] - xs[0]
	if span <= 0 {
		return 0
	}
	return float64(len(xs)-1) / span.Seconds()
}

// lateness returns the measured records' lateness.
func lateness(recs []llmmetrics.Record) []time.Duration {
	var out []time.Duration
	for i := range recs {
		r := &recs[i]
		if r.Warmup || r.Client == nil {
			continue
		}
		if l, ok := r.Client.Lateness(r.Sent); ok {
			out = append(out, l)
		}
	}
	return out
}

// writeWarnings prints the check's warnings, first in the report.
func (c *loadCheck) writeWarnings(w io.Writer) {
	for _, x := range c.Warnings {
		fmt.Fprintln(w, x)
	}
	if len(c.Warnings) > 0 {
		fmt.Fprintln(w)
	}
}

// write prints the open loop's rates and the figures from the scheduled
// time.
func (c *loadCheck) write(w io.Writer) {
	if c.Loop != "open" {
		return
	}
	fmt.Fprintf(w, "\nopen loop: offered %.4g requests/s, scheduled %.4g, achieved %.4g (measured sends over their span)", c.OfferedPerS, c.ScheduledPerS, c.AchievedPerS)
	if c.LatenessP99MS > 0 {
		fmt.Fprintf(w, ", lateness p99 %.3f ms", c.LatenessP99MS)
	}
	fmt.Fprintln(w)
	if c.ScheduledTTFT == nil {
		return
	}
	fmt.Fprintln(w, "from each request's scheduled time (coordinated omission corrected, as wrk2; the table above is from the send):")
	var head []string
	for _, pt := range c.ScheduledTTFT.d.Points {
		head = append(head, fmt.Sprintf("%9s", pt.P.Key()))
	}
	fmt.Fprintf(w, "  %-14s %5s %9s %s %9s\n", "metric (ms)", "n", "mean", strings.Join(head, " "), "max")
	for _, row := range []struct {
		name string
		d    *distribution
	}{{"TTFT", c.ScheduledTTFT}, {"E2E", c.ScheduledE2E}} {
		var vals []string
		for _, pt := range row.d.d.Points {
			vals = append(vals, fmt.Sprintf("%9.3f", ms(pt.Value)))
		}
		fmt.Fprintf(w, "  %-14s %5d %9.3f %s %9.3f\n", row.name, row.d.N, row.d.Mean, strings.Join(vals, " "), row.d.Max)
	}
}

// errorBrake stops a run whose measured requests fail too often: once at
// least minBrake have ended, when more than rate of them failed.
type errorBrake struct {
	rate         float64
	stop         func(by string)
	mu           sync.Mutex
	ended, fails int
	tripped      bool
}

const minBrake = 10

func (b *errorBrake) add(res *observe.Result) {
	if b == nil || res.Record.Warmup {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ended++
	if res.Record.Status != llmmetrics.StatusOK {
		b.fails++
	}
	if !b.tripped && b.ended >= minBrake && float64(b.fails) > b.rate*float64(b.ended) {
		b.tripped = true
		b.stop(fmt.Sprintf("--max-error-rate %g (%d of the first %d measured requests failed)", b.rate, b.fails, b.ended))
	}
}
