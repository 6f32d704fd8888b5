package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
)

// A loadCheck says whether the load the run offered is the load the
// server got, from the run's load (its header, with its end line's facts)
// and its measured records: for an open loop, the achieved request rate
// beside the offered one, the lateness, the requests due before its
// deadline but never sent, and whether the server kept up; for a closed
// loop, a failure storm; for either, a server that stopped answering.
// TTFT and E2E from each request's scheduled time are the summary's
// (ClientStats.TTFTFromScheduled), in its table. Warnings are printed
// first; run and report print the same check of the same records.
type loadCheck struct {
	Loop          string  `json:"loop,omitempty"` // "" when the file does not say
	OfferedPerS   float64 `json:"offered_requests_per_s,omitempty"`
	ScheduledPerS float64 `json:"scheduled_requests_per_s,omitempty"`
	AchievedPerS  float64 `json:"achieved_requests_per_s,omitempty"`
	LatenessP99MS float64 `json:"lateness_p99_ms,omitempty"`
	// Unsent counts the arrivals due before a --duration's deadline that
	// were never sent; nil when the file does not say.
	Unsent *int `json:"unsent_before_deadline,omitempty"`
	// EndedWithoutFinish counts the measured requests counted ok whose
	// stream ended with neither a finish reason nor [DONE] (the end line's
	// note says so too); nil when the file does not say, as when none did.
	EndedWithoutFinish *int     `json:"ended_without_finish,omitempty"`
	Drain              *drain   `json:"drain,omitempty"`
	Stopped            *stopped `json:"stopped_answering,omitempty"`
	Warnings           []string `json:"warnings,omitempty"`
	late               bool     // a warning says the sends lagged their schedule
	partial            string   // a warning says the figures do not describe the load asked for, in a clause

	// Client is whether the client read its chunks on time
	// (clienthealth.go); its warnings are its own.
	Client *clientCheck `json:"client_health,omitempty"`
	// Fidelity compares the load sent with the load asked (fidelity.go);
	// its warnings are among Warnings.
	Fidelity *fidelity `json:"fidelity,omitempty"`
}

// loadFacts returns a run's load as a reader of its file sees it: the
// header's, with the end line's facts added (RunEnd.Load); nil without a
// header. It does not modify either.
func loadFacts(h *llmmetrics.RunHeader, e *llmmetrics.RunEnd) map[string]string {
	if h == nil {
		return nil
	}
	load := maps.Clone(h.Load)
	if e != nil && len(e.Load) > 0 {
		if load == nil {
			load = map[string]string{}
		}
		maps.Copy(load, e.Load)
	}
	return load
}

// unsentKey is the end line's load fact of the requests an open loop
// never sent before its deadline (drive.Outcome.Unsent).
const unsentKey = "unsent_before_deadline"

// noteUnsent adds an open loop's unsent count to the end line's load,
// for a run of a duration that reached its deadline; a run of a count
// sends every request, and a run interrupted first has no count
// (drive.Outcome.UnsentCounted): not a 0.
func noteUnsent(end *llmmetrics.RunEnd, p drive.Plan, out *drive.Outcome) {
	if p.Rate <= 0 || p.Duration <= 0 || out == nil || !out.UnsentCounted {
		return
	}
	if end.Load == nil {
		end.Load = map[string]string{}
	}
	end.Load[unsentKey] = strconv.Itoa(out.Unsent)
}

// checkLoad reads the measured records of a run against its load (see
// loadFacts; nil for a file without a header). It returns nil when it
// knows nothing of the load and found nothing to warn of. It does not
// modify recs.
func checkLoad(load map[string]string, recs []llmmetrics.Record, s *llmmetrics.Summary, opt llmmetrics.Options) *loadCheck {
	m := measuredSends(recs, s.Warmup)
	c := &loadCheck{Loop: load["loop"]}
	if n, err := strconv.Atoi(load[endedWithoutFinishKey]); err == nil && n > 0 {
		c.EndedWithoutFinish = &n
	}
	if c.Loop == "" && slices.ContainsFunc(m, func(r *llmmetrics.Record) bool { return r.Client != nil && r.Client.HasSchedule }) {
		c.Loop = "open"
	}
	if c.Stopped = stoppedAnswering(m, endingOf(load, c.Loop, recs, s)); c.Stopped != nil {
		c.Warnings = append(c.Warnings, c.Stopped.warning())
		c.partial = c.Stopped.clause()
	}
	switch c.Loop {
	case "closed":
		a := s.Requests
		if ok := a.OK + a.ZeroToken; a.Failed >= 10*max(ok, 1) && a.Failed >= 10 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("WARNING: %d measured requests failed against %d ok: a failing server answers fast and a closed loop refills its slots after at most 1 s of back-off, so the figures describe the failures (see the error set); --max-error-rate stops such a run", a.Failed, ok))
			if c.partial == "" {
				c.partial = fmt.Sprintf("%d measured requests failed against %d ok", a.Failed, ok)
			}
		}
	case "open":
		c.checkOpen(load, m, s, opt)
	case "":
		if len(c.Warnings) == 0 && c.EndedWithoutFinish == nil {
			return nil
		}
	}
	return c
}

// endingOf says how a run's sending ended (see ending): a closed loop of a
// duration that completed sent until its deadline, a duration after its
// first measured send (the file's warm-up left out, not a report's
// --warmup cut), whether or not its slots were free to send; the
// requests a completed run cancelled were in flight when the grace ran
// out.
func endingOf(load map[string]string, loop string, recs []llmmetrics.Record, s *llmmetrics.Summary) ending {
	var e ending
	e.hung = s.Completeness != nil && s.Completeness.State == "completed"
	d, err := time.ParseDuration(load["duration"])
	if err != nil || loop != "closed" || !e.hung {
		return e
	}
	if m := measuredSends(recs, nil); len(m) > 0 {
		e.deadline = m[0].Sent + d
	}
	return e
}

// checkOpen checks an open loop: its sends against their schedule, and
// the server's answers against the sends.
func (c *loadCheck) checkOpen(load map[string]string, m []*llmmetrics.Record, s *llmmetrics.Summary, opt llmmetrics.Options) {
	if r, err := strconv.ParseFloat(load["rate_per_s"], 64); err == nil && r > 0 {
		c.OfferedPerS = r
	}
	if n, err := strconv.Atoi(load[unsentKey]); err == nil && n >= 0 {
		c.Unsent = &n
	}
	var sends, due []time.Duration
	for _, r := range m {
		if r.Client != nil && r.Client.HasSchedule {
			sends, due = append(sends, r.Sent), append(due, r.Client.Scheduled)
		}
	}
	c.ScheduledPerS, c.AchievedPerS = spanRate(due), spanRate(sends)
	// The sends are compared with their own schedule, not with the rate
	// asked for: a short random (Poisson) schedule draws fewer or more
	// arrivals than rate × duration by chance, and that is the load asked
	// for; sends that lag their schedule are a client or server behind.
	if c.AchievedPerS > 0 && c.AchievedPerS < 0.9*c.ScheduledPerS {
		offered := ""
		if c.OfferedPerS > 0 {
			offered = fmt.Sprintf(" (offered %.3g)", c.OfferedPerS)
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("WARNING: the achieved rate, %.3g requests/s, is %.0f%% below the %.3g of the schedule%s: the client or the server fell behind, and the load was not the one asked for",
			c.AchievedPerS, 100*(1-c.AchievedPerS/c.ScheduledPerS), c.ScheduledPerS, offered))
		c.late = true
	}
	if cs := s.Client; cs != nil && cs.Lateness != nil {
		if d, err := llmmetrics.Describe(lateness(m), opt.Method, llmmetrics.MustPercentile(99)); err == nil {
			p99 := d.Points[0].Value
			c.LatenessP99MS = ms(p99)
			if p99 > time.Second {
				c.Warnings = append(c.Warnings, fmt.Sprintf("WARNING: lateness p99 is %v: requests were sent well after their scheduled time; the TTFT and E2E from the scheduled time (from sched.) include it", p99.Round(time.Millisecond)))
				c.late = true
			}
		}
	}
	grace, _ := time.ParseDuration(load["grace"])
	if c.Drain = drainOf(m, grace); c.Drain != nil && c.Drain.behind() {
		c.Warnings = append(c.Warnings, c.Drain.warning(c.AchievedPerS))
		if c.partial == "" {
			c.partial = "the server fell behind the load"
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// measuredSends returns the measured records, warm-up left out (the file's
// and the report's --warmup cut), in send order. It does not modify recs.
func measuredSends(recs []llmmetrics.Record, cut *llmmetrics.WarmupCut) []*llmmetrics.Record {
	var m []*llmmetrics.Record
	for i := range recs {
		r := &recs[i]
		if r.Warmup || cut != nil && cut.Steady && r.Sent < cut.Start {
			continue
		}
		m = append(m, r)
	}
	slices.SortStableFunc(m, func(a, b *llmmetrics.Record) int { return cmp.Compare(a.Sent, b.Sent) })
	return m
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

// lateness returns the records' lateness.
func lateness(m []*llmmetrics.Record) []time.Duration {
	var out []time.Duration
	for _, r := range m {
		if l, ok := r.Client.Lateness(r.Sent); ok {
			out = append(out, l)
		}
	}
	return out
}

// writeWarnings prints the check's warnings, first in the report.
func (c *loadCheck) writeWarnings(w io.Writer) {
	if c == nil {
		return
	}
	for _, x := range c.Warnings {
		fmt.Fprintln(w, x)
	}
	if len(c.Warnings) > 0 {
		fmt.Fprintln(w)
	}
}

// write prints the open loop's rates, its unsent requests and its drain.
func (c *loadCheck) write(w io.Writer) {
	if c == nil {
		return
	}
	defer c.Fidelity.write(w) // fidelity.go
	defer c.Client.write(w)   // clienthealth.go
	if c.Loop != "open" {
		return
	}
	fmt.Fprint(w, "\nopen loop: ")
	if c.OfferedPerS > 0 {
		fmt.Fprintf(w, "offered %.4g requests/s, ", c.OfferedPerS)
	}
	fmt.Fprintf(w, "scheduled %.4g, achieved %.4g (measured sends over their span)", c.ScheduledPerS, c.AchievedPerS)
	if c.LatenessP99MS > 0 {
		fmt.Fprintf(w, ", lateness p99 %.3f ms", c.LatenessP99MS)
	}
	fmt.Fprintln(w)
	if c.Unsent != nil && *c.Unsent > 0 {
		fmt.Fprintf(w, "  %d requests scheduled before the deadline were never sent: they still waited, for a slot under the concurrency cap or for a client behind, when sending stopped\n", *c.Unsent)
	}
	if d := c.Drain; d != nil {
		fmt.Fprintf(w, "  sending %.3f s; %s; %d ok answered at %.4g requests/s (first send to last answer)\n",
			d.SendingS, d.after(), d.OK, d.AnsweredPerS)
	}
	if len(c.Warnings) == 0 || !c.late {
		return
	}
	fmt.Fprintln(w, "  the rows from sched. above are the figures of the load asked for: gate on p99(ttft_from_scheduled), not p99(ttft)")
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
