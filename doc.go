// Package llmmetrics computes the client-side latency, throughput and
// goodput metrics of an LLM serving run from per-request records, with every
// convention stated and no record lost.
//
// A run is a slice of [Record], one per request, as the client saw it: when
// it was sent, when each text-bearing chunk arrived (or only the first and
// the last), how many tokens the server's usage reported, and how it ended.
// [Summarize] turns a run into a [Summary]; [ReadCSV], [ReadJSONL] and
// [Read] load runs from files; the per-record methods compute one request's
// metrics.
//
// The definitions are those of the project's specification: three
// documents with worked examples (seed 000, serving workloads and
// performance metrics; 002, TTFT, TPOT and goodput; 004, the TTFT
// benchmark), kept in the project's shared folder beside the repository,
// ../shared/seeds. Every worked example is a golden test; testdata/seeds
// lists them with the section each comes from.
//
// # Definitions
//
// For one request r, let t_sent be its send time, t_first and t_last the
// arrivals of its first and last text-bearing chunks, and n its completion
// tokens as the server's usage reports them (never the number of chunks). A
// chunk is text-bearing when it carries output text: role-only and empty
// deltas, usage frames, keep-alives and [DONE] are not, and are neither
// timestamps nor tokens.
//
//	TTFT   = t_first − t_sent                       (ttft.go)
//	E2E    = t_last − t_sent                        (e2e.go)
//	       = TTFT + Σ gaps = TTFT + (n − 1)·TPOT     exactly
//	TPOT   = (t_last − t_first) / (n − 1),  n ≥ 2   (tpot.go)
//	UserTPS = (n − 1) / (E2E − TTFT) = 1 / TPOT     output tokens/s, n ≥ 2
//	gap_k  = t_k − t_(k−1) over the text-bearing chunks   (itl.go)
//	MaxGap = max_k gap_k, the request's worst stall
//
// A request with n = 1 has no gap and so no TPOT: it is excluded from TPOT
// statistics, and the number excluded is reported (never a TPOT of 0).
//
// The Databricks approximation TTFT + n·TPOT is offered by
// [Record.DatabricksE2E], labelled as an approximation: it multiplies TPOT by
// the n tokens rather than the n − 1 gaps, so it overestimates E2E by exactly
// one TPOT, an error of 1/n relative to its decode term.
//
// Gaps and ITL. The gaps between chunks are inter-token latencies only when
// each chunk carried one token. A record's gaps are per-token ([BasisToken])
// when its number of text-bearing chunks equals n; otherwise they are chunk
// gaps ([BasisChunk]), and the distribution of the gaps between its tokens is
// unknown: only their mean, its TPOT, is known. The pooled gap distribution
// of a run is labelled token only when every pooled request validated, and
// the report says how many did.
//
// Averages. Two means of the per-token pace are reported, and labelled:
//
//	request-weighted mean TPOT = Σ_r TPOT_r / N          (TPOTStats.Mean)
//	gap-weighted mean          = Σ_r (t_last − t_first) / Σ_r (n_r − 1)
//	                                                      (TPOTStats.GapWeightedMean)
//
// The first weights each request equally; the second weights each
// inter-token gap equally, so long responses dominate it. The mean of the
// pooled chunk gaps (ITLStats.Mean) is gap-weighted too, over chunk gaps.
//
// Throughput (throughput.go) over a window of length W:
//
//	output tokens/s = Σ n_r / W            over ok requests   (OutputTokenRate)
//	prompt tokens/s = Σ prompt_r / W       over ok requests   (PromptTokenRate)
//	requests/s      = (number of ok requests) / W             (RequestRate)
//
// The three rates are distinct types, so an output rate cannot be added to a
// prompt rate by accident. The window is declared by the caller
// ([Options.Window]) or derived from the run, from the first send of any
// offered request to the last text chunk of any request; the report always
// says which, and a window of zero length is an error ([ErrInvalidWindow]).
// A token rate that leaves out ok requests without a count is marked a
// lower bound ([Throughput.LowerBound], [Throughput.PromptLowerBound]).
//
// Goodput (goodput.go). An [SLO] sets limits on TTFT, TPOT, E2E and the
// largest gap, any subset; each request is judged on all of them jointly. A
// limit is met when the value is at most the limit (≤), or, with
// SLO.Strict, below it (<). A one-token request has no TPOT, so a TPOT limit
// does not apply to it; one without a usable count has an unknown TPOT, which
// leaves it unjudged and not good ([Goodput.Unjudged]): the attainment is then
// from good/offered to (good+unjudged)/offered. Two figures come out:
//
//	attainment = good / offered          a fraction
//	goodput    = good / W                good requests per second
//
// Failed, timed-out, cancelled, zero-token and rejected requests stay in the
// offered count and are never good, so they lower attainment. Warm-up
// requests are not measured, so they are neither good nor offered here.
//
// # The catalogue of metrics
//
// [Metrics] lists the latency distributions of a Summary, in the order
// every output gives them, each a [Metric]: its key (ttft, tpot, e2e, itl,
// max_gap, ttft_from_scheduled, e2e_from_scheduled: in JSON as ttft_ms,
// in Summary.Absent, --slo and --fail-if), its names, unit, basis and
// weighting, and the symbol whose doc gives its formula. The report and
// its JSON, the package compare's gates, diff and sweep, the charts and
// the command take them from there, and [Metric.Distribution],
// [Metric.Value] and [Metric.Limit] read a metric from a Summary, a
// Record and an SLO. A new metric is its computation, its entry and a
// golden test; testdata/json_keys.golden pins the keys of the JSON.
//
// # Accounting
//
// Every record offered to [Summarize] ends in exactly one [Category]:
//
//	ok          status ok and n ≥ 1: a latency sample
//	zero_token  status ok and n = 0: no text, so no TTFT; counted apart
//	failed      status error, timeout or cancelled: counted, never a sample
//	rejected    invalid, set aside with its reason (lenient mode only)
//	warmup      valid, sent during the run's warm-up: counted, never a sample
//
// and offered = ok + zero_token + failed + rejected + warmup + preflight +
// unfinished always holds, preflight counting the warm-up records a load
// generator sent before its load to check the endpoint or size the prompts
// ([Record.Preflight]): counted apart from the warm-up, never a sample;
// unfinished counting the requests another tool stopped at its run's end
// without their outcome ([Record.Unfinished], GuideLLM's incomplete
// requests): not failed, never a sample, not judged by an SLO.
// Among the ok requests, one_token counts those with n = 1, and no_count
// those without a usable server count ([CountState]): no usage block (most
// OpenAI clients do not ask for stream_options.include_usage), a usage of
// zero for text that arrived, or a count below the text-bearing chunks.
// Such a request keeps what needs no count — TTFT, E2E, its chunk gaps
// (chunk basis) and its largest gap — and is left out of what does: TPOT,
// User TPS, the token rates, the output-length workload and strata, and
// the TPOT limit of an SLO (which does not apply to it, as for n = 1). Warm-up records
// (Record.Warmup) are also outside the derived window. Where steady state
// begins can be measured rather than assumed: [WarmupRule.Detect] applies
// the specification's illustrative rule ([LessonsWarmup]: medians of TTFT and
// TPOT over windows of 10 requests change by under 2 % three times in a
// row), its parameters exposed. Options.Warmup ([WarmupSpec]) marks more
// records warm-up before a summary — the first N in send order, those sent
// within a duration of the first, or those the rule finds — on a copy,
// and Summary.Warmup says where the cut fell and why. A cut is a send time:
// records sent at the same instant as the first measured one are measured.
//
// # Workload
//
// Every latency depends on what was asked, so a Summary describes the
// workload of its measured requests (Summary.Workload, a [Workload]):
//
//	prompt, output    token counts of the ok requests: nearest-rank p50 and
//	                  p95, max, and 8 equal bins of whole tokens (gonum's
//	                  stat.Histogram)
//	arrivals          gaps g between consecutive sends (all measured
//	                  requests, in send order): mean and CV = σ(g)/mean(g),
//	                  population σ, from exact sums; read as paced (CV < 0.8),
//	                  Poisson-like (0.8 ≤ CV ≤ 1.2) or bursty (CV > 1.2); no
//	                  CV (absent) when every gap is 0, "all at once"
//	in flight         ok requests in flight, each over [t_sent, t_last),
//	                  weighted by time over first send → last text: the
//	                  time-weighted mean, the smallest count held for at
//	                  least half the span (p50), and the maximum
//	early stop        ok requests with n < max_tokens among those whose
//	                  max_tokens is known
//
// Output length is not fixed, so one latency distribution mixes short and
// long replies: Options.Stratify summarizes the ok requests apart in strata
// of output length n (or prompt length), each (lo, hi] at the given bounds;
// requests that are not ok have no observed length and are unstratified.
//
// # Comparing runs
//
// The package compare stands on this one and compares runs through a
// [Summary] per run: two sets of runs as benchstat compares benchmarks,
// runs at several load levels and the capacity they bracket, gate
// conditions, the Mann–Whitney test, median ± MAD across runs, and the
// percentile spectrum. [Samples] gives the requests behind a summary's
// latency distributions, for a figure the Summary does not hold.
//
// # Client-side facts and the run header
//
// A load generator records, per request, what the stream cannot show
// ([ClientSide]): when an open loop's request was due (its lateness, from
// due to begun, makes coordinated omission visible), the client's own wait
// before the request was written (never inside TTFT), and the first answer
// chunk after any reasoning. A Summary reports their distributions
// (Summary.Client), and an open loop's TTFT and E2E from each request's
// scheduled time rather than its send (ClientStats.TTFTFromScheduled),
// which a slow client or a full concurrency cap cannot hide. A [RunHeader], the first line of a file written by
// llmmetrics run, says how the run was taken — target, load, flags,
// environment, what the server said of itself — and every report states it.
// The sub-packages observe and drive take such runs. [MergeRuns] puts the
// files of one load taken by several machines on one clock, by their
// headers' wall-clock starts, and says that the machines' clock offset is
// unknown.
//
// # Percentiles
//
// Percentiles are taken over the pooled per-request samples of the run (one
// TTFT per ok request, one TPOT per ok request with n ≥ 2, one gap per chunk
// gap). The package offers no way to average or subtract percentiles of
// different series: they are not quantities that combine. Two methods are
// offered, and the one used is part of every [Distribution] and every
// output:
//
//   - [NearestRank], the default: the value at rank ⌈p·N/100⌉ of the sorted
//     sample (Hyndman–Fan type 1), so p99 of 1,000 values is the 990th. The
//     rank is computed in exact integer arithmetic from the decimal
//     percentile ([Percentile] holds six decimal places exactly), so p7 of
//     100 values is the 7th, where float arithmetic gives the 8th. The value
//     is always a real sample, so for per-request metrics the report names
//     the request that holds it.
//   - [Linear]: linear interpolation at position (N − 1)·p/100 from 0
//     (Hyndman–Fan type 7), the default of numpy, R and Excel, and what
//     vLLM's benchmark reports. The position and interpolation are exact;
//     the value is rounded to the nearest nanosecond.
//
// gonum's stat.Quantile is neither: its Empirical kind is type 1 with float
// ranks, and its LinInterp kind is type 4.
//
// Each [Distribution] also has N, the min and max, the mean (exact integer
// sum, rounded to the nanosecond) and the population standard deviation
// √(Σ(x − mean)²/N) about that mean (divisor N, as numpy.std; not the
// sample deviation), with the sum of squares exact, rounded to a float64
// once, and the root rounded to the nanosecond: it does not depend on the
// order of the values or on the number of cores that summed them.
//
// # Units
//
// Every latency, limit and window in the API is a [time.Duration]: record
// times are nanoseconds, and nothing is rounded to milliseconds. Rates are
// float64 per second, with the unit in the type's name. Milliseconds and
// seconds appear only when a [Summary] is formatted ([Summary.WriteTable],
// [Summary.MarshalJSON]) and in file columns that carry the unit in their
// name (TTFT_ms, sent_ns).
//
// # Errors
//
// Anything that can come from data or options is an error, never a panic,
// and never NaN, an infinity or a silent 0 standing for "no data". Errors
// wrap sentinel values, so that callers can test them with errors.Is:
// [ErrNoRecords], [ErrNoSamples], [ErrNonFinite], [ErrNegativeDuration],
// [ErrNonMonotonic], [ErrTimeOrder], [ErrChunkMismatch], [ErrNegativeCount],
// [ErrTokensBelowChunks], [ErrDuplicateID], [ErrMissingField], [ErrMixedSends],
// [ErrBadStatus], [ErrSyntax], [ErrAfterEnd], [ErrPercentile], [ErrMethod],
// [ErrInvalidWindow], [ErrInvalidSLO], [ErrZeroInterval], [ErrNoText],
// [ErrTooFewTokens], [ErrNoCount], [ErrNotStreamed], [ErrNoChunks], [ErrRejected], [ErrOutOfRange], [ErrMerge] and
// [ErrInvalidOption].
//
// A problem with one record is a [*RecordError] that names the record (its
// index, id, and line and column when it came from a file) and the field.
// In strict mode, the default, [Summarize] checks every record and fails
// with an error that lists the invalid ones; with [Options.Lenient] it
// sets them aside as rejected, counts them and lists them in
// Summary.Rejected. A section of a Summary with no data (no ok request, say)
// is nil, and Summary.Absent says why.
//
// The readers are strict too: [ReadCSV], [ReadJSONL] and [Read] stop at the
// first row they cannot parse and return its *RecordError. With
// [ReadOptions.Lenient] they read on, set each such row aside in the [Run],
// and return the Run together with an error wrapping [ErrRejected], so that
// rows set aside are never lost in silence: [Run.Summarize] counts them,
// whereas the function Summarize, given only Run.Records, cannot. A JSONL
// input whose last line is the unfinished beginning of an object, without
// a newline (its writer killed mid-write, a full disk), is a [Cut], not an
// error: the summary's Completeness says TRUNCATED.
//
// The readers and Summarize use every core, and give the same results on
// any number of them: a reader cuts its input into blocks of whole lines
// (reading at most 768 KiB ahead, so that a strict reader stops soon after
// a bad line even on an endless stream) and takes the parsed blocks in
// order; from a regular file, whose lines are counted first, the records
// are written straight into their places in Run.Records. The CSV reader
// reads a plain row (no quotes, signs or empty numbers) in one pass,
// parsing each number as its commas are found, splits any other row
// without quotes on its commas in place, gives a row with quotes on one
// line to encoding/csv alone, and reads from the first quoted field that
// goes on past its line with encoding/csv, one row at a time: all of it
// gives what encoding/csv gives. Summarize counts and gathers on every
// core with integer sums, so no figure depends on how the records were
// divided.
//
// On Linux, where the system gives transparent huge pages (not "never"),
// Summarize keeps its large temporary lists (the samples of
// TPOT, largest gap, and TTFT and E2E where they are not read in place;
// the id hashes, the largest gaps of each record, the send times) in
// memory mapped apart from Go's heap, in huge pages, and gives it back
// before it returns: for 10⁶ records, about 56 MB that a memory limit set
// with runtime/debug.SetMemoryLimit does not see while Summarize runs. Memory
// from the heap may have been used before, and the runtime clears it
// 4 KiB at a time before it can be asked for in huge pages, which on a
// virtual machine cost more than the summary.
//
// [ReadOptions.Summarize] reads and summarizes in one call, with the same
// result as Read then Run.Summarize, but without holding a CSV file's rows
// as Records: they are kept in a table of columns (about 45 bytes a row
// and its id, against 144 bytes and its id for a Record) and decoded a
// window at a time as Summarize reads them; the ok rows' TTFTs, E2Es and
// send times are read in place, in the columns, rather than copied. For
// 5,000,000 rows the peak memory is about 1.4 times the file's size.
//
// Memory stays bounded on any input: a line or CSV row longer than 256 MiB
// is an error, and a Run or a Summary keeps the reasons of the first
// [MaxReasons] (1,000) rejected rows or records in full and counts the rest.
//
// Ranges: token counts must fit in an int32 (2³¹ − 1), and every time must
// lie within 2⁶¹ ns (about 73 years) of the time it is measured from, so
// that no sum of times overflows; larger values are refused with
// [ErrOutOfRange], naming the record and field.
//
// # Other tools' files and the server side
//
// The sub-package github.com/llmmetrics/llmmetrics/formats reads the
// result files of vLLM, SGLang, AIPerf, GenAI-Perf, LLMPerf and GuideLLM
// into these records, recomputes each tool's own summary with its formulas,
// and explains where its conventions differ from these. The module
// github.com/llmmetrics/llmmetrics/server reads the server side from
// Prometheus scrapes of a vLLM server; it is a module of its own so that
// this package's importers do not carry its Prometheus parser.
//
// # Concurrency
//
// The package has no global state that changes. Its functions do not modify
// the slices they are given, and may be called concurrently on the same
// records.
package llmmetrics
