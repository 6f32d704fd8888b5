package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/genhealth"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// A clientCheck says whether the client read its chunks on time: the
// generator's own figures, from its end line (RunEnd.Client), beside how
// the chunks of the measured records share their timestamps, with a
// WARNING when the client read late or the chunks came in bursts (see
// genhealth.Warnings). Run and report print the same check of the same
// file; it is the load check's, in JSON under "client_health", with
// warnings of its own. Its WARNING heads its section, after the table,
// not the report: it depends on the machine the client ran on, and the
// top of a report (its completeness, the load check's warnings) does
// not. A gate does not judge it.
type clientCheck struct {
	*llmmetrics.ClientHealth
	Gaps     genhealth.Gaps `json:"chunk_gaps"`
	Warnings []string       `json:"warnings,omitempty"`
}

// checkClient checks the records of a run against its end line's health;
// nil without one. It does not modify recs.
func checkClient(e *llmmetrics.RunEnd, recs []llmmetrics.Record) *clientCheck {
	if e == nil || e.Client == nil {
		return nil
	}
	c := &clientCheck{ClientHealth: e.Client, Gaps: genhealth.GapsOf(recs)}
	c.Warnings = genhealth.Warnings(c.ClientHealth, c.Gaps)
	return c
}

// withClient adds a client check to a load check, which it makes when
// there is none.
func withClient(lc *loadCheck, c *clientCheck) *loadCheck {
	if c == nil {
		return lc
	}
	if lc == nil {
		lc = &loadCheck{}
	}
	lc.Client = c
	return lc
}

// write prints the generator's figures and the gaps' timestamps.
func (c *clientCheck) write(w io.Writer) {
	if c == nil {
		return
	}
	h := c.ClientHealth
	fmt.Fprintf(w, "\nclient health (the generator's own, over %.3f s of load):\n", h.Window.Seconds())
	for _, x := range c.Warnings {
		fmt.Fprintf(w, "  %s\n", x)
	}
	if h.Ticks > 0 {
		few, p90 := "", ""
		switch {
		case h.Ticks < genhealth.MinP90:
			few = fmt.Sprintf(" (under %d deadlines the p99 is the max: lateness is judged at p50)", genhealth.MinP90)
		case h.Ticks < genhealth.MinP99 && h.TickP90 > 0:
			few = fmt.Sprintf(" (under %d deadlines the p99 is one of the ten worst: lateness is judged at p90)", genhealth.MinP99)
		}
		if h.TickP90 > 0 {
			p90 = ", p90 " + msText(h.TickP90)
		}
		fmt.Fprintf(w, "  a ticker of %v: %s, met late by p50 %s%s, p99 %s, max %s%s\n", h.Tick, plural.Of(h.Ticks, "deadline"), msText(h.TickP50), p90, msText(h.TickP99), msText(h.TickMax), few)
	}
	if h.Sched > 0 {
		fmt.Fprintf(w, "  Go scheduler latency (%d sampled by the runtime; histogram buckets): p50 %s, p99 %s, max %s\n", h.Sched, bucketText(h.SchedP50), bucketText(h.SchedP99), bucketText(h.SchedMax))
	}
	if _, absent := h.Absent["cpu"]; !absent && h.Window > 0 {
		fmt.Fprintf(w, "  CPU %.3f s, user and system: %.2f CPU-seconds a second, GOMAXPROCS %d, %d CPUs\n", h.CPU.Seconds(), h.CPU.Seconds()/h.Window.Seconds(), h.Procs, h.CPUs)
	}
	for _, k := range slices.Sorted(maps.Keys(h.Absent)) {
		fmt.Fprintf(w, "  %s: absent, %s\n", k, h.Absent[k])
	}
	g := c.Gaps
	if g.Gaps == 0 {
		fmt.Fprintln(w, "  chunk gaps: none among the measured streams")
		return
	}
	fmt.Fprintf(w, "  chunk gaps: %d of %d exactly 0 (%.1f%%); %d of %d streams of one timestamp (%.1f%%); %d of one token a chunk; median gap %s\n",
		g.Zero, g.Gaps, 100*g.ZeroShare(), g.OneStamp, g.Streams, 100*g.OneStampShare(), g.OneToken, msText(g.Median))
}

// msText writes a duration in milliseconds.
func msText(d time.Duration) string { return fmt.Sprintf("%.3f ms", ms(d)) }

// bucketText writes a histogram's bucket [low, high), to 4 significant
// digits; a high of 0 has no bound.
func bucketText(b [2]time.Duration) string {
	if b[1] == 0 {
		return fmt.Sprintf("≥ %v", genhealth.Round(b[0]))
	}
	return fmt.Sprintf("[%v, %v)", genhealth.Round(b[0]), genhealth.Round(b[1]))
}
