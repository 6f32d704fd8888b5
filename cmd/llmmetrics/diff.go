package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
)

var diffCommand = &command{
	name:     "diff",
	synopsis: "llmmetrics diff [--alpha 0.05] [--method ...] [--percentiles 50,90,95,99] [--slo ...] [--warmup N|D|auto] [--plot DIR] [--html FILE] [--label A --label B] [--json] A[,A2,…] B[,B2,…]",
	about: "Diff answers \"did this change make it slower?\" as benchstat does for Go benchmarks: for each figure,\n" +
		"the baseline A, the new B, the relative change, and whether the change is significant at --alpha,\n" +
		"printed as ~ when it is not. Several files a side, joined by commas, are repeats of one setup.\n" +
		"Latencies are percentiles of the per-request values pooled over a side's runs, never averages of\n" +
		"per-run percentiles; their p50 is tested with the Mann–Whitney U test on those values (exact up to\n" +
		"20 values a side, else the normal approximation with ties corrected), tail percentiles are shown\n" +
		"but not tested. Rates (output and prompt tokens/s, requests/s, attainment, error rate) are the\n" +
		"median over runs, tested on the per-run values: with fewer than 3 runs a side they cannot be\n" +
		"significant, and the output says so. Files are llmmetrics' CSV or JSONL or another tool's results.\n" +
		"--plot DIR and --html FILE draw A's and B's percentile spectra of TTFT, TPOT and E2E overlaid.",
	examples: []string{
		"llmmetrics diff before.jsonl after.jsonl",
		"llmmetrics diff --slo ttft=500ms,tpot=50ms a1.jsonl,a2.jsonl,a3.jsonl b1.jsonl,b2.jsonl,b3.jsonl",
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
	var sides [2][]*llmmetrics.Run
	for k, side := range files {
		for _, name := range strings.Split(side, ",") {
			run, err := loadRun(name, opt.Lenient)
			if err != nil {
				return err
			}
			sides[k] = append(sides[k], run)
		}
	}
	d, err := compare.DiffRuns(sides[0], sides[1], compare.DiffOptions{Summary: opt, Alpha: *alpha})
	if err != nil {
		return err
	}
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
