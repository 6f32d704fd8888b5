package genhealth

import (
	"fmt"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// The thresholds of Warnings.
const (
	// MinLate is the least lateness that is reading late. A client is
	// late when its ticker's p99, or the low end of the runtime's
	// scheduling latency p99, reaches MinLate or a tenth of the median
	// gap, whichever is larger: a delay that small beside the gaps moves
	// them little. It is 2 ms, twice what a ticker may lag on a quiet
	// machine by the runtime's own means: Go's timers on Linux wait in
	// whole milliseconds (epoll_wait), so a wake may come up to 1 ms after
	// its deadline with nothing else running.
	MinLate = 2 * time.Millisecond
	// MinP90 and MinP99 are the fewest samples over which lateness is
	// judged at the p90 and at the p99 (nearest rank): under 100, one
	// late wake is the p99 and the p90 is the 10th worst, so the p50 is
	// taken; under 1,000 the p99 is one of the ten worst wakes, which a
	// passing stall of the machine makes, so the p90 is taken.
	MinP90 = 100
	MinP99 = 1000
	// BurstShare is the share of gaps of exactly 0 above which the chunks
	// of a client that read on time came in bursts.
	BurstShare = 0.05
)

// Lateness returns the client's lateness as Warnings judges it, the
// larger of the ticker's p99 and the low end of the runtime's scheduling
// latency p99, and the threshold it is judged by (see MinLate). Either
// p99 over fewer than MinP99 samples is its largest, and the p50 is taken
// in its place.
func Lateness(h *llmmetrics.ClientHealth, g Gaps) (late, limit time.Duration) {
	tick, _ := tickLate(h)
	sched, _ := schedLate(h)
	return max(tick, sched[0]), max(MinLate, g.Median/10)
}

// tickLate returns the ticker's lateness as judged, and its statistic:
// the p99, or with fewer than MinP99 deadlines the p90 (where the health
// has one: files written before it have none), with fewer than MinP90
// the p50.
func tickLate(h *llmmetrics.ClientHealth) (time.Duration, string) {
	switch {
	case h.Ticks < MinP90:
		return h.TickP50, "p50"
	case h.Ticks < MinP99 && h.TickP90 > 0:
		return h.TickP90, "p90"
	}
	return h.TickP99, "p99"
}

// schedLate returns the runtime's scheduling latency bucket as judged,
// and its statistic, as tickLate does.
func schedLate(h *llmmetrics.ClientHealth) ([2]time.Duration, string) {
	if h.Sched < MinP90 {
		return h.SchedP50, "p50"
	}
	return h.SchedP99, "p99"
}

// tooFew says of a statistic taken over n samples that it stands for a
// p99 there are too few samples for, after sep; "" for a p99.
func tooFew(stat, sep string, n uint64, what string) string {
	if stat == "p99" {
		return ""
	}
	return fmt.Sprintf("%s%d %s, too few for a p99", sep, n, what)
}

// Warnings returns the warnings a run's health and gaps call for: the
// client read late, with the figures that say so and what it did to the
// gaps; or, the client on time, the chunks of one token each came in
// bursts (more than BurstShare of their gaps exactly 0). Nil for none.
func Warnings(h *llmmetrics.ClientHealth, g Gaps) []string {
	if h == nil {
		return nil
	}
	late, limit := Lateness(h, g)
	switch {
	case late >= limit:
		var why []string
		if h.Ticks > 0 {
			v, stat := tickLate(h)
			why = append(why, fmt.Sprintf("a ticker of %v woke %v late at %s (max %v%s)", h.Tick, Round(v), stat, Round(h.TickMax), tooFew(stat, "; ", uint64(h.Ticks), "deadlines")))
		}
		if h.Sched > 0 {
			b, stat := schedLate(h)
			few := tooFew(stat, " (", h.Sched, "samples")
			if few != "" {
				few += ")"
			}
			why = append(why, fmt.Sprintf("Go's scheduler latency %s is %s%s", stat, bucket(b), few))
		}
		limitWhy := ""
		if limit > MinLate {
			limitWhy = " (a tenth of the median chunk gap)"
		}
		symptom := ""
		if g.Gaps > 0 {
			symptom = fmt.Sprintf("; %s of chunk gaps are exactly 0 and %s of streams share one timestamp", pct(g.ZeroShare()), pct(g.OneStampShare()))
		}
		busy := ""
		if h.Window > 0 && h.Procs > 0 {
			if cores := h.CPU.Seconds() / h.Window.Seconds(); cores >= 0.8*float64(h.Procs) {
				busy = fmt.Sprintf("; it used %.2f CPU-seconds a second of its %d (GOMAXPROCS)", cores, h.Procs)
			}
		}
		whose := "the gaps are the client's, not the server's"
		if g.Gaps == 0 {
			whose = "no stream had two chunks, so no gap is distorted, but every time the client took includes its lateness"
		}
		return []string{fmt.Sprintf("WARNING: the client read late: %s, against a limit of %v%s%s%s — %s; run the client on a quieter machine or with fewer concurrent requests",
			strings.Join(why, " and "), Round(limit), limitWhy, symptom, busy, whose)}
	case g.Gaps > 0 && g.ZeroShare() > BurstShare && 2*g.OneToken >= g.Streams:
		return []string{fmt.Sprintf("WARNING: %s of chunk gaps are exactly 0 (%d of %d) though each chunk carries one token and the client read on time (lateness %v, under %v): the chunks arrived together, sent in bursts by the server or the network, and the gaps (ITL) describe the bursts, not the pace of decoding",
			pct(g.ZeroShare()), g.Zero, g.Gaps, Round(late), Round(limit))}
	}
	return nil
}

// Round rounds a duration to 4 significant digits for the text.
func Round(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for d/unit >= 10000 {
		unit *= 10
	}
	return d.Round(unit)
}

// bucket writes a histogram's bucket [low, high).
func bucket(b [2]time.Duration) string {
	if b[1] == 0 {
		return fmt.Sprintf("at least %v", Round(b[0]))
	}
	return fmt.Sprintf("in [%v, %v)", Round(b[0]), Round(b[1]))
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
