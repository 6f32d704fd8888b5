package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
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

// simulation counts, over pairs of 5 + 5 simulated runs, how often Diff
// calls the p50 TTFT change significant, and how often the pooled
// per-request test (the Mann–Whitney test on every request of a side,
// which Diff no longer uses) does.
func simulation(t *testing.T, seed uint64, pairs int, shift float64) (perRun, pooled float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	const runs, requests = 5, 60
	const sigmaRun, sigmaReq = 0.05, 0.3
	opt := DiffOptions{Summary: llmmetrics.Options{Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50)}}}
	var hits, pooledHits int
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
		d, err := DiffRuns(a, b, opt)
		if err != nil {
			t.Fatal(err)
		}
		if d.Rows[0].Name != "ttft p50" {
			t.Fatalf("first row %q", d.Rows[0].Name)
		}
		if d.Rows[0].Significant {
			hits++
		}
		if p, _ := MannWhitney(pa, pb); p.P < 0.05 {
			pooledHits++
		}
	}
	return float64(hits) / float64(pairs), float64(pooledHits) / float64(pairs)
}

// The statistics, by simulation: runs of one configuration differ by a
// run effect of 5 % (σ of the log) besides their requests' own spread of
// 30 %, 60 requests a run, 5 runs a side. On A/A pairs (no true change)
// Diff may call the p50 TTFT change significant in at most 5 % of pairs;
// the exact test's size at 5 + 5 runs is 8/252 = 3.2 % (the two-sided p
// of U ≤ 2). On a true 20 % shift it must find the change in at least 80 %
// of pairs. The pooled per-request test, which ignores the run effect, is
// shown to be wrong on the same A/A data: that is why Diff does not use it.
func TestDiffSimulation(t *testing.T) {
	const pairs = 400 // about 1.5 s
	aa, aaPooled := simulation(t, 1, pairs, 1)
	power, _ := simulation(t, 2, pairs, 1.2)
	t.Logf("%d pairs of 5 + 5 runs: A/A false-positive rate %.3f (pooled per-request test: %.3f); power on a 20%% shift %.3f", pairs, aa, aaPooled, power)
	if aa > 0.05 {
		t.Errorf("A/A false-positive rate %.3f > 0.05", aa)
	}
	if power < 0.8 {
		t.Errorf("power on a true 20%% shift %.3f < 0.80", power)
	}
	if aaPooled <= 0.2 {
		t.Errorf("the pooled test's A/A false-positive rate is %.3f: the simulation's run effect is too small to show why runs are the unit", aaPooled)
	}
}
