// Package compare compares runs of an LLM serving benchmark, each read and
// summarized by the package llmmetrics, as golang.org/x/perf's benchmath
// stands apart from benchfmt: it works through llmmetrics' exported API
// alone. Its functions take each run as read ([llmmetrics.Run], which
// carries the file's window and what its reader set aside) and summarize
// it with [llmmetrics.Run.Summarize]: every figure is one value per run.
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
// as median ± MAD across the level's repeats (the specification asks for
// at least 3; fewer is warned about). Each percentile is computed per run over its
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
// benchmarks: every figure (each latency percentile of a run, over that
// run's requests; each rate; the attainment; the error rate) is computed
// once per run, and the two sides' per-run values are compared with the
// Mann–Whitney U test ([MannWhitney]: exact for samples of at most 20
// values, from the distribution of A's rank sum over every split, ties
// given average ranks; otherwise the normal approximation with the tie
// correction and a continuity correction of ½). Requests pooled across
// runs are not independent samples, so n is the number of runs. A change
// is significant when p < α (0.05 by default); [MinRuns] gives the runs a
// side needed to reach α at all (4 for 0.05). Differences between the
// sides' run headers are warnings.
//
// # Gates
//
// A [Condition] ("p99(ttft)>500ms", "error_rate>0.01", "attainment<0.95")
// is a threshold on one figure of a [llmmetrics.Summary], for a gate in CI;
// [Condition.Check] reads the figure and says whether the run crosses it.
// A figure the summary lacks is an error wrapping [llmmetrics.ErrInvalidOption],
// never a pass, and so is one that is only a bound the condition's limit
// falls within: an output rate that leaves out ok requests without a
// token count, or a TPOT statistic where some ok requests' TPOT is
// unknown for want of a count (any percentile; a mean, min or max only
// where the bound does not decide it). "p99(ttft_from_scheduled)>1s"
// gates an open loop's TTFT from each request's scheduled time
// (coordinated omission corrected).
//
// # Spread across runs
//
// [MedianMAD] gives the median ± raw MAD of a figure over repeated runs,
// with 1.4826·MAD as a separate, named value.
package compare
