package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
	"github.com/llmmetrics/llmmetrics/formats"
	"github.com/llmmetrics/llmmetrics/server"
)

var sweepCommand = &command{
	name: "sweep",
	synopsis: "llmmetrics sweep [--level FILE=VALUE ...] [--kind concurrency|rate] [--slo ...] [--target 0.9]\n" +
		"                   [--warmup N|D|auto] [--method ...] [--plot DIR] [--html FILE] [--json] FILE...",
	about: "Sweep reports runs taken at several load levels, each level run several times (the specification\n" +
		"asks for at least 3 repeats, in separate processes): per level, every figure as median ±MAD (raw) across\n" +
		"the level's runs — TTFT, TPOT and E2E p50/p95/p99, per-request User TPS, output and prompt tokens/s\n" +
		"apart, and with --slo the attainment (a percentage goodput). Percentiles are computed per run over\n" +
		"its own requests and never averaged or subtracted across runs: a row is the median of per-run\n" +
		"percentiles, and says so. A run's level comes from --level FILE=VALUE, or its run header\n" +
		"(llmmetrics run writes the concurrency or rate), or what another tool's file states: GuideLLM's\n" +
		"strategy (synchronous is concurrency 1, concurrent its streams, constant and poisson their rate),\n" +
		"vLLM's max_concurrency or finite request_rate, AIPerf's loadgen in the profile_export_aiperf.json\n" +
		"beside its profile_export.jsonl. Each benchmark of a GuideLLM sweep file is a level of its own\n" +
		"(FILE#N); those of another kind than most (the synchronous and throughput benchmarks of a rate\n" +
		"sweep) are left out with a note. Each run's throughput window is the one report uses, and another\n" +
		"tool's invalid requests are set aside and counted, as report does, unless --strict, and so is any\n" +
		"invalid record with --lenient: each run with records set aside says how many in a SET ASIDE line\n" +
		"above the table (in JSON, each level's \"requests\" gives each run's name, offered and rejected).\n" +
		"A run whose file is not whole (INTERRUPTED, or TRUNCATED: killed before its end line), and a file\n" +
		"that keeps a sample of its requests, is named in a WARNING line above the table: its figures are\n" +
		"those of the part written.\n" +
		"Runs of one level whose headers declare different workloads (model, API, lengths, arrivals, trace,\n" +
		"prefixes, sessions) are warned about: they are not repeats of one another.\n" +
		"With --slo, the capacity is the highest level whose median attainment meets --target and the\n" +
		"first that misses it, a bracket interpolated only between measured levels (DistServe's framing:\n" +
		"the largest load at which the attainment goal holds).\n" +
		"The environment the runs' headers agree on is printed, with the keys on which they differ.\n" +
		"inference-perf's stage reports (stage_N_lifecycle_metrics.json, and stage_N_prometheus_metrics.json\n" +
		"for the server's figures) are read as one run a stage, at its requested rate, their figures as given.\n" +
		"A run llmmetrics run took with --scrape and --out keeps its two scrapes beside its file; sweep reports\n" +
		"the server's figures of it (histogram means, PromQL p50 and p99; token rates) in rows of their own.\n" +
		"--plot DIR draws TTFT and TPOT p50/p99 against the level (±MAD bars), output tokens/s against p99\n" +
		"TTFT and E2E with the SLO's limit and the capacity bracket shaded, and the attainment with its target\n" +
		"and the bracket; --html FILE writes them with the table into one page that opens offline.",
	examples: []string{
		"llmmetrics sweep --slo ttft=500ms,tpot=50ms c1-*.jsonl c4-*.jsonl c16-*.jsonl",
		"llmmetrics sweep --kind rate --level a.json=2 --level b.json=4 --level c.json=8 a.json b.json c.json",
		"llmmetrics sweep --slo ttft=500ms guidellm-sweep/benchmarks.json",
	},
	flags: func() *flag.FlagSet { fs, _ := newSweepFlags(); return fs },
}

type sweepFlags struct {
	analysis
	levels list
	kind   *string
	target *float64
	pics   pictures
}

func newSweepFlags() (*flag.FlagSet, *sweepFlags) {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	f := &sweepFlags{}
	f.analysis.define(fs, true)
	fs.Var(&f.levels, "level", "a run's level, `FILE=VALUE`, where its header does not say (repeatable)")
	f.kind = fs.String("kind", "concurrency", "what --level values are: concurrency or rate (requests a second)")
	f.target = fs.Float64("target", 0.9, "with --slo: the attainment `fraction` the capacity must meet")
	f.pics.define(fs, "sweep")
	return fs, f
}

func sweepReport(args []string, _ io.Reader, stdout io.Writer) error {
	fs, f := newSweepFlags()
	opt, files, err := f.parseFiles(fs, args, 0)
	if err != nil {
		return err
	}
	if err := checkSweepArgs(fs, f, files); err != nil {
		return err
	}
	given, err := givenLevels(f.levels)
	if err != nil {
		return err
	}
	runs, notes, warnings, anyForeign, err := gatherLevelRuns(files, given, opt.Lenient, *f.kind)
	if err != nil {
		return err
	}
	if err := checkLevels(runs, given); err != nil {
		return err
	}
	sw, err := compare.SweepRuns(runs, lenientFor(opt, anyForeign, *f.strict))
	if err != nil {
		return err
	}
	var capacity *compare.Capacity
	if opt.SLO != nil {
		if capacity, err = sw.Capacity(*f.target); err != nil {
			return usageError("target", err)
		}
	}
	if f.pics.wanted() {
		if err := f.pics.writeSweep(sw, capacity, len(runs), notes); err != nil {
			return err
		}
	}
	if f.asJSON() {
		sw.Warnings = append(warnings, sw.Warnings...)
		return writeSweepJSON(stdout, sw, capacity)
	}
	return writeSweepTable(stdout, sw, capacity, len(runs), notes, warnings)
}

// checkSweepArgs refuses the flags sweep cannot honour.
func checkSweepArgs(fs *flag.FlagSet, f *sweepFlags, files []string) error {
	if err := distinctRuns(files); err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%w: sweep needs the files of the runs", errUsage)
	}
	if f.tool != "" || flagSet(fs, "window") {
		return fmt.Errorf("%w: sweep reads each file's own format and derives each run's window", errUsage)
	}
	if *f.kind != "concurrency" && *f.kind != "rate" {
		return fmt.Errorf("%w: --kind %q: want concurrency or rate", errUsage, *f.kind)
	}
	return nil
}

// givenLevels parses the --level FILE=VALUE flags.
func givenLevels(levels []string) (map[string]float64, error) {
	given := map[string]float64{}
	for _, l := range levels {
		name, v, ok := strings.Cut(l, "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || !(x >= 0) {
			return nil, fmt.Errorf("%w: --level %q: want FILE=VALUE", errUsage, l)
		}
		given[name] = x
	}
	return given, nil
}

// gatherLevelRuns reads every file's runs with their levels, taking from
// given the levels it uses; it says whether any run is another tool's,
// and warns of each run that is not whole (interrupted, truncated) and
// each file that keeps a sample of its requests (partial.go).
func gatherLevelRuns(files []string, given map[string]float64, lenient bool, kind string) (runs []compare.LevelRun, notes, warnings []string, anyForeign bool, err error) {
	stageAt := map[string]int{} // an inference-perf stage's run, by stage name
	for _, name := range files {
		st, err := readStage(name)
		if err != nil {
			return nil, nil, nil, false, err
		}
		if st != nil {
			runs, notes = addStage(runs, notes, stageAt, name, st, given, kind)
			continue
		}
		srcs, skipped, err := levelSources(name, lenient)
		if err != nil {
			return nil, nil, nil, false, err
		}
		notes = append(notes, skipped...)
		for _, src := range srcs {
			anyForeign = anyForeign || src.foreign
			lr, err := levelRun(name, src, len(srcs), given, kind)
			if err != nil {
				return nil, nil, nil, false, err
			}
			runs = append(runs, lr)
			if src.warning != "" {
				warnings = append(warnings, src.warning)
			}
		}
	}
	return runs, notes, warnings, anyForeign, nil
}

// addStage adds an inference-perf stage's report to its run: a stage's
// client and server reports are one run.
func addStage(runs []compare.LevelRun, notes []string, stageAt map[string]int, name string, st *formats.Stage, given map[string]float64, kind string) ([]compare.LevelRun, []string) {
	key := formats.StageName(name)
	i, seen := stageAt[key]
	if !seen {
		i = len(runs)
		stageAt[key] = i
		runs = append(runs, compare.LevelRun{Name: key, Kind: "rate", Level: -1, Figures: map[string]float64{}})
	}
	lr := &runs[i]
	for _, n := range st.Notes {
		if !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}
	for k, v := range st.Figures {
		lr.Figures[k] = v
	}
	if st.RequestedRate > 0 {
		lr.Level = st.RequestedRate
	}
	if v, ok := given[name]; ok {
		lr.Kind, lr.Level = kind, v
		delete(given, name)
	}
	return runs, notes
}

// levelRun is the run of one source of file name, one of n, at its
// given level or the one it states.
func levelRun(name string, src levelSource, n int, given map[string]float64, kind string) (compare.LevelRun, error) {
	lr := compare.LevelRun{Name: src.name, Run: src.run}
	var err error
	if lr.Figures, err = serverFigures(name, src.run.Header); err != nil {
		return lr, err
	}
	v, isGiven := given[name]
	switch {
	case isGiven && n > 1:
		return lr, fmt.Errorf("%w: --level %s: the file holds %d benchmarks, each with its own level", errUsage, name, n)
	case isGiven:
		lr.Kind, lr.Level = kind, v
		delete(given, name)
	default:
		var ok bool
		if lr.Kind, lr.Level, ok = compare.LevelOf(src.run); !ok {
			if src.load == nil {
				return lr, fmt.Errorf("%w: %s states no level (no run header, and the file gives no rate or concurrency): give --level %s=VALUE", errUsage, src.name, name)
			}
			lr.Kind, lr.Level = src.load.Kind, src.load.Level
		}
	}
	return lr, nil
}

// checkLevels refuses a stage without a level and a --level that named
// no file.
func checkLevels(runs []compare.LevelRun, given map[string]float64) error {
	for _, r := range runs {
		if r.Level < 0 {
			return fmt.Errorf("%w: the inference-perf stage %s has no requested rate (only its server report was given): give --level", errUsage, r.Name)
		}
	}
	for name := range given {
		return fmt.Errorf("%w: --level names %s, which is not among the files", errUsage, name)
	}
	return nil
}

// writeSweepJSON writes the sweep, and its capacity where there is one,
// as one JSON object.
func writeSweepJSON(stdout io.Writer, sw *compare.Sweep, capacity *compare.Capacity) error {
	b, err := sw.MarshalJSON()
	if err != nil {
		return err
	}
	if capacity != nil {
		b = []byte(fmt.Sprintf(`{"sweep":%s,"capacity":{"target":%g,"reason":%q%s}}`, b, capacity.Target, capacity.Reason, capacityFields(capacity)))
	} else {
		b = []byte(fmt.Sprintf(`{"sweep":%s}`, b))
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// writeSweepTable writes the sweep for people: the warnings of partial
// or sampled runs first, the table, the notes and the capacity.
func writeSweepTable(stdout io.Writer, sw *compare.Sweep, capacity *compare.Capacity, runs int, notes, warnings []string) error {
	fmt.Fprintf(stdout, "llmmetrics sweep: %d runs\n\n", runs)
	for _, w := range warnings {
		fmt.Fprintf(stdout, "WARNING: %s\n", w)
	}
	if len(warnings) > 0 {
		fmt.Fprintln(stdout)
	}
	if err := sw.WriteTable(stdout); err != nil {
		return err
	}
	for i, n := range notes {
		if i == 0 {
			fmt.Fprintln(stdout, "\nnotes:")
		}
		fmt.Fprintf(stdout, "  - %s\n", n)
	}
	if capacity != nil {
		fmt.Fprintf(stdout, "\ncapacity (DistServe's framing, median attainment ≥ %g): %s\n", capacity.Target, capacity)
		for _, m := range capacity.Margins {
			bound := map[bool]string{true: "≥"}[m.LowerBound]
			fmt.Fprintf(stdout, "  %s %g: attainment %s%.4g, margin %s%+.4g\n", capacity.Kind, m.Level, bound, m.Attainment, bound, m.Margin)
		}
	}
	return nil
}

// A levelSource is one run of a sweep read from a file: a file in
// llmmetrics' formats, or one benchmark of another tool's file, with the
// load the file states.
type levelSource struct {
	name    string
	run     *llmmetrics.Run
	load    *formats.Load
	foreign bool   // another tool's file
	warning string // why its figures are not a whole run's, or ""
}

// levelSources reads a file's runs for a sweep: its one run, or each
// benchmark of a GuideLLM file (named FILE#N), with the load each states:
// GuideLLM's strategy, vLLM's request_rate or max_concurrency, AIPerf's
// loadgen from the profile_export_aiperf.json beside its records. Of a
// file whose benchmarks state loads of both kinds, those of the kind most
// state are kept (rate on a tie); the others, and those that state none,
// are left out, each with a note.
func levelSources(name string, lenient bool) ([]levelSource, []string, error) {
	own, files, err := readRuns(name, lenient)
	if err != nil {
		return nil, nil, err
	}
	if own != nil {
		warning, _ := partialRun(name, own)
		return []levelSource{{name: name, run: own, warning: warning}}, nil, nil
	}
	var srcs []levelSource
	count := map[string]int{}
	for _, file := range files {
		run, err := records(name, file)
		if err != nil {
			return nil, nil, err
		}
		src := levelSource{name: name, run: run, foreign: true}
		if len(files) > 1 {
			src.name = fmt.Sprintf("%s#%d", name, file.Benchmark)
		}
		src.warning, _ = sampledRun(src.name, file)
		if l, ok := file.LoadBeside(name); ok {
			src.load = &l
		}
		if src.load != nil {
			count[src.load.Kind]++
		}
		srcs = append(srcs, src)
	}
	if len(srcs) == 1 || len(count) == 0 {
		return srcs, nil, nil
	}
	kind := "rate"
	if count["concurrency"] > count["rate"] {
		kind = "concurrency"
	}
	var kept []levelSource
	var notes []string
	for i, src := range srcs {
		if src.load != nil && src.load.Kind == kind {
			kept = append(kept, src)
			continue
		}
		why := "states no load"
		if src.load != nil {
			why = fmt.Sprintf("is at %s %g, not a %s", src.load.Kind, src.load.Level, kind)
		}
		notes = append(notes, fmt.Sprintf("%s: benchmark %d (%s) %s: left out of the sweep (report --benchmark %d reports it)", name, i+1, files[i].Strategy, why, i+1))
	}
	return kept, notes, nil
}

func capacityFields(c *compare.Capacity) string {
	var b strings.Builder
	for _, kv := range []struct {
		key string
		v   *float64
	}{{"passing", c.Passing}, {"failing", c.Failing}, {"crossing", c.Crossing}} {
		if kv.v != nil {
			fmt.Fprintf(&b, `,%q:%g`, kv.key, *kv.v)
		}
	}
	return b.String()
}

// readStage reads an inference-perf stage report, or returns nil for a
// file that is not one.
func readStage(name string) (*formats.Stage, error) {
	in, _, closeIn, err := open([]string{name}, nil)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	in, head := formats.Peek(in)
	if !formats.IsStage(head) {
		return nil, nil
	}
	st, err := formats.ReadStage(in)
	if err != nil {
		return nil, inFile(name, err)
	}
	return st, nil
}

// serverHistograms are the server histograms a sweep reports, by the
// short name of their figure.
var serverHistograms = []struct{ figure, histogram string }{
	{"ttft", "time_to_first_token_seconds"},
	{"tpot", "time_per_output_token_seconds"},
	{"e2e", "e2e_request_latency_seconds"},
}

// serverFigures returns the server's figures of a run that llmmetrics run
// took with --scrape: its two scrapes, named in the header's load, beside
// the run's file. It returns nil for a run without them.
func serverFigures(runFile string, h *llmmetrics.RunHeader) (map[string]float64, error) {
	if h == nil || h.Load["scrape_before"] == "" || h.Load["scrape_after"] == "" {
		return nil, nil
	}
	elapsed, err := time.ParseDuration(h.Load["scrape_elapsed"])
	if err != nil {
		return nil, fmt.Errorf("%s: its header's scrape_elapsed %q: %v", runFile, h.Load["scrape_elapsed"], err)
	}
	dir := filepath.Dir(runFile)
	var scrapes [2]*server.Scrape
	for i, key := range []string{"scrape_before", "scrape_after"} {
		path := filepath.Join(dir, filepath.Base(h.Load[key]))
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("%s: its scrape: %w", runFile, err)
		}
		scrapes[i], err = server.ParseScrape(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	w, err := server.Diff(scrapes[0], scrapes[1], elapsed, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: its scrapes: %w", runFile, err)
	}
	out := map[string]float64{}
	for _, sh := range serverHistograms {
		hist, ok := w.Histograms[sh.histogram]
		if !ok {
			continue
		}
		if m, err := hist.Mean(); err == nil {
			out["server "+sh.figure+" mean"] = 1000 * m
		}
		for _, q := range []struct {
			key string
			q   float64
		}{{"p50", 0.5}, {"p99", 0.99}} {
			if v, _, err := hist.Quantile(q.q); err == nil {
				out["server "+sh.figure+" "+q.key] = 1000 * v
			}
		}
	}
	for _, c := range []struct{ figure, counter string }{
		{"server output_tokens_per_s", "generation_tokens"}, {"server output_tokens_per_s", "llamacpp:tokens_predicted"},
		{"server prompt_tokens_per_s", "prompt_tokens"}, {"server prompt_tokens_per_s", "llamacpp:prompt_tokens"},
	} {
		if v, err := w.Rate(c.counter); err == nil {
			out[c.figure] = v
		}
	}
	return out, nil
}
