package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive/trace"
	"github.com/llmmetrics/llmmetrics/formats"
	"github.com/llmmetrics/llmmetrics/internal/inflight"
)

var reportCommand = &command{
	name: "report",
	synopsis: "llmmetrics report [--method nearest-rank|linear] [--percentiles 50,90,95,99]\n" +
		"                    [--slo ttft=500ms,tpot=50ms,e2e=5s,max_gap=1s] [--slo-strict] [--window 10s] [--warmup N|D|auto]\n" +
		"                    [--stratify output=16,64,256|prompt=512,2048] [--fail-below 0.95] [--fail-if 'p99(ttft)>500ms']\n" +
		"                    [--plot DIR] [--html FILE] [--label NAME] [--timings FILE] [--spectrum ttft|tpot|e2e|max_gap]\n" +
		"                    [--lenient | --strict] [--from TOOL] [--dialect TOOL] [--benchmark N] [--plan PLAN] [--json]\n" +
		"                    [FILE | --merge FILE…]",
	about: "Report prints the client-side figures of a run: the accounting of every request, TTFT, TPOT,\n" +
		"E2E, ITL and the largest gap per request with their percentiles, output and prompt throughput\n" +
		"(apart), and goodput against an SLO, naming every convention. FILE is llmmetrics' CSV or JSONL,\n" +
		"or another tool's result file (vllm, sglang, aiperf, genai-perf, llmperf, guidellm,\n" +
		"inference-perf), detected from the content; without FILE, or with -, it reads standard input.\n" +
		"An inference-perf stage report holds the tool's summary, no requests: report prints its figures\n" +
		"as the file states them, and refuses (status 2) the flags that compute, judge or draw llmmetrics'\n" +
		"own figures: --slo, --method, --percentiles, --window, --warmup, --stratify, the gate's and the\n" +
		"pictures'.\n\n" +
		"The project's own formats are strict: an invalid record is an error unless --lenient sets it\n" +
		"aside. Another tool's file cannot be fixed by its reader, so its invalid requests are set aside\n" +
		"by default (counted, with their reasons, at the top of the report); --strict makes them fatal.\n" +
		"Several files are several runs, and report refuses them (compare them with diff or sweep, or\n" +
		"report each), unless --merge says they are one run taken by several machines: files of llmmetrics'\n" +
		"JSONL, each with its run header, that come from one plan (the headers agree on the model, the API,\n" +
		"the target and the load, or on a plan id) and whose windows overlap on the wall clock; otherwise\n" +
		"--merge says why not. They are put on one clock by the headers' wall-clock starts: the machines'\n" +
		"clock offset is unknown (milliseconds under NTP) and moves only the window's ends, since every\n" +
		"latency is a difference on one machine's clock; starts further apart than 1% of the window are\n" +
		"warned about. Files without send times (no sent_ns or sent_ms) have nothing to align: their records\n" +
		"are pooled, with or without headers, and the merge has no window or throughput.\n" +
		"A run file of llmmetrics' own says at the top whether the run was INTERRUPTED or the file is\n" +
		"TRUNCATED (no end line, fewer records than it counts, or a last line cut short), with the run's\n" +
		"notes from its end line; its preflight requests (the test and sizing requests sent before the load)\n" +
		"are counted apart, never samples, and a failed one is in the error set with the server's words.\n" +
		"An ok request \"not streamed\" had its two or more tokens come at once (one JSON body, or one chunk\n" +
		"holding them all): it has an E2E but no TTFT or TPOT, and TTFT and TPOT leave it out, counted. An SLO\n" +
		"judges it on its E2E for the TTFT limit too (its first text is its last) and on a TPOT of 0; a\n" +
		"request with one text chunk has no gap, so a max_gap limit does not judge it, an unstreamed answer\n" +
		"(a JSON body, which run records as one chunk) included.\n" +
		"The workload of the measured requests (prompt and output lengths, the arrival process, the requests\n" +
		"in flight, the early-stop rate) is described before the latencies. --warmup sets the warm-up aside\n" +
		"as a counted category, by count, by duration or by the specification's illustrative rule (auto), and the\n" +
		"window is derived from the rest. --stratify adds the latencies of the ok requests per output (or\n" +
		"prompt) length stratum: output length is not fixed, so one distribution mixes short and long replies.\n" +
		"--plot DIR writes the charts (latency CDFs and percentile spectra, a line per file named by --label or\n" +
		"its base name; the gaps with each request's largest; the timeline; with --timings, the TTFT\n" +
		"decomposition) as SVG and PNG; --html FILE writes one page of the tables and the charts, inline, that\n" +
		"opens offline (docs/pictures.md). A chart that cannot be drawn is left out with its reason. --spectrum\n" +
		"METRIC prints only the metric's percentile spectrum in HdrHistogram's layout.\n" +
		"The load check of a file of llmmetrics' JSONL is the one run printed from the same records: for an\n" +
		"open loop the offered, scheduled and achieved rates, the lateness, the requests due before a\n" +
		"--duration's deadline but never sent (from the end line), the sending window and the drain after it,\n" +
		"with TTFT and E2E from each request's scheduled time in the table (from sched.); a WARNING at the\n" +
		"top when the sends fell 10% behind their schedule, lateness p99 exceeds 1 s, the server's last\n" +
		"answer came longer after the last send than the sending lasted (it fell behind, or the run is\n" +
		"shorter than one request), a closed loop's failures outnumber its ok requests ten to one, or the\n" +
		"server stopped answering (no answer for more than a tenth of the sending and longer than its\n" +
		"longest request took, and the requests sent after the last it answered all failed, 3 at least, or\n" +
		"hung until the grace ran out: the figures cover the run until then); in JSON under \"load_check\".\n" +
		"--plan PLAN adds the fidelity section run printed (the load sent against the load asked: docs/run.md),\n" +
		"from the plan 'run --dry-run --out PLAN' writes with the run's flags; a plan whose load differs from the\n" +
		"run header's is refused, naming the key.\n" +
		"As a gate in CI, --fail-below (attainment against --slo) and --fail-if (a threshold on a figure,\n" +
		"repeatable; ttft_from_scheduled and e2e_from_scheduled name an open loop's figures from the\n" +
		"scheduled time, 'p99(ttft_from_scheduled)>1s') make report exit with status 3 and a one-line reason\n" +
		"when the run crosses one, after printing the report; a figure the run lacks is an error (status 1),\n" +
		"never a pass (a file of a summary and no requests has none: the gate is refused, status 2). A run whose load check warned is not taken at its word: when its sends lagged, a\n" +
		"condition on ttft or e2e that passed is judged again from the scheduled time; when the server fell\n" +
		"behind or stopped answering, or failures swamped a closed loop, no condition on a latency or a\n" +
		"throughput passes (error_rate and attainment, which count every request, are judged as they are).\n" +
		"Where some ok requests have no usable token count, their TPOT is unknown: a condition on a TPOT\n" +
		"percentile cannot be judged (status 1), and one on its mean, min or max only where the known\n" +
		"requests decide it (the max is at least theirs, the min at most, the mean at least their sum over all).\n" +
		"With --dialect TOOL, report prints the tool's own summary computed with the tool's formulas,\n" +
		"under its keys; the flags the tool has no concept of are refused there.\n" +
		"A GuideLLM file written by a sweep holds several benchmarks: report reports each in turn (with\n" +
		"--json, one object a line), or only benchmark N with --benchmark N; a gate applies to each.\n" +
		"Throughput takes its window from the file (a declared duration where the records carry no send\n" +
		"times), as diff, sweep and reconcile do; without send times and a declared window it is absent,\n" +
		"and so are the workload's arrivals, the requests in flight and the timeline.\n" +
		"--otlp replays the records as spans, one a record, the span run pushes as it runs (docs/observing.md),\n" +
		"at their recorded times: the run header's wall-clock start plus each send, so that an old benchmark\n" +
		"loads into a trace store; they are pushed after the report to --otlp-endpoint, or the endpoint of\n" +
		"OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, with --otlp-protocol and the OTEL_* variables as run has them,\n" +
		"and report says on standard error \"pushed N spans to ENDPOINT\". A file without a run header (CSV,\n" +
		"another tool's) has no wall clock: --otlp refuses it (status 2) unless --otlp-epoch RFC3339 says when\n" +
		"its send times count from (it overrides a header's start too). A file that stores no send times has\n" +
		"no span, said in a note. A collector that cannot be reached is one warning, never the exit status.\n" +
		"A file of llmmetrics' JSONL, CSV or Parquet, or --merge's files together, that would take more than\n" +
		"--max-memory in memory (3 times their size, 12 for Parquet; by default half the memory the process may\n" +
		"use: its container's limit, or else the physical memory) is summarized in bounded memory\n" +
		"(docs/scale.md), --merge's checks made as ever: read several times, holding a batch of records and at\n" +
		"most half of --max-memory, with the same figures and error set, exactly; the workload, the client's\n" +
		"distributions, the load check and TTFT by turn are not computed, and a note says so and what it cost;\n" +
		"without the load check a gate judges error_rate and attainment only: a latency or throughput condition\n" +
		"on a run file with a run header cannot be judged there (status 1).\n" +
		"--lenient sets rows and records aside there as in memory (the repeated ids found in passes of their\n" +
		"own). --warmup, --stratify, the pictures, --spectrum, --otlp and --lenient with --merge need the\n" +
		"records in memory: with them the files are read whole, said in a note.",
	examples: []string{
		"llmmetrics report testdata/sample_run.jsonl",
		"llmmetrics report --slo ttft=500ms,tpot=50ms --percentiles 50,99,99.9 --json run.csv",
		"llmmetrics report --from vllm --dialect vllm vllm-result.json",
		"llmmetrics report --warmup auto run.jsonl",
		"llmmetrics report --plot charts/ --html report.html --timings timings.jsonl run.jsonl",
		"llmmetrics report --spectrum ttft run.jsonl > ttft.hgrm",
		"llmmetrics report --slo ttft=500ms,tpot=50ms --fail-below 0.95 --fail-if 'p99(ttft)>800ms' --fail-if 'error_rate>0.01' run.jsonl",
		"llmmetrics report --otlp --otlp-endpoint http://127.0.0.1:4318 run.jsonl",
		"cat run.jsonl | llmmetrics report --method linear -",
	},
	flags: func() *flag.FlagSet { fs, _ := newReportFlags(); return fs },
}

// reportFlags are the flags of report.
type reportFlags struct {
	fs *flag.FlagSet // the set they are in, to tell which were given
	analysis
	dialect   *string
	benchmark *int
	merge     *bool
	gate      gate
	pics      pictures
	errs      *errorSet  // the failed requests' error set, printed after the table
	turns     []turnRow  // TTFT by turn of multi-turn sessions (turns.go)
	load      *loadCheck // the load check of llmmetrics' JSONL, as run prints it (runloop.go)
	replay    otlpReplay // --otlp: the records as spans (reportotlp.go)
	plan      planFlag   // --plan: the fidelity against a dry run's plan (reportplan.go)
	maxMemory maxMemory  // --max-memory: past it, a bounded summary (bounded.go)
	unchecked string     // why the load was not checked, for the gate (boundedgate.go)
}

func newReportFlags() (*flag.FlagSet, *reportFlags) {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	f := &reportFlags{fs: fs}
	f.analysis.define(fs, true)
	f.dialect = fs.String("dialect", "", "print TOOL's own summary of its file, with TOOL's formulas and keys (TOOL as for --from)")
	f.benchmark = fs.Int("benchmark", 0, "of a file that holds several benchmarks (a GuideLLM sweep), report only benchmark `N`, from 1; without it each is reported")
	f.merge = fs.Bool("merge", false, "report several files of llmmetrics' JSONL or Parquet as one run taken by several machines, after checking that they come from one plan and that their windows overlap")
	f.gate.define(fs)
	f.pics.define(fs, "report")
	f.replay.define(fs)
	f.plan.define(fs)
	f.maxMemory.define(fs)
	return fs, f
}

// reportMerge checks report --merge's files and options, then reports the
// files as one run.
func (f *reportFlags) reportMerge(w io.Writer, files []string, opt llmmetrics.Options) error {
	if len(files) < 2 {
		return fmt.Errorf("%w: --merge joins the files of one run taken by several machines: give two or more", errUsage)
	}
	if f.tool != "" || *f.dialect != "" {
		return fmt.Errorf("%w: several files are merged only in llmmetrics' own JSONL, with their run headers", errUsage)
	}
	if done, err := f.reportMergedBounded(w, files, &opt); done {
		return err
	}
	return reportMerged(w, files, opt, f)
}

func report(args []string, stdin io.Reader, stdout io.Writer) error {
	fs, f := newReportFlags()
	opt, files, err := f.analysis.parseFiles(fs, args, 0)
	if err != nil {
		return err
	}
	for _, parse := range []func() error{func() error { return f.gate.parse(&opt) }, func() error { return f.replay.parse(f) }, f.maxMemory.parse} {
		if err := parse(); err != nil {
			return err
		}
	}
	if err := f.checkFiles(files); err != nil {
		return err
	}
	if *f.merge {
		return f.reportMerge(stdout, files, opt)
	}
	dialect, err := parseTool("dialect", *f.dialect)
	if err != nil {
		return err
	}
	in, name, closeIn, err := f.open(files, stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	in, head := formats.Peek(in)
	if isPlan(head) { // a dry run's plan (dryrun.go)
		return reportPlan(stdout, in, name, f.asJSON())
	}

	tool := f.tool
	if tool == "" && dialect != "" {
		tool = dialect
	}
	if tool == "" {
		if tool, in, err = detect(in, name); err != nil {
			return inFile(name, err)
		}
	}
	if tool != "" && *f.plan.path != "" {
		return fmt.Errorf("%w: --plan compares a run file of llmmetrics' JSONL with its plan; %s is %s's", errUsage, name, tool)
	}
	if tool == "" {
		if *f.benchmark > 1 {
			return fmt.Errorf("%w: --benchmark %d: %s is one run in llmmetrics' format", errUsage, *f.benchmark, name)
		}
		if done, err := f.reportBounded(stdout, files, &opt); done {
			return err
		}
		return reportOwn(stdout, in, name, opt, f)
	}
	all, err := formats.ReadAll(in, tool)
	if err != nil {
		return inFile(name, err)
	}
	benchmarks, err := f.chooseBenchmark(name, all)
	if err != nil {
		return err
	}
	// Each benchmark is reported in turn; a gate's verdict comes after all.
	var gateErr error
	for i, file := range benchmarks {
		if i > 0 && !f.asJSON() {
			fmt.Fprintln(stdout)
		}
		label := name
		if file.Benchmarks > 1 {
			label = fmt.Sprintf("%s, benchmark %d of %d (%s)", name, file.Benchmark, file.Benchmarks, file.Strategy)
		}
		if dialect != "" {
			if dialect != file.Tool {
				return fmt.Errorf("%w: --dialect %s on a %s file: a dialect is computed from its own tool's files", errUsage, dialect, file.Tool)
			}
			err = reportDialect(stdout, label, file, fs, opt, f.asJSON())
		} else {
			err = reportImported(stdout, label, file, opt, f)
		}
		switch {
		case len(benchmarks) == 1:
			return err
		case errors.Is(err, errGate):
			gateErr = errors.Join(gateErr, fmt.Errorf("benchmark %d: %w", file.Benchmark, err))
		case err != nil:
			return err
		}
	}
	return gateErr
}

// checkFiles checks the flags that depend on the files given.
func (f *reportFlags) checkFiles(files []string) error {
	switch {
	case *f.pics.timings != "" && !f.pics.wanted():
		return fmt.Errorf("%w: --timings draws the decomposition chart: give --plot or --html", errUsage)
	case len(files) > 1 && !*f.merge:
		return fmt.Errorf("%w: %d files are %d runs: compare two sets with 'llmmetrics diff A[,A2…] B[,B2…]', runs at several loads with 'llmmetrics sweep', or report each on its own; give --merge only when they are one run taken by several machines", errUsage, len(files), len(files))
	case *f.merge && *f.plan.path != "":
		return fmt.Errorf("%w: --plan compares one run file with its plan; merged shards have no fidelity section yet", errUsage)
	}
	return nil
}

// chooseBenchmark returns the benchmark --benchmark N names, or every
// benchmark of the file; pictures and the spectrum take one.
func (f *reportFlags) chooseBenchmark(name string, all []*formats.File) ([]*formats.File, error) {
	n := *f.benchmark
	switch {
	case n == 0 && len(all) > 1 && (f.pics.wanted() || *f.pics.spectrum != ""):
		return nil, fmt.Errorf("%w: %s holds %d benchmarks: pictures and the spectrum are of one, give --benchmark N", errUsage, name, len(all))
	case n == 0:
		return all, nil
	case n < 0 || n > len(all):
		return nil, fmt.Errorf("%w: --benchmark %d: %s holds %d benchmark(s), numbered from 1", errUsage, n, name, len(all))
	}
	return all[n-1 : n], nil
}

// reportOwn reports a file in llmmetrics' own CSV or JSONL. A CSV file is
// read once and summarized without keeping its rows as Records, the error
// set tallying the failed ones (ReadOptions.SummarizeFailed), unless the
// pictures or the spectrum want them. A JSONL file is read as Records in any case (the reader holds them so), and they are kept for
// the load check, which run printed from the same records.
func reportOwn(w io.Writer, in io.Reader, name string, opt llmmetrics.Options, f *reportFlags) error {
	in, jsonl := isJSONLOrParquet(in) // parquet.go
	if !jsonl && *f.plan.path != "" {
		return fmt.Errorf("%w: --plan compares a run file of llmmetrics' JSONL with its plan; %s is CSV, which keeps no run header", errUsage, name)
	}
	if !jsonl && *f.pics.spectrum == "" && !f.pics.wanted() && !f.replay.on {
		var failed errorTally
		s, _, err := llmmetrics.ReadOptions{Lenient: opt.Lenient}.SummarizeFailed(in, opt, failed.add)
		if err != nil {
			return inFile(name, withLenientHint(err, opt.Lenient))
		}
		f.errs = summarizedSet(&failed, s)
		return f.writeSummary(w, name, s, nil)
	}
	run, err := readRun(in, opt.Lenient) // parquet.go
	if err != nil && !(opt.Lenient && errors.Is(err, llmmetrics.ErrRejected)) {
		return inFile(name, withLenientHint(err, opt.Lenient))
	}
	s, err := run.Summarize(opt)
	if errors.Is(err, llmmetrics.ErrNoRecords) && run.End != nil {
		return inFile(name, noRecordsOf(run.End))
	}
	if err != nil {
		return inFile(name, withLenientHint(err, opt.Lenient))
	}
	noneMeasured(s.Completeness, s.Requests) // partial.go
	f.errs, f.turns = newErrorSet(run.Records), byTurn(run.Records)
	if jsonl {
		f.load = withClient(checkLoad(loadFacts(s.Header, nil), run.Records, s, opt), checkClient(run.End, run.Records))
		if f.load, err = f.plan.withFidelity(f.load, run); err != nil {
			return err
		}
	}
	return f.writeSummary(w, name, s, []namedRun{{name: name, run: run}})
}

// noRecordsOf says why a run's file holds no record, from its end line:
// how the run ended, and its notes (a failed TLS handshake, say).
func noRecordsOf(e *llmmetrics.RunEnd) error {
	if e.Written > 0 {
		return fmt.Errorf("%w: TRUNCATED: the end line counts %d records written but the file holds none", llmmetrics.ErrNoRecords, e.Written)
	}
	msg := "the run completed without writing a request"
	if e.State == "interrupted" {
		msg = "the run was interrupted before it wrote a request"
		if e.By != "" {
			msg = "the run was interrupted by " + e.By + " before it wrote a request"
		}
	}
	if len(e.Notes) > 0 {
		msg += ": " + strings.Join(e.Notes, " ")
	}
	return fmt.Errorf("%w: %s", llmmetrics.ErrNoRecords, msg)
}

// isJSONL says whether the input is JSONL: its first byte that is not
// white space (after a byte-order mark) is '{', as Read decides.
func isJSONL(in io.Reader) (io.Reader, bool) {
	in, head := formats.Peek(in)
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	return in, len(head) > 0 && head[0] == '{'
}

// reportMerged reports the files of one run taken by several machines,
// put on one clock by their run headers.
func reportMerged(w io.Writer, files []string, opt llmmetrics.Options, f *reportFlags) error {
	var runs []*llmmetrics.Run
	var named []namedRun
	for _, name := range files {
		in, _, closeIn, err := open([]string{name}, nil)
		if err != nil {
			return err
		}
		in, head := formats.Peek(in)
		if tool, ok := formats.Detect(head); ok {
			closeIn()
			return valueError(fmt.Sprintf("--merge joins llmmetrics' own JSONL files, with their run headers, and %s is %s's file: report it on its own", name, tool))
		}
		if err := traceGiven(head, name); err != nil {
			closeIn()
			return inFile(name, err)
		}
		run, err := readRun(in, opt.Lenient) // parquet.go
		closeIn()
		if err != nil && !(opt.Lenient && errors.Is(err, llmmetrics.ErrRejected)) {
			return inFile(name, withLenientHint(err, opt.Lenient))
		}
		runs = append(runs, run)
	}
	if without := noSendTimes(runs); len(without) > 0 && len(without) < len(runs) {
		return sendTimesDisagree(files, without) // merge.go
	}
	without := startless(runs)
	if len(without) > 0 && !runs[0].NoSendTimes {
		return needStarts(files, without)
	}
	starts := withStarts(runs, without)
	for i, name := range files {
		named = append(named, namedRun{name: name, run: starts[i]})
	}
	merged, err := llmmetrics.MergeRuns(starts)
	if err != nil {
		return fmt.Errorf("%s: %s", strings.Join(files, ", "), trimPrefix(err))
	}
	warnings, err := checkMerge(named)
	if err != nil {
		return err
	}
	mergeShards(merged, named)
	nameInterrupted(merged, named) // merge.go
	unaligned(merged, runs, without)
	opt.Notes = append(opt.Notes, mergedNote(len(files), merged.NoSendTimes))
	opt.Notes = append(opt.Notes, warnings...)
	s, err := merged.Summarize(opt)
	if err != nil {
		return withLenientHint(err, opt.Lenient)
	}
	nameTruncated(s.Completeness, named) // merge.go
	f.errs = newErrorSet(merged.Records)
	f.load = checkLoad(mergedLoad(s.Header, named), merged.Records, s, opt)
	return f.writeSummary(w, strings.Join(files, " + "), s, named)
}

// mergedNote is the note of a merged report of n files, with send times
// unless unsent.
func mergedNote(n int, unsent bool) string {
	if unsent {
		return fmt.Sprintf("Merged %d files of one run, their records pooled: the files have no send times, so nothing is aligned, and no window, throughput or arrival pattern spans them. Ids are prefixed with the file's position.", n)
	}
	return fmt.Sprintf("Merged %d files of one run, aligned by their wall-clock starts; the machines' clock offset is unknown (typically milliseconds under NTP), and the window spans it. Latencies are differences on one machine's clock, so the offset moves only the window's ends. Ids are prefixed with the file's position.", n)
}

// mergedLoad is the load of a merged run for its load check: the merged
// header's, with the requests each file never sent before its deadline
// added up over the files (absent unless every file says), and so the
// requests whose stream ended without a finish (absent when none did).
func mergedLoad(h *llmmetrics.RunHeader, runs []namedRun) map[string]string {
	load := loadFacts(h, nil)
	if load == nil {
		return nil
	}
	delete(load, endedWithoutFinishKey)
	ended := 0 // written only when some did
	for _, r := range runs {
		n, _ := strconv.Atoi(r.run.Header.Load[endedWithoutFinishKey])
		ended += n
	}
	if ended > 0 {
		load[endedWithoutFinishKey] = strconv.Itoa(ended)
	}
	delete(load, unsentKey)
	sum := 0
	for _, r := range runs {
		n, err := strconv.Atoi(r.run.Header.Load[unsentKey])
		if err != nil {
			return load
		}
		sum += n
	}
	load[unsentKey] = strconv.Itoa(sum)
	return load
}

// reportImported reports another tool's file under llmmetrics'
// conventions. Its invalid requests are set aside unless --strict.
func reportImported(w io.Writer, name string, file *formats.File, opt llmmetrics.Options, f *reportFlags) error {
	run, err := file.Records()
	if errors.Is(err, formats.ErrNoRecords) {
		if d, derr := file.Dialect(); derr == nil && d.Stated {
			return reportStated(w, name, file, d, f)
		}
	}
	if err != nil && !errors.Is(err, llmmetrics.ErrRejected) {
		return inFile(name, err)
	}
	opt.Lenient = !*f.strict
	if err != nil && *f.strict {
		return inFile(name, fmt.Errorf("%w (--strict; without it they are set aside and counted)", err))
	}
	opt.Notes = append([]string{fmt.Sprintf("Read from %s's file (%s) and re-analysed under llmmetrics' conventions.", file.Tool, file.Layout)}, file.Notes...)
	s, err := run.Summarize(opt)
	if err != nil {
		if *f.strict {
			err = fmt.Errorf("%w (--strict; without it such requests are set aside and counted)", err)
		}
		return inFile(name, err)
	}
	withoutSampleRates(s, file) // sample.go
	if l, ok := file.Load(); ok && l.Kind == "concurrency" && s.Workload != nil && s.Workload.Arrivals != nil {
		// A file that states its concurrency was sent by a closed loop,
		// whose gaps are the server's (as a run header's loop says).
		s.Workload.Arrivals.Reading = inflight.LoopReading(s.Workload.Arrivals.Reading, "closed")
	}
	f.errs = newErrorSet(run.Records)
	return f.writeSummary(w, name, s, []namedRun{{name: name, run: run}})
}

// computingFlags are report's flags that compute, judge or draw
// llmmetrics' own figures from the requests.
var computingFlags = []string{"slo", "slo-strict", "method", "percentiles", "window", "warmup", "stratify",
	"fail-below", "fail-if", "plot", "html", "label", "timings", "spectrum"}

// reportStated reports a file that holds a tool's summary and no requests
// (an inference-perf stage report): its figures as it states them. A
// flag that computes, judges or draws llmmetrics' own figures has none to
// take, and is refused rather than ignored.
func reportStated(w io.Writer, name string, file *formats.File, d *formats.Dialect, f *reportFlags) error {
	for _, flagName := range computingFlags {
		if flagSet(f.fs, flagName) {
			return valueError(fmt.Sprintf("--%s: %s holds %s's summary, no requests: llmmetrics computes no figure of its own to judge or draw, and prints the file's as it states them", flagName, name, file.Tool))
		}
	}
	if f.asJSON() {
		return writeDialectJSON(w, d)
	}
	return writeDialectTable(w, name, file, d)
}

// writeSummary writes the report (or only the spectrum, with --spectrum),
// then the charts and the page, then applies the gate's conditions.
func (f *reportFlags) writeSummary(w io.Writer, name string, s *llmmetrics.Summary, runs []namedRun) error {
	pushSpans, err := f.replay.prepare(runs) // --otlp (reportotlp.go), after the report
	if err != nil {
		return err
	}
	defer pushSpans()
	if m := *f.pics.spectrum; m != "" {
		return writeSpectrum(w, m, runs, s)
	}
	if f.asJSON() {
		var b []byte
		b, err = s.MarshalJSON()
		if err == nil && f.load != nil {
			b, err = withField(b, "load_check", f.load)
		}
		if err == nil && f.errs != nil {
			b, err = withField(b, "error_set", f.errs)
		}
		if err == nil && f.turns != nil {
			b, err = withField(b, "ttft_by_turn", f.turns)
		}
		if err == nil {
			_, err = fmt.Fprintf(w, "%s\n", b)
		}
	} else {
		fmt.Fprintf(w, "llmmetrics report: %s\n\n", name)
		f.load.writeWarnings(w)
		if err = s.WriteTable(w); err == nil {
			f.load.write(w)
			f.errs.write(w)
			writeTurns(w, f.turns)
		}
	}
	if err != nil {
		return err
	}
	if f.pics.wanted() {
		if err := f.pics.writeReport("llmmetrics report: "+name, s, runs); err != nil {
			return err
		}
	}
	if err := f.gate.refuseUnchecked(f.unchecked); err != nil {
		return err
	}
	return f.gate.check(s, f.load)
}

// detect tells which tool wrote the input, named name, "" for llmmetrics'
// own formats, and refuses a tool's companion summary file with a
// sentence saying which file to pass instead, and a request trace with
// one saying how to replay it.
func detect(in io.Reader, name string) (formats.Tool, io.Reader, error) {
	in, head := formats.Peek(in)
	if tool, ok := formats.Detect(head); ok {
		return tool, in, nil
	}
	if _, instead, ok := formats.DetectSummary(head); ok {
		return "", in, fmt.Errorf("%w: %s", formats.ErrSummaryFile, instead)
	}
	return "", in, traceGiven(head, name)
}

// traceGiven refuses a request trace, the file name, given where a run's
// records are read, saying how to turn it into a run; nil for any other
// file.
func traceGiven(head []byte, name string) error {
	switch {
	case name == "-" || name == "standard input":
		name = "FILE" // a trace replays from a file
	case strings.ContainsAny(name, " \t'\"$`\\;&|<>()*?[]{}!#~"):
		name = "'" + strings.ReplaceAll(name, "'", `'\''`) + "'" // as a shell reads it
	}
	if f, ok := trace.DetectFormat(head); ok && f != trace.LLMMetrics {
		return fmt.Errorf("this is a request trace, in the format of %s: it lists the requests to send, their arrivals and lengths, not what a server answered; replay it with llmmetrics run --replay %s --url URL --model M --out run.jsonl, then report the run", traceName(f), name)
	}
	return nil
}

// traceName is a trace format's name as its makers write it.
func traceName(f trace.Format) string {
	switch f {
	case trace.Azure:
		return "Azure's LLM inference trace"
	case trace.Mooncake:
		return "Mooncake"
	case trace.BurstGPT:
		return "BurstGPT"
	}
	return string(f)
}
