package genhealth

import (
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const us = time.Microsecond

// The warnings on injected figures: the verdict never rests on a live
// measurement here.
func TestWarnings(t *testing.T) {
	quiet := llmmetrics.ClientHealth{Window: 2 * time.Second, Procs: 2, CPUs: 2, CPU: 400 * time.Millisecond,
		Tick: Tick, Ticks: 200, TickP50: 60 * us, TickP99: 200 * us, TickMax: 900 * us,
		Sched: 5000, SchedP50: [2]time.Duration{14 * us, 16 * us}, SchedP99: [2]time.Duration{65 * us, 73 * us}, SchedMax: [2]time.Duration{2 * time.Millisecond, 3 * time.Millisecond}}
	// The symptom of issue #30: 18% of gaps exactly 0, 2.2% of the
	// streams of one timestamp, one token a chunk.
	symptom := Gaps{Streams: 1000, OneStamp: 22, OneToken: 1000, Gaps: 63000, Zero: 11340, Median: 2 * time.Millisecond}
	healthy := Gaps{Streams: 1000, OneToken: 1000, Gaps: 63000, Median: 20 * time.Millisecond}
	with := func(f func(h *llmmetrics.ClientHealth)) *llmmetrics.ClientHealth {
		h := quiet
		f(&h)
		return &h
	}
	for _, c := range []struct {
		name string
		h    *llmmetrics.ClientHealth
		g    Gaps
		want string // a part of the one warning, "" for none
	}{
		{"no figures", nil, symptom, ""},
		{"quiet client, quiet gaps", &quiet, healthy, ""},
		{"quiet client, no records", &quiet, Gaps{}, ""},
		{"ticker late", with(func(h *llmmetrics.ClientHealth) { h.TickP99, h.TickMax = 4*time.Millisecond, 9*time.Millisecond }), symptom,
			"the client read late: a ticker of 10ms woke 4ms late at p99 (max 9ms)"},
		// The scheduler's p99 bucket starts at 2 ms: at least 2 ms.
		{"scheduler late", with(func(h *llmmetrics.ClientHealth) { h.SchedP99 = [2]time.Duration{2 * time.Millisecond, 2400 * us} }), Gaps{Streams: 10, OneToken: 10, Gaps: 100, Median: 5 * time.Millisecond},
			"a ticker of 10ms woke 200µs late at p99 (max 900µs) and Go's scheduler latency p99 is in [2ms, 2.4ms), against a limit of 2ms; 0.0% of chunk gaps"},
		// A bucket that only may reach 2 ms is not proof of lateness.
		{"scheduler bucket across the limit", with(func(h *llmmetrics.ClientHealth) { h.SchedP99 = [2]time.Duration{1800 * us, 2200 * us} }), Gaps{}, ""},
		// A ticker 1.9 ms late at p99 is within what a quiet machine's
		// timers may lag (see MinLate).
		{"ticker within a timer's millisecond", with(func(h *llmmetrics.ClientHealth) { h.TickP99 = 1900 * us }), Gaps{}, ""},
		{"ticker at the limit", with(func(h *llmmetrics.ClientHealth) { h.TickP99, h.TickMax = 2*time.Millisecond, 3*time.Millisecond }), Gaps{},
			"woke 2ms late at p99 (max 3ms) and Go's scheduler latency p99 is in [65µs, 73µs), against a limit of 2ms —"},
		// 4 ms late beside gaps of 50 ms is under a tenth of them.
		{"late but small beside the gaps", with(func(h *llmmetrics.ClientHealth) { h.TickP99 = 4 * time.Millisecond }), Gaps{Streams: 10, OneToken: 10, Gaps: 100, Median: 50 * time.Millisecond}, ""},
		{"late beside the gaps", with(func(h *llmmetrics.ClientHealth) { h.TickP99 = 6 * time.Millisecond }), Gaps{Streams: 10, OneToken: 10, Gaps: 100, Median: 50 * time.Millisecond},
			"against a limit of 5ms (a tenth of the median chunk gap); 0.0% of chunk gaps are exactly 0"},
		// 1.9 CPU-seconds a second of 2 is at least 80% of GOMAXPROCS.
		{"late and busy", with(func(h *llmmetrics.ClientHealth) { h.TickP99, h.CPU = 3*time.Millisecond, 3800*time.Millisecond }), symptom,
			"; it used 1.90 CPU-seconds a second of its 2 (GOMAXPROCS) —"},
		{"bursts of a client on time", &quiet, symptom,
			"WARNING: 18.0% of chunk gaps are exactly 0 (11340 of 63000) though each chunk carries one token and the client read on time (lateness 200µs, under 2ms)"},
		// With 49 deadlines the p99 is the largest: one wake 4 ms late
		// is not a late client, and the p50 of 300 µs says it read on
		// time (issue: a WARNING on nearly every short run).
		{"one late wake of few", with(func(h *llmmetrics.ClientHealth) {
			h.Ticks, h.TickP50, h.TickP99, h.TickMax = 49, 300*us, 4*time.Millisecond, 4*time.Millisecond
		}), healthy, ""},
		{"few wakes late at p50", with(func(h *llmmetrics.ClientHealth) {
			h.Ticks, h.TickP50, h.TickP99, h.TickMax = 49, 3*time.Millisecond, 4*time.Millisecond, 4*time.Millisecond
		}), Gaps{Streams: 10, OneToken: 10, Gaps: 100, Median: 5 * time.Millisecond},
			"a ticker of 10ms woke 3ms late at p50 (max 4ms; 49 deadlines, too few for a p99) and Go's scheduler latency p99 is in [65µs, 73µs)"},
		// With 156 deadlines the p99 is the 2nd worst wake: a passing
		// stall of 196 ms is not a late client when the p90 is 1.2 ms.
		{"two late wakes of 156", with(func(h *llmmetrics.ClientHealth) {
			h.Ticks, h.TickP50, h.TickP90, h.TickP99, h.TickMax = 156, 300*us, 1200*us, 196*time.Millisecond, 200*time.Millisecond
		}), healthy, ""},
		{"156 wakes late at p90", with(func(h *llmmetrics.ClientHealth) {
			h.Ticks, h.TickP50, h.TickP90, h.TickP99, h.TickMax = 156, 1*time.Millisecond, 3*time.Millisecond, 9*time.Millisecond, 9*time.Millisecond
		}), Gaps{Streams: 10, OneToken: 10, Gaps: 100, Median: 5 * time.Millisecond},
			"a ticker of 10ms woke 3ms late at p90 (max 9ms; 156 deadlines, too few for a p99)"},
		// 1,000 deadlines or more: the p99 is judged.
		{"1000 wakes late at p99", with(func(h *llmmetrics.ClientHealth) {
			h.Ticks, h.TickP50, h.TickP90, h.TickP99, h.TickMax = 1000, 300*us, 1200*us, 5*time.Millisecond, 9*time.Millisecond
		}), healthy, "woke 5ms late at p99 (max 9ms)"},
		// So with the scheduler's samples: 40 of them, their p50 judged.
		{"one late scheduling of few", with(func(h *llmmetrics.ClientHealth) {
			h.Sched, h.SchedP99 = 40, [2]time.Duration{3 * time.Millisecond, 4 * time.Millisecond}
		}), healthy, ""},
		// Every request failed: no gaps to blame on the client.
		{"late with no gaps", with(func(h *llmmetrics.ClientHealth) { h.TickP99 = 4 * time.Millisecond }), Gaps{},
			"— no stream had two chunks, so no gap is distorted, but every time the client took includes its lateness; run the client"},
		// Chunks of several tokens: the burst says less; no warning.
		{"bursts of several tokens a chunk", &quiet, Gaps{Streams: 4, OneToken: 1, Gaps: 100, Zero: 18, Median: time.Millisecond}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := Warnings(c.h, c.g)
			if c.want == "" {
				assert.Empty(t, ws)
				return
			}
			require.Len(t, ws, 1)
			assert.Contains(t, ws[0], c.want)
		})
	}
}

// The whole text of the warning of issue #30's symptom, pinned.
func TestWarningText(t *testing.T) {
	h := &llmmetrics.ClientHealth{Window: time.Second, Procs: 2, CPU: 500 * time.Millisecond, Tick: Tick, Ticks: 100,
		TickP99: 4200 * us, TickMax: 12 * time.Millisecond, Sched: 1000, SchedP99: [2]time.Duration{4 * time.Millisecond, 0}}
	g := Gaps{Streams: 1000, OneStamp: 22, OneToken: 1000, Gaps: 63000, Zero: 11340, Median: 2 * time.Millisecond}
	assert.Equal(t, []string{"WARNING: the client read late: a ticker of 10ms woke 4.2ms late at p99 (max 12ms) and Go's scheduler latency p99 is at least 4ms, " +
		"against a limit of 2ms; 18.0% of chunk gaps are exactly 0 and 2.2% of streams share one timestamp — the gaps are the client's, not the server's; " +
		"run the client on a quieter machine or with fewer concurrent requests"}, Warnings(h, g))
}

// Four significant digits, by hand.
func TestRound(t *testing.T) {
	for _, c := range []struct{ d, want time.Duration }{
		{999, 999}, {1792, 1792}, {25_166_080, 25_170_000}, {123_456_789, 123_500_000}, {4_200_000, 4_200_000},
	} {
		assert.Equal(t, c.want, Round(c.d), "%d", c.d)
	}
}
