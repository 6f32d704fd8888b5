// Package compare compares runs of an LLM serving benchmark, each read and
// summarized by the package llmmetrics, as golang.org/x/perf's benchmath
// stands apart from benchfmt: it works through llmmetrics' exported API
// alone, a [llmmetrics.Summary] per run.
//
// # Percentile spectrum
//
// [Spectrum] and [WriteSpectrum] give a sample's values at quantiles
// 1 − 2^(−k/5), k = 0, 1, … (the layout of HdrHistogram's percentile
// distribution, which its plotter and hdrplot-style tools read), each a
// real sample by nearest rank, up to the maximum: for people who plot the
// tail elsewhere.
//
// # Sweeps and capacity
//
// [SweepRuns] groups runs by load level (a concurrency or a rate, from the
// run header with [LevelOf], or given) and reports each figure per level
// as median ± MAD across the level's repeats (the lessons ask for at least
// 3; fewer is warned about). Each percentile is computed per run over its
// own requests; the sweep's figure is the median of those per-run
// percentiles, which is not the percentile of the pooled requests and is
// named so. [Sweep.Capacity] reads the highest level whose median
// attainment meets a target (0.9 by default) with every level below it,
// and the first that misses it — a bracket, with the crossing linear
// between the two, never extrapolated beyond the levels measured
// (DistServe's framing: the largest load at which the attainment goal
// holds). The sub-package drive searches for that bracket by measurement
// (drive.SearchCapacity).
//
// # Comparing runs
//
// [DiffRuns] compares two sets of runs, A and B, as benchstat compares
// benchmarks. Latency rows are percentiles of the per-request values
// pooled over each side's runs (never averages of per-run percentiles);
// their p50 is tested with the Mann–Whitney U test on those values
// ([MannWhitney]: exact for samples of at most 20 values, from the
// distribution of A's rank sum over every split, ties given average ranks;
// otherwise the normal approximation with the tie correction and a
// continuity correction of ½). Rate rows (output and prompt tokens/s,
// requests/s, attainment, error rate) are medians over runs, tested on the
// per-run values. A change is significant when p < α (0.05 by default);
// with fewer than 3 runs a side a rate's change never is.
//
// # Gates
//
// A [Condition] ("p99(ttft)>500ms", "error_rate>0.01", "attainment<0.95")
// is a threshold on one figure of a [llmmetrics.Summary], for a gate in CI;
// [Condition.Check] reads the figure and says whether the run crosses it.
// A figure the summary lacks is an error wrapping [llmmetrics.ErrInvalidOption],
// never a pass.
//
// # Spread across runs
//
// [MedianMAD] gives the median ± raw MAD of a figure over repeated runs,
// with 1.4826·MAD as a separate, named value.
package compare
