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
	about: "Sweep reports runs taken at several load levels, each level run several times (the lessons ask\n" +
		"for at least 3 repeats, in separate processes): per level, every figure as median ±MAD (raw) across\n" +
		"the level's runs — TTFT, TPOT and E2E p50/p95/p99, per-request User TPS, output and prompt tokens/s\n" +
		"apart, and with --slo the attainment (a percentage goodput). Percentiles are computed per run over\n" +
		"its own requests and never averaged or subtracted across runs: a row is the median of per-run\n" +
		"percentiles, and says so. A run's level comes from its header (llmmetrics run writes the\n" +
		"concurrency or rate), or from --level FILE=VALUE. With --slo, the capacity is the highest level\n" +
		"whose median attainment meets --target and the first that misses it, a bracket interpolated only\n" +
		"between measured levels (DistServe's framing: the largest load at which the attainment goal holds).\n" +
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
	if len(files) == 0 {
		return fmt.Errorf("%w: sweep needs the files of the runs", errUsage)
	}
	if f.tool != "" || flagSet(fs, "window") {
		return fmt.Errorf("%w: sweep reads each file's own format and derives each run's window", errUsage)
	}
	if *f.kind != "concurrency" && *f.kind != "rate" {
		return fmt.Errorf("%w: --kind %q: want concurrency or rate", errUsage, *f.kind)
	}
	given := map[string]float64{}
	for _, l := range f.levels {
		name, v, ok := strings.Cut(l, "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || !(x >= 0) {
			return fmt.Errorf("%w: --level %q: want FILE=VALUE", errUsage, l)
		}
		given[name] = x
	}
	var runs []compare.LevelRun
	var notes []string
	stageAt := map[string]int{} // an inference-perf stage's run, by stage name
	for _, name := range files {
		st, err := readStage(name)
		if err != nil {
			return err
		}
		if st != nil {
			// A stage's client and server reports are one run.
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
				lr.Kind, lr.Level = *f.kind, v
				delete(given, name)
			}
			continue
		}
		run, err := loadRun(name, opt.Lenient)
		if err != nil {
			return err
		}
		lr := compare.LevelRun{Name: name, Run: run}
		if lr.Figures, err = serverFigures(name, run.Header); err != nil {
			return err
		}
		if v, ok := given[name]; ok {
			lr.Kind, lr.Level = *f.kind, v
			delete(given, name)
		} else if lr.Kind, lr.Level, ok = compare.LevelOf(run); !ok {
			return fmt.Errorf("%w: %s has no level in a run header: give --level %s=VALUE", errUsage, name, name)
		}
		runs = append(runs, lr)
	}
	for _, r := range runs {
		if r.Level < 0 {
			return fmt.Errorf("%w: the inference-perf stage %s has no requested rate (only its server report was given): give --level", errUsage, r.Name)
		}
	}
	for name := range given {
		return fmt.Errorf("%w: --level names %s, which is not among the files", errUsage, name)
	}
	sw, err := compare.SweepRuns(runs, opt)
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
	fmt.Fprintf(stdout, "llmmetrics sweep: %d runs\n\n", len(runs))
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
			fmt.Fprintf(stdout, "  %s %g: attainment %.4g, margin %+.4g\n", capacity.Kind, m.Level, m.Attainment, m.Margin)
		}
	}
	return nil
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
