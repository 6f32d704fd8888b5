package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
)

var diffCommand = &command{
	name:     "diff",
	synopsis: "llmmetrics diff [--alpha 0.05] [--method ...] [--percentiles 50,90,95,99] [--slo ...] [--warmup N|D|auto] [--plot DIR] [--html FILE] [--label A --label B] [--json] A[,A2,…] B[,B2,…]",
	about: "Diff answers \"did this change make it slower?\" as benchstat does for Go benchmarks. Several files\n" +
		"a side, joined by commas, are repeats of one setup, each taken in a process of its own. Every figure\n" +
		"is computed once per run: TTFT, TPOT and E2E percentiles over that run's requests, output and\n" +
		"prompt tokens/s, requests/s, the error rate and with --slo the attainment. A and B are the median\n" +
		"± MAD of the per-run values (the MAD as a percentage of the median), and the change between them\n" +
		"is tested with the exact Mann–Whitney U test on those values, n = runs: requests pooled across\n" +
		"runs are not independent samples, since on a shared machine most of the variance is between runs.\n" +
		"A change is printed as ~ when its p is not below --alpha. With n + n runs the smallest p is\n" +
		"2 / C(2n, n) (3 + 3 runs: 0.1), so diff states the runs a side needed to reach --alpha (4 for\n" +
		"0.05) when a side has fewer. Each difference between the sides' run headers (load, model, API,\n" +
		"lengths, environment) is printed as a WARNING line, as is each run whose file is not whole (INTERRUPTED,\n" +
		"or TRUNCATED: killed before its end line) and each file that keeps a sample of its requests, since\n" +
		"their figures are those of the part written. Each run's throughput window is the one\n" +
		"report uses: a file's declared window, or none (rates absent, with the reason) for a file without\n" +
		"send times. Files are llmmetrics' CSV or JSONL or another tool's results (of a GuideLLM file with\n" +
		"several benchmarks, the first); another tool's invalid requests are set aside and counted, as\n" +
		"report does, unless --strict, and so is any invalid record with --lenient: each run with records set\n" +
		"aside says how many in a SET ASIDE line above the table, naming its file (in JSON, \"requests\" gives\n" +
		"each run's file, offered and rejected). --plot DIR and --html FILE draw A's and B's percentile\n" +
		"spectra of TTFT, TPOT and E2E overlaid. See docs/comparing.md.",
	examples: []string{
		"llmmetrics diff before.jsonl after.jsonl",
		"llmmetrics diff --slo ttft=500ms,tpot=50ms a1.jsonl,a2.jsonl,a3.jsonl,a4.jsonl b1.jsonl,b2.jsonl,b3.jsonl,b4.jsonl",
	},
	flags: func() *flag.FlagSet { fs, _, _, _ := newDiffFlags(); return fs },
}

func newDiffFlags() (*flag.FlagSet, *analysis, *float64, *pictures) {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	a := &analysis{}
	a.define(fs, true)
	alpha := fs.Float64("alpha", 0.05, "the significance `level` of the tests")
	pics := &pictures{}
	pics.define(fs, "diff")
	return fs, a, alpha, pics
}

func diffRuns(args []string, _ io.Reader, stdout io.Writer) error {
	fs, f, alpha, pics := newDiffFlags()
	opt, files, err := f.parseFiles(fs, args, 0)
	if err != nil {
		return err
	}
	if len(files) != 2 {
		return fmt.Errorf("%w: diff takes two sides, A and B (several files a side joined by commas)", errUsage)
	}
	if f.tool != "" || flagSet(fs, "window") {
		return fmt.Errorf("%w: diff reads each file's own format and derives each run's window", errUsage)
	}
	for _, side := range files {
		if err := distinctRuns(strings.Split(side, ",")); err != nil {
			return err
		}
	}
	var sides [2][]*llmmetrics.Run
	anyForeign := false
	var warnings []string
	for k, side := range files {
		for _, name := range strings.Split(side, ",") {
			run, foreign, several, warns, err := diffRun(name, opt.Lenient)
			if err != nil {
				return err
			}
			warnings = append(warnings, warns...)
			anyForeign = anyForeign || foreign
			if several > 1 {
				warnings = append(warnings, fmt.Sprintf("%s holds %d benchmarks: diff takes the first; report --benchmark N reports each", name, several))
			}
			sides[k] = append(sides[k], run)
		}
	}
	opt = lenientFor(opt, anyForeign, *f.strict)
	d, err := compare.DiffRuns(sides[0], sides[1], compare.DiffOptions{Summary: opt, Alpha: *alpha,
		NamesA: strings.Split(files[0], ","), NamesB: strings.Split(files[1], ",")})
	if err != nil {
		return err
	}
	d.Warnings = append(d.Warnings, warnings...)
	if err := pics.writeDiff(sides, [2]string(files), opt, d); err != nil {
		return err
	}
	if f.asJSON() {
		b, err := d.MarshalJSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	fmt.Fprintf(stdout, "llmmetrics diff: A = %s, B = %s\n", files[0], files[1])
	return d.WriteTable(stdout)
}

// diffRun reads one run of a side: a file in llmmetrics' formats, or the
// first benchmark of another tool's file, given a header that says what
// the file states of its load (its tool and its rate or concurrency), so
// that the sides' loads are compared as llmmetrics' headers are; foreign
// says it was another tool's, and benchmarks how many the file holds;
// warnings name a run that is not whole (interrupted, truncated) or a
// file that keeps a sample of its requests (partial.go).
func diffRun(name string, lenient bool) (run *llmmetrics.Run, foreign bool, benchmarks int, warnings []string, err error) {
	own, files, err := readRuns(name, lenient)
	if err != nil {
		return nil, false, 1, nil, err
	}
	if own != nil {
		if w, ok := partialRun(name, own); ok {
			warnings = append(warnings, w)
		}
		return own, false, 1, warnings, nil
	}
	if run, err = records(name, files[0]); err != nil {
		return nil, true, len(files), nil, err
	}
	if w, ok := sampledRun(name, files[0]); ok {
		warnings = append(warnings, w)
	}
	if run.Header == nil {
		h := &llmmetrics.RunHeader{Tool: string(files[0].Tool) + " " + files[0].Layout, Load: map[string]string{}}
		if l, ok := files[0].Load(); ok {
			if l.Kind == "rate" {
				h.Load["loop"], h.Load["rate_per_s"] = "open", strconv.FormatFloat(l.Level, 'g', -1, 64)
			} else {
				h.Load["loop"], h.Load["concurrency"] = "closed", strconv.FormatFloat(l.Level, 'g', -1, 64)
			}
		}
		run.Header = h
	}
	return run, true, len(files), warnings, nil
}
