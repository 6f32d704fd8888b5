package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
)

var reportCommand = &command{
	name: "report",
	synopsis: "llmmetrics report [--method nearest-rank|linear] [--percentiles 50,90,95,99]\n" +
		"                    [--slo ttft=500ms,tpot=50ms,e2e=5s,max_gap=1s] [--slo-strict] [--window 10s] [--warmup N|D|auto]\n" +
		"                    [--stratify output=16,64,256|prompt=512,2048] [--fail-below 0.95] [--fail-if 'p99(ttft)>500ms']\n" +
		"                    [--plot DIR] [--html FILE] [--timings FILE] [--spectrum ttft|tpot|e2e|max_gap]\n" +
		"                    [--lenient | --strict] [--from TOOL] [--dialect TOOL] [--json] [FILE | FILE…]",
	about: "Report prints the client-side figures of a run: the accounting of every request, TTFT, TPOT,\n" +
		"E2E, ITL and the largest gap per request with their percentiles, output and prompt throughput\n" +
		"(apart), and goodput against an SLO, naming every convention. FILE is llmmetrics' CSV or JSONL,\n" +
		"or another tool's result file (vllm, sglang, aiperf, genai-perf, llmperf, guidellm), detected\n" +
		"from the content; without FILE, or with -, it reads standard input.\n\n" +
		"The project's own formats are strict: an invalid record is an error unless --lenient sets it\n" +
		"aside. Another tool's file cannot be fixed by its reader, so its invalid requests are set aside\n" +
		"by default (counted, with their reasons, at the top of the report); --strict makes them fatal.\n" +
		"Several files of llmmetrics' JSONL, each with its run header, are one run taken by several machines:\n" +
		"they are put on one clock by the headers' wall-clock starts (the machines' clock offset is unknown,\n" +
		"and the report says so) and reported together.\n" +
		"The workload of the measured requests (prompt and output lengths, the arrival process, the requests\n" +
		"in flight, the early-stop rate) is described before the latencies. --warmup sets the warm-up aside\n" +
		"as a counted category, by count, by duration or by the lessons' illustrative rule (auto), and the\n" +
		"window is derived from the rest. --stratify adds the latencies of the ok requests per output (or\n" +
		"prompt) length stratum: output length is not fixed, so one distribution mixes short and long replies.\n" +
		"--plot DIR writes the charts (latency CDFs, a line per file; the gaps with each request's largest;\n" +
		"the timeline; with --timings, the TTFT decomposition) as SVG and PNG; --html FILE writes one page of\n" +
		"the tables and the charts, inline, that opens offline. --spectrum METRIC prints only the metric's\n" +
		"percentile spectrum in HdrHistogram's layout.\n" +
		"As a gate in CI, --fail-below (attainment against --slo) and --fail-if (a threshold on a figure,\n" +
		"repeatable) make report exit with status 3 and a one-line reason when the run crosses one, after\n" +
		"printing the report; a figure the run lacks is an error (status 1), never a pass.\n" +
		"With --dialect TOOL, report prints the tool's own summary computed with the tool's formulas,\n" +
		"under its keys; the flags the tool has no concept of are refused there.",
	examples: []string{
		"llmmetrics report testdata/sample_run.jsonl",
		"llmmetrics report --slo ttft=500ms,tpot=50ms --percentiles 50,99,99.9 --json run.csv",
		"llmmetrics report --from vllm --dialect vllm vllm-result.json",
		"llmmetrics report --warmup auto run.jsonl",
		"llmmetrics report --plot charts/ --html report.html --timings timings.jsonl run.jsonl",
		"llmmetrics report --spectrum ttft run.jsonl > ttft.hgrm",
		"llmmetrics report --slo ttft=500ms,tpot=50ms --fail-below 0.95 --fail-if 'p99(ttft)>800ms' --fail-if 'error_rate>0.01' run.jsonl",
		"cat run.jsonl | llmmetrics report --method linear -",
	},
	flags: func() *flag.FlagSet { fs, _ := newReportFlags(); return fs },
}

// reportFlags are the flags of report.
type reportFlags struct {
	analysis
	dialect *string
	gate    gate
	pics    pictures
	errs    *errorSet // the failed requests' error set, printed after the table
}

func newReportFlags() (*flag.FlagSet, *reportFlags) {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	f := &reportFlags{}
	f.analysis.define(fs, true)
	f.dialect = fs.String("dialect", "", "print TOOL's own summary of its file, with TOOL's formulas and keys (TOOL as for --from)")
	f.gate.define(fs)
	f.pics.define(fs, true)
	return fs, f
}

func report(args []string, stdin io.Reader, stdout io.Writer) error {
	fs, f := newReportFlags()
	opt, files, err := f.analysis.parseFiles(fs, args, 0)
	if err != nil {
		return err
	}
	if err := f.gate.parse(&opt); err != nil {
		return err
	}
	if *f.pics.timings != "" && !f.pics.wanted() {
		return fmt.Errorf("%w: --timings draws the decomposition chart: give --plot or --html", errUsage)
	}
	if len(files) > 1 {
		if f.tool != "" || *f.dialect != "" {
			return fmt.Errorf("%w: several files are merged only in llmmetrics' own JSONL, with their run headers", errUsage)
		}
		return reportMerged(stdout, files, opt, f)
	}
	dialect, err := parseTool("dialect", *f.dialect)
	if err != nil {
		return err
	}
	in, name, closeIn, err := open(files, stdin)
	if err != nil {
		return err
	}
	defer closeIn()

	tool := f.tool
	if tool == "" && dialect != "" {
		tool = dialect
	}
	if tool == "" {
		if tool, in, err = detect(in); err != nil {
			return inFile(name, err)
		}
	}
	if tool == "" {
		return reportOwn(stdout, in, name, opt, f)
	}
	file, err := formats.Read(in, tool)
	if err != nil {
		return inFile(name, err)
	}
	if dialect != "" {
		if dialect != file.Tool {
			return fmt.Errorf("%w: --dialect %s on a %s file: a dialect is computed from its own tool's files", errUsage, dialect, file.Tool)
		}
		return reportDialect(stdout, name, file, fs, opt, f.asJSON())
	}
	return reportImported(stdout, name, file, opt, f)
}

// reportOwn reports a file in llmmetrics' own CSV or JSONL. Unless the
// pictures or the spectrum want the records themselves, the file is
// summarized without keeping them as Records (ReadOptions.Summarize).
func reportOwn(w io.Writer, in io.Reader, name string, opt llmmetrics.Options, f *reportFlags) error {
	if *f.pics.spectrum == "" && !f.pics.wanted() && name != "standard input" { // standard input cannot be read again for the error set
		s, _, err := llmmetrics.ReadOptions{Lenient: opt.Lenient}.Summarize(in, opt)
		if err != nil {
			return inFile(name, withLenientHint(err))
		}
		f.errs = errorSetOfFile(name, s, opt.Lenient)
		return f.writeSummary(w, name, s, nil)
	}
	run, _, err := llmmetrics.ReadOptions{Lenient: opt.Lenient}.Read(in)
	if err != nil && !(opt.Lenient && errors.Is(err, llmmetrics.ErrRejected)) {
		return inFile(name, withLenientHint(err))
	}
	s, err := run.Summarize(opt)
	if err != nil {
		return inFile(name, withLenientHint(err))
	}
	f.errs = newErrorSet(run.Records)
	return f.writeSummary(w, name, s, []namedRun{{name, run}})
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
		run, _, err := llmmetrics.ReadOptions{Lenient: opt.Lenient}.Read(in)
		closeIn()
		if err != nil && !(opt.Lenient && errors.Is(err, llmmetrics.ErrRejected)) {
			return inFile(name, withLenientHint(err))
		}
		runs = append(runs, run)
		named = append(named, namedRun{name, run})
	}
	merged, err := llmmetrics.MergeRuns(runs)
	if err != nil {
		return fmt.Errorf("%s: %s", strings.Join(files, ", "), trimPrefix(err))
	}
	opt.Notes = append(opt.Notes, fmt.Sprintf("Merged %d files of one run, aligned by their wall-clock starts; the machines' clock offset is unknown (typically milliseconds under NTP), and the window spans it. Ids are prefixed with the file's position.", len(files)))
	s, err := merged.Summarize(opt)
	if err != nil {
		return withLenientHint(err)
	}
	f.errs = newErrorSet(merged.Records)
	return f.writeSummary(w, strings.Join(files, " + "), s, named)
}

// reportImported reports another tool's file under llmmetrics'
// conventions. Its invalid requests are set aside unless --strict.
func reportImported(w io.Writer, name string, file *formats.File, opt llmmetrics.Options, f *reportFlags) error {
	run, err := file.Records()
	if err != nil && !errors.Is(err, llmmetrics.ErrRejected) {
		return inFile(name, err)
	}
	opt.Lenient = !*f.strict
	if err != nil && *f.strict {
		return inFile(name, fmt.Errorf("%w (--strict; without it they are set aside and counted)", err))
	}
	if opt.Window == 0 {
		opt.Window = file.Window
		opt.NoSendTimes = file.NoSendTimes
	}
	opt.Notes = append([]string{fmt.Sprintf("Read from a %s file (%s) and re-analysed under llmmetrics' conventions.", file.Tool, file.Layout)}, file.Notes...)
	s, err := run.Summarize(opt)
	if err != nil {
		if *f.strict {
			err = fmt.Errorf("%w (--strict; without it such requests are set aside and counted)", err)
		}
		return inFile(name, err)
	}
	f.errs = newErrorSet(run.Records)
	return f.writeSummary(w, name, s, []namedRun{{name, run}})
}

// writeSummary writes the report (or only the spectrum, with --spectrum),
// then the charts and the page, then applies the gate's conditions.
func (f *reportFlags) writeSummary(w io.Writer, name string, s *llmmetrics.Summary, runs []namedRun) error {
	if m := *f.pics.spectrum; m != "" {
		return writeSpectrum(w, m, runs, s)
	}
	var err error
	if f.asJSON() {
		var b []byte
		if b, err = s.MarshalJSON(); err == nil && f.errs != nil {
			b, err = withField(b, "error_set", f.errs)
		}
		if err == nil {
			_, err = fmt.Fprintf(w, "%s\n", b)
		}
	} else {
		fmt.Fprintf(w, "llmmetrics report: %s\n\n", name)
		if err = s.WriteTable(w); err == nil {
			f.errs.write(w)
		}
	}
	if err != nil {
		return err
	}
	if f.pics.wanted() {
		var table bytes.Buffer
		if err := s.WriteTable(&table); err != nil {
			return err
		}
		cs, err := reportCharts(runs, s, *f.pics.timings)
		if err != nil {
			return err
		}
		if err := f.pics.write("llmmetrics report: "+name, table.String(), cs); err != nil {
			return err
		}
	}
	return f.gate.check(s)
}

// detect tells which tool wrote the input, "" for llmmetrics' own
// formats, and refuses a tool's companion summary file with a sentence
// saying which file to pass instead.
func detect(in io.Reader) (formats.Tool, io.Reader, error) {
	in, head := formats.Peek(in)
	if tool, ok := formats.Detect(head); ok {
		return tool, in, nil
	}
	if _, instead, ok := formats.DetectSummary(head); ok {
		return "", in, fmt.Errorf("%w: %s", formats.ErrSummaryFile, instead)
	}
	return "", in, nil
}
