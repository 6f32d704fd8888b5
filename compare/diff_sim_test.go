package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// simRun simulates one run of a configuration whose median TTFT is base:
// the run has an effect of its own, a factor exp(σ_run·Z) shared by its
// requests (the machine, the server's state, the neighbours of a shared
// host), and each request a factor exp(σ_req·Z) of its own. TPOT follows
// the same model; E2E is TTFT + 15 · TPOT.
func simRun(rng *rand.Rand, base time.Duration, requests int, sigmaRun, sigmaReq float64) *llmmetrics.Run {
	runEffect := math.Exp(sigmaRun * rng.NormFloat64())
	recs := make([]llmmetrics.Record, requests)
	for i := range recs {
		ttft := time.Duration(float64(base) * runEffect * math.Exp(sigmaReq*rng.NormFloat64()))
		tpot := time.Duration(float64(20*time.Millisecond) * runEffect * math.Exp(sigmaReq*rng.NormFloat64()))
		recs[i] = llmmetrics.Record{ID: fmt.Sprint(i), Sent: time.Duration(i) * 200 * time.Millisecond,
			FirstText: ttft, LastText: ttft + 15*tpot, CompletionTokens: 16, PromptTokens: 100}
	}
	return &llmmetrics.Run{Records: recs}
}

// simulated are the rates at which Diff called rows significant over
// pairs of simulated 5 + 5 runs.
type simulated struct {
	pairs  int
	rows   map[string]float64 // by row: the fraction of pairs significant
	anyLat float64            // the fraction of pairs with some latency row significant
	pooled float64            // the pooled per-request test of p50 TTFT
}

// simulate runs pairs of 5 + 5 simulated runs, B's TTFT base shifted by
// the factor shift, and counts how often each row of Diff is significant,
// and how often the pooled per-request test (the Mann–Whitney test on
// every request of a side, which Diff does not use) finds the TTFT
// different.
func simulate(t *testing.T, seed uint64, pairs int, shift float64) simulated {
	rng := rand.New(rand.NewPCG(seed, 1))
	const runs, requests = 5, 60
	const sigmaRun, sigmaReq = 0.05, 0.3
	hits := map[string]int{}
	var anyLat, pooled int
	for range pairs {
		var a, b []*llmmetrics.Run
		var pa, pb []time.Duration
		for range runs {
			a = append(a, simRun(rng, 500*time.Millisecond, requests, sigmaRun, sigmaReq))
			b = append(b, simRun(rng, time.Duration(float64(500*time.Millisecond)*shift), requests, sigmaRun, sigmaReq))
			for _, r := range a[len(a)-1].Records {
				pa = append(pa, r.FirstText)
			}
			for _, r := range b[len(b)-1].Records {
				pb = append(pb, r.FirstText)
			}
		}
		d, err := DiffRuns(a, b, DiffOptions{})
		if err != nil {
			t.Fatal(err)
		}
		some := false
		for _, r := range d.Rows {
			if r.Significant {
				hits[r.Name]++
				some = some || r.Unit == "ms"
			}
		}
		if some {
			anyLat++
		}
		if p, _ := MannWhitney(pa, pb); p.P < 0.05 {
			pooled++
		}
	}
	s := simulated{pairs: pairs, rows: map[string]float64{}, anyLat: float64(anyLat) / float64(pairs), pooled: float64(pooled) / float64(pairs)}
	for _, m := range []string{"ttft", "tpot", "e2e"} {
		for _, p := range llmmetrics.DefaultPercentiles {
			s.rows[m+" "+p.Key()] = float64(hits[m+" "+p.Key()]) / float64(pairs)
		}
	}
	return s
}

func (s simulated) String() string {
	var b strings.Builder
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.rows {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, " %s %.3f;", k, s.rows[k])
	}
	return b.String()
}

// The statistics, by simulation: runs of one configuration differ by a
// run effect of 5 % (σ of the log) besides their requests' own spread of
// 30 %, 60 requests a run, 5 runs a side, 1,000 seeded pairs. On A/A pairs
// (no true change) Diff may call each latency row significant in at most
// 5 % of pairs: the exact test's size at 5 + 5 runs is 8/252 = 3.2 % (the
// two-sided p of U ≤ 2), whatever the run effect. On a true 20 % shift of
// TTFT it must find the p50 TTFT change in at least 80 % of pairs. The
// pooled per-request test, which ignores the run effect, is shown wrong on
// the same A/A data: that is why Diff does not use it. Each row is a test
// of its own, as in benchstat: over the 12 latency rows of a pair, some
// row is significant far more often than 5 % (logged, not a defect).
func TestDiffSimulation(t *testing.T) {
	aa := simulate(t, 1, 1000, 1)
	shifted := simulate(t, 2, 1000, 1.2)
	t.Logf("A/A, 1000 pairs of 5 + 5 runs:%s some latency row %.3f; pooled per-request test of p50 TTFT %.3f", aa, aa.anyLat, aa.pooled)
	t.Logf("a true 20%% TTFT shift: p50 TTFT found in %.3f of pairs", shifted.rows["ttft p50"])
	for row, rate := range aa.rows {
		if rate > 0.05 {
			t.Errorf("A/A false-positive rate of %s %.3f > 0.05", row, rate)
		}
	}
	if p := shifted.rows["ttft p50"]; p < 0.8 {
		t.Errorf("power on a true 20%% shift %.3f < 0.80", p)
	}
	if aa.pooled <= 0.15 {
		t.Errorf("the pooled test's A/A false-positive rate is %.3f: the simulation's run effect is too small to show why runs are the unit", aa.pooled)
	}
}
