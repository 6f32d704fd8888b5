package compare_test

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
)

func ExampleMedianMAD() {
	// p99 TTFT of five runs of the same sweep.
	ms := time.Millisecond
	runs := []time.Duration{15 * ms, 20 * ms, 35 * ms, 40 * ms, 50 * ms}
	s, _ := compare.MedianMAD(runs)
	fmt.Printf("%v ± %v (MAD, n=%d)\n", s.Median, s.MAD, s.N)
	// Output: 35ms ± 15ms (MAD, n=5)
}

func ExampleParseCondition() {
	c, err := compare.ParseCondition("p99(ttft)>500ms")
	fmt.Println(c.Stat, c.Metric, c.Op, time.Duration(c.Limit), err)
	// Output: p99 ttft > 500ms <nil>
}

func ExampleCondition_Check() {
	recs := []llmmetrics.Record{
		{ID: "a", FirstText: 300 * time.Millisecond, LastText: time.Second, CompletionTokens: 8},
		{ID: "b", FirstText: 700 * time.Millisecond, LastText: 2 * time.Second, CompletionTokens: 8},
	}
	s, _ := llmmetrics.Summarize(recs, llmmetrics.Options{})
	c, _ := compare.ParseCondition("p99(ttft)>500ms")
	failed, value, err := c.Check(s)
	fmt.Println(failed, value, err)
	// Output: true 700ms <nil>
}

func ExampleMannWhitney() {
	// Three runs a side, every B run faster: the most extreme of the 20
	// ways to split six values, so p = 2/20.
	a := []float64{612, 598, 605}
	b := []float64{650, 660, 655}
	t, _ := compare.MannWhitney(a, b)
	fmt.Println(t.U, t.P, t.Exact)
	// Output: 0 0.1 true
}

// diffRuns makes runs of 40 requests whose TTFT is base + k + i ms in
// run k, request i; E2E is TTFT + 400 ms, with 21 tokens.
func diffRuns(base time.Duration, runs int) []*llmmetrics.Run {
	var out []*llmmetrics.Run
	for k := range runs {
		var recs []llmmetrics.Record
		for i := range 40 {
			ttft := base + time.Duration(k+i)*time.Millisecond
			recs = append(recs, llmmetrics.Record{ID: fmt.Sprint(i), Sent: time.Duration(i) * 100 * time.Millisecond,
				FirstText: ttft, LastText: ttft + 400*time.Millisecond, CompletionTokens: 21})
		}
		h := &llmmetrics.RunHeader{Model: "m", Load: map[string]string{"loop": "closed", "concurrency": "4"}}
		out = append(out, &llmmetrics.Run{Header: h, Records: recs})
	}
	return out
}

func ExampleDiffRuns() {
	// By hand: run k's TTFTs are base + k + 0 … 39 ms, so its nearest-rank
	// p50 (the 20th of 40) is base + k + 19 ms: 119 … 122 ms for A, whose
	// median is 120.5, and 149 … 152 for B. Every B run is above every A
	// run, the most extreme of C(8, 4) = 70 splits: p = 2/70 < 0.05. TPOT
	// is 400 ms / (21 − 1) = 20 ms in every run, all tied.
	a, b := diffRuns(100*time.Millisecond, 4), diffRuns(130*time.Millisecond, 4)
	d, _ := compare.DiffRuns(a, b, compare.DiffOptions{Summary: llmmetrics.Options{Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50)}}})
	for _, r := range d.Rows[:2] {
		fmt.Printf("%s: %g → %g %s, p = %.4f, significant %v\n", r.Name, r.A.Median, r.B.Median, r.Unit, r.Test.P, r.Significant)
	}
	// Output:
	// ttft p50: 120.5 → 150.5 ms, p = 0.0286, significant true
	// tpot p50: 20 → 20 ms, p = 1.0000, significant false
}

func ExampleDiff_WriteTable() {
	// By hand: TTFT p50 120.5 → 150.5 ms is +30/120.5 = +24.90 %; its MAD
	// is median(1.5, 0.5, 0.5, 1.5) = 1 ms, 1/120.5 = 0.8 % of the median.
	// E2E is TTFT + 400 ms, so 520.5 → 550.5 ms, +30/520.5 = +5.76 %.
	a, b := diffRuns(100*time.Millisecond, 4), diffRuns(130*time.Millisecond, 4)
	d, _ := compare.DiffRuns(a, b, compare.DiffOptions{Summary: llmmetrics.Options{Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50)}}})
	d.Rows = d.Rows[:3] // the latencies
	d.WriteTable(os.Stdout)
	// Output:
	// A: 4 run(s), B: 4 run(s); significance level α = 0.05
	// each figure is computed per run (a percentile over that run's requests); A and B are the median ± MAD across runs,
	// the change is tested with the exact Mann–Whitney U test on the per-run values, n = runs
	//
	//                           A           B                   vs A
	//   ttft p50 (ms)  120.5 ± 1%  150.5 ± 1%  +24.90% (p=0.029 n=4)
	//   tpot p50 (ms)     20 ± 0%     20 ± 0%        ~ (p=1.000 n=4)
	//   e2e p50 (ms)   520.5 ± 0%  550.5 ± 0%   +5.76% (p=0.029 n=4)
	// not compared: prompt_tokens_per_s: all 4 A runs and all 4 B runs: no ok record carries a prompt token count
}

func ExampleDiff_MarshalJSON() {
	a, b := diffRuns(100*time.Millisecond, 1), diffRuns(100*time.Millisecond, 1)
	d, _ := compare.DiffRuns(a, b, compare.DiffOptions{})
	j, _ := d.MarshalJSON()
	var v struct {
		Rows []struct {
			Name        string
			Change      float64
			Significant bool
		}
	}
	json.Unmarshal(j, &v)
	fmt.Println(v.Rows[0].Name, v.Rows[0].Change, v.Rows[0].Significant)
	// Output: ttft p50 0 false
}

func ExampleDiffRow_LowerBound() {
	// B's second run has no output token count for its first 10 answers:
	// its output rate counts the other 30 only, a lower bound.
	a, b := diffRuns(100*time.Millisecond, 2), diffRuns(100*time.Millisecond, 2)
	for i := range 10 {
		r := &b[1].Records[i]
		r.CompletionTokens, r.NoUsage = 0, true
	}
	d, _ := compare.DiffRuns(a, b, compare.DiffOptions{})
	for _, r := range d.Rows {
		if r.LowerBound() {
			fmt.Println(r.Name, r.LowerA, r.LowerB)
		}
	}
	// Output: output_tokens_per_s 0 1
}

func ExampleMinRuns() {
	// 3 + 3 runs: the most extreme split is 2 of C(6, 3) = 20, p = 0.1.
	fmt.Println(compare.MinRuns(0.05), compare.MinRuns(0.2))
	// Output: 4 3
}

// sweepRun makes a run at a concurrency whose requests all take ttft to
// their first token, good of 10 of them, the rest 1 s.
func sweepRun(c float64, ttft time.Duration, good int) compare.LevelRun {
	var recs []llmmetrics.Record
	for i := range 10 {
		t := ttft
		if i >= good {
			t = time.Second
		}
		recs = append(recs, llmmetrics.Record{ID: fmt.Sprint(i), Sent: time.Duration(i) * time.Second, FirstText: t,
			LastText: t + 80*time.Millisecond, CompletionTokens: 5})
	}
	return compare.LevelRun{Kind: "concurrency", Level: c, Name: fmt.Sprint("c", c), Run: &llmmetrics.Run{Records: recs}}
}

func sweepExample() *compare.Sweep {
	ms := time.Millisecond
	runs := []compare.LevelRun{
		sweepRun(1, 100*ms, 10), sweepRun(1, 110*ms, 10), sweepRun(1, 130*ms, 10),
		sweepRun(4, 150*ms, 9), sweepRun(4, 160*ms, 9), sweepRun(4, 150*ms, 10),
		sweepRun(16, 190*ms, 6), sweepRun(16, 180*ms, 5), sweepRun(16, 185*ms, 7),
	}
	slo := llmmetrics.SLO{TTFT: 200 * ms}
	sw, _ := compare.SweepRuns(runs, llmmetrics.Options{SLO: &slo})
	return sw
}

func ExampleLevelOf() {
	run := &llmmetrics.Run{Header: &llmmetrics.RunHeader{Load: map[string]string{"loop": "closed", "concurrency": "8"}}}
	fmt.Println(compare.LevelOf(run))
	// Output: concurrency 8 true
}

func ExampleSweepRuns() {
	sw := sweepExample()
	for _, lv := range sw.Levels {
		f, _ := lv.Figure("ttft p50")
		fmt.Printf("concurrency %g: %d runs, TTFT p50 %g ±%g ms\n", lv.Level, lv.Runs, f.Spread.Median, f.Spread.MAD)
	}
	// Output:
	// concurrency 1: 3 runs, TTFT p50 110 ±10 ms
	// concurrency 4: 3 runs, TTFT p50 150 ±0 ms
	// concurrency 16: 3 runs, TTFT p50 185 ±5 ms
}

func ExampleSweepLevel_Figure() {
	f, ok := sweepExample().Levels[1].Figure("attainment")
	fmt.Println(f.Spread.Median, ok)
	// Output: 0.9 true
}

func ExampleSweep_Capacity() {
	// Attainment 1, 0.9 and 0.6 at concurrency 1, 4 and 16.
	c, _ := sweepExample().Capacity(0.9)
	fmt.Println(c)
	// Output: 90% attainment holds up to concurrency 4 and fails at 16; linear between them, it crosses at 4
}

func ExampleCapacity_String() {
	c, _ := sweepExample().Capacity(0.95)
	fmt.Println(c)
	// Output: 95% attainment holds up to concurrency 1 and fails at 4; linear between them, it crosses at 2.5
}

func ExampleSweep_WriteTable() {
	// By hand, concurrency 1 (TTFT 100, 110 and 130 ms; all 10 requests
	// good): a run's window is 0 → 9 s + TTFT + 80 ms, so its output rate
	// is 50 tokens / 9.18, 9.19 and 9.21 s = 5.4466, 5.4407 and 5.4289
	// tokens/s: median 5.4407, MAD median(0.0059, 0, 0.0118) = 0.0059. Each
	// request is in flight TTFT + 80 ms, so the mean in flight is 10 × 0.18
	// / 9.18 = 0.1961, 1.9 / 9.19 = 0.2067 and 2.1 / 9.21 = 0.2280: median
	// 0.2067, MAD median(0.0107, 0, 0.0213) = 0.0107. At 16, 6, 5 and 7 of
	// 10 good: attainment median 0.6, MAD 0.1.
	sweepExample().WriteTable(os.Stdout)
	// Output:
	// per concurrency level, median ±MAD (raw) across runs; latency percentiles are per run (nearest rank unless said), so a row is the median of per-run percentiles, not a percentile of pooled requests
	// attainment: good / offered against SLO ttft=200ms (inclusive ≤), a percentage goodput
	//
	//   concurrency                                 1               4             16
	//   runs                                        3               3              3
	//   ttft p50 (ms)                         110 ±10          150 ±0         185 ±5
	//   ttft p95 (ms)                         110 ±10         1000 ±0        1000 ±0
	//   ttft p99 (ms)                         110 ±10         1000 ±0        1000 ±0
	//   tpot p50 (ms)                           20 ±0           20 ±0          20 ±0
	//   tpot p95 (ms)                           20 ±0           20 ±0          20 ±0
	//   tpot p99 (ms)                           20 ±0           20 ±0          20 ±0
	//   e2e p50 (ms)                          190 ±10          230 ±0         265 ±5
	//   e2e p95 (ms)                          190 ±10         1080 ±0        1080 ±0
	//   e2e p99 (ms)                          190 ±10         1080 ±0        1080 ±0
	//   user_tps p50 (tokens/s)                 50 ±0           50 ±0          50 ±0
	//   output_tokens_per_s (tokens/s)  5.441 ±0.0059         4.96 ±0        4.96 ±0
	//   requests_per_s (requests/s)     1.088 ±0.0012       0.9921 ±0      0.9921 ±0
	//   attainment (fraction)                    1 ±0          0.9 ±0       0.6 ±0.1
	//   error_rate (fraction)                    0 ±0            0 ±0           0 ±0
	//   in_flight mean (requests)       0.2067 ±0.011  0.3125 ±0.0089  0.5893 ±0.075
	//   arrival_cv (ratio)                       0 ±0            0 ±0           0 ±0
	//   output_tokens p50 (tokens)               5 ±0            5 ±0           5 ±0
	// absent: itl at concurrency 1, 4, 16: no ok record carries chunk arrival times (a CSV file keeps none, nor do some tools' files)
	// absent: max_gap at concurrency 1, 4, 16: no ok record carries chunk arrival times (a CSV file keeps none, nor do some tools' files)
	// absent: prompt_tokens_per_s at concurrency 1, 4, 16: no ok record carries a prompt token count
	// absent: workload.early_stop at concurrency 1, 4, 16: no ok request says its max_tokens
	// absent: workload.prompt at concurrency 1, 4, 16: no ok request carries a prompt token count
	//
	// environment: not recorded
}

func ExampleSweep_MarshalJSON() {
	b, _ := sweepExample().MarshalJSON()
	var v struct {
		Levels []struct {
			Level   float64
			Figures map[string]struct{ Median, Mad float64 }
		}
	}
	json.Unmarshal(b, &v)
	fmt.Println(v.Levels[2].Level, v.Levels[2].Figures["attainment"].Median)
	// Output: 16 0.6
}

func ExampleSpectrum() {
	xs := []time.Duration{40 * time.Millisecond, 42 * time.Millisecond, 45 * time.Millisecond, 300 * time.Millisecond}
	sp, _ := compare.Spectrum(xs)
	for _, p := range sp {
		fmt.Printf("%.4f %v %d\n", p.Quantile, p.Value, p.Count)
	}
	// Output:
	// 0.0000 40ms 1
	// 0.1294 40ms 1
	// 0.2421 40ms 1
	// 0.3402 42ms 2
	// 0.4257 42ms 2
	// 0.5000 42ms 2
	// 0.5647 45ms 3
	// 0.6211 45ms 3
	// 0.6701 45ms 3
	// 0.7128 45ms 3
	// 1.0000 300ms 4
}

func ExampleWriteSpectrum() {
	compare.WriteSpectrum(os.Stdout, []time.Duration{40 * time.Millisecond, 300 * time.Millisecond})
	// Output:
	//        Value     Percentile TotalCount 1/(1-Percentile)
	//
	//       40.000 0.000000000000          1           1.00
	//       40.000 0.129449436704          1           1.15
	//       40.000 0.242141716745          1           1.32
	//       40.000 0.340246044614          1           1.52
	//       40.000 0.425650822501          1           1.74
	//      300.000 1.000000000000          2            inf
	// #[Mean    =      170.000, StdDeviation   =      130.000]
	// #[Max     =      300.000, Total count    =            2]
	// #[values in milliseconds; each a real sample (nearest rank)]
}

// A condition on a figure the run lacks cannot be judged: an error, never
// a pass.
func ExampleAbsentError_Error() {
	recs := []llmmetrics.Record{{ID: "a", Status: llmmetrics.StatusError, Message: "HTTP 500: busy"}}
	s, _ := llmmetrics.Summarize(recs, llmmetrics.Options{})
	c, _ := compare.ParseCondition("p99(ttft)>1s")
	_, _, err := c.Check(s)
	fmt.Println(err)
	// Output: condition "p99(ttft)>1s" cannot be judged: the run has no ttft distribution: no ok request
}
