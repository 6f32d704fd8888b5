package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/llmmetrics/llmmetrics/drive/trace"
	"github.com/llmmetrics/llmmetrics/formats"
)

var reconcileCommand = &command{
	name:     "reconcile",
	synopsis: "llmmetrics reconcile [--from TOOL] [--method nearest-rank|linear] [--window 10s] [--strict] [--json] [FILE]",
	about: "Reconcile reads another tool's result file and prints one table of two columns: llmmetrics' figure\n" +
		"for the file's requests under llmmetrics' conventions, and the tool's figure for the same requests,\n" +
		"recomputed from them with the tool's own formulas (its dialect), with the tool's key; under it, one\n" +
		"line for each difference in convention that applies to the file (percentile method, weighting,\n" +
		"clock boundaries, token or chunk counts, window, failures, standard deviation). Of a file that keeps\n" +
		"only a sample of its requests (GuideLLM's request samples), the tool's column is what the file\n" +
		"states, over every request, and llmmetrics' column, recomputed from the sample, is marked SAMPLE.\n" +
		"It does not compare two runs. Requests that llmmetrics cannot accept are set aside and counted\n" +
		"unless --strict.",
	examples: []string{
		"llmmetrics reconcile vllm-result.json",
		"llmmetrics reconcile --from aiperf --method linear --json profile_export.jsonl",
	},
	flags: func() *flag.FlagSet { fs, _ := newReconcileFlags(); return fs },
}

// newReconcileFlags defines reconcile's flags: report's, less those that
// change which figures are computed (the percentiles, an SLO) and
// --lenient (another tool's invalid requests are set aside unless
// --strict).
func newReconcileFlags() (*flag.FlagSet, *analysis) {
	fs := flag.NewFlagSet("reconcile", flag.ContinueOnError)
	a := &analysis{}
	a.define(fs, false)
	return fs, a
}

// reconcile prints llmmetrics' figures for another tool's file beside the
// tool's own, with the reasons they differ.
func reconcile(args []string, stdin io.Reader, stdout io.Writer) error {
	fs, f := newReconcileFlags()
	opt, files, err := f.parseOne(fs, args)
	if err != nil {
		return err
	}
	opt.Lenient = !*f.strict
	in, name, closeIn, err := open(files, stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	in, head := formats.Peek(in)
	if err := traceGiven(head, name); err != nil { // report.go
		return inFile(name, err)
	}
	if _, theirs := formats.Detect(head); !theirs && f.tool == "" {
		if t, ok := trace.DetectFormat(head); ok && t == trace.LLMMetrics {
			return inFile(name, errors.New("this is llmmetrics' own run file: reconcile puts another tool's figures beside llmmetrics' for that tool's file; report reads this one"))
		}
	}
	file, err := formats.Read(in, f.tool)
	if err != nil {
		return inFile(name, err)
	}
	c, err := formats.Compare(file, opt)
	if err != nil {
		return inFile(name, err)
	}
	if *f.json {
		b, err := c.MarshalJSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	fmt.Fprintf(stdout, "llmmetrics reconcile: %s (%s, %s)\n\n", name, file.Tool, file.Layout)
	return c.WriteTable(stdout)
}
