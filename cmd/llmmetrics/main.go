// Command llmmetrics summarizes per-request records of an LLM serving run:
// TTFT, TPOT, ITL, E2E, their percentiles, throughput and goodput, with
// every convention named in the output.
//
// Usage:
//
//	llmmetrics report [flags] [FILE]
//
// FILE is a CSV or JSONL file of per-request records (see the package
// documentation of github.com/llmmetrics/llmmetrics); without it, report
// reads standard input. The format is detected from the content.
//
// Flags:
//
//	--method nearest-rank|linear   percentile method (default nearest-rank)
//	--percentiles 50,90,95,99      percentiles to report
//	--slo ttft=500ms,tpot=50ms,e2e=5s,max_gap=1s
//	                               per-request SLO for goodput (any subset)
//	--slo-strict                   an SLO limit is met only below it (<), not at it
//	--window 10s                   declared window for throughput and goodput
//	                               (default: first send → last text chunk)
//	--lenient                      count invalid records as rejected instead of failing
//	--json                         print one JSON object instead of a table
//
// On bad input it prints one line to standard error and exits with status 1;
// on a bad command line, with status 2.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
	"github.com/llmmetrics/llmmetrics/server"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: llmmetrics report [--method nearest-rank|linear] [--percentiles 50,90,95,99]
                         [--slo ttft=500ms,tpot=50ms,e2e=5s] [--slo-strict] [--window 10s]
                         [--lenient] [--from TOOL] [--dialect TOOL] [--json] [FILE]
       llmmetrics compare [--from TOOL] [--method ...] [--window 10s] [--lenient] [--json] [FILE]
       llmmetrics server (--before A.prom --after B.prom --elapsed 60s | --prometheus URL --start T --end T)
                         [--records FILE] [--timings FILE] [--buckets 128,512,2048]
                         [--select name=value,...] [--json]`

// errUsage marks command-line mistakes, which exit with status 2.
var errUsage = errors.New("usage")

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := dispatch(args, stdin, stdout)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, usage)
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "llmmetrics: %v\n%s\n", strings.TrimPrefix(err.Error(), "usage: "), usage)
		return 2
	default:
		fmt.Fprintf(stderr, "%s\n", oneLine(err.Error()))
		return 1
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "; ")
	if !strings.HasPrefix(s, "llmmetrics: ") {
		s = "llmmetrics: " + s
	}
	return s
}

func dispatch(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: no command", errUsage)
	}
	switch args[0] {
	case "report":
		return report(args[1:], stdin, stdout)
	case "compare":
		return compare(args[1:], stdin, stdout)
	case "server":
		return serverReport(args[1:], stdout)
	case "help", "-h", "--help":
		return flag.ErrHelp
	}
	return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
}

func report(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	method := fs.String("method", "nearest-rank", "")
	percentiles := fs.String("percentiles", "50,90,95,99", "")
	sloFlag := fs.String("slo", "", "")
	strict := fs.Bool("slo-strict", false, "")
	window := fs.Duration("window", 0, "")
	lenient := fs.Bool("lenient", false, "")
	asJSON := fs.Bool("json", false, "")
	from := fs.String("from", "", "")
	dialectFlag := fs.String("dialect", "", "")

	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) > 1 {
		return fmt.Errorf("%w: one file at most, got %d", errUsage, len(files))
	}

	opt, err := parseOptions(fs, *method, *window, *lenient)
	if err != nil {
		return err
	}
	if opt.Percentiles, err = llmmetrics.ParsePercentiles(*percentiles); err != nil {
		return fmt.Errorf("%w: --percentiles: %v", errUsage, err)
	}
	if *sloFlag != "" {
		slo, err := llmmetrics.ParseSLO(*sloFlag)
		if err != nil {
			return fmt.Errorf("%w: --slo: %v", errUsage, err)
		}
		slo.Strict = *strict
		opt.SLO = &slo
	} else if *strict {
		return fmt.Errorf("%w: --slo-strict needs --slo", errUsage)
	}
	tool, err := parseTool("from", *from)
	if err != nil {
		return err
	}
	dialect, err := parseTool("dialect", *dialectFlag)
	if err != nil {
		return err
	}

	in, name, closeIn, err := open(files, stdin)
	if err != nil {
		return err
	}
	defer closeIn()

	// Another tool's file, named by --from or recognised by its content,
	// goes through its importer; anything else is llmmetrics' CSV or JSONL.
	var runData *llmmetrics.Run
	if tool == "" && dialect == "" {
		var head []byte
		in, head = formats.Peek(in)
		tool, _ = formats.Detect(head)
	}
	if tool == "" && dialect != "" {
		tool = dialect
	}
	if tool != "" {
		file, err := formats.Read(in, tool)
		if err != nil {
			return inFile(name, err)
		}
		if dialect != "" {
			if dialect != file.Tool {
				return fmt.Errorf("%w: --dialect %s on a %s file: a dialect is computed from its own tool's files", errUsage, dialect, file.Tool)
			}
			d, err := file.Dialect()
			if err != nil {
				return inFile(name, err)
			}
			return writeDialect(stdout, name, file, d, *asJSON)
		}
		if runData, err = file.Records(); err != nil {
			return inFile(name, err)
		}
		if opt.Window == 0 {
			opt.Window = file.Window
			opt.NoSendTimes = file.NoSendTimes
		}
		opt.Notes = append([]string{fmt.Sprintf("Read from a %s file (%s) and re-analysed under llmmetrics' conventions.", file.Tool, file.Layout)}, file.Notes...)
	} else {
		runData, _, err = llmmetrics.ReadOptions{Lenient: opt.Lenient}.Read(in)
		if err != nil && !(opt.Lenient && errors.Is(err, llmmetrics.ErrRejected)) {
			return inFile(name, withLenientHint(err))
		}
	}
	s, err := runData.Summarize(opt)
	if err != nil {
		return inFile(name, withLenientHint(err))
	}
	if *asJSON {
		b, err := s.MarshalJSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	fmt.Fprintf(stdout, "llmmetrics report: %s\n\n", name)
	return s.WriteTable(stdout)
}

// writeDialect prints a tool's own summary, under the tool's own keys and
// units: as a JSON object that can be diffed against the tool's file, or as
// a table that says which figures the file's data determine only
// approximately, and why.
func writeDialect(w io.Writer, name string, f *formats.File, d *formats.Dialect, asJSON bool) error {
	if asJSON {
		var b strings.Builder
		b.WriteByte('{')
		for i, fig := range d.Figures {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(fig.Key)
			v, err := json.Marshal(fig.Value)
			if err != nil {
				return fmt.Errorf("%s: %w", fig.Key, err)
			}
			fmt.Fprintf(&b, "%s:%s", k, v)
		}
		b.WriteString("}\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s summary of %s (%s), computed by llmmetrics with %s's own formulas\n\n", d.Tool, name, f.Layout, d.Tool)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, fig := range d.Figures {
		note := ""
		if fig.Approx != "" {
			note = "approximate: " + fig.Approx
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", fig.Key, strconv.FormatFloat(fig.Value, 'g', -1, 64), note)
	}
	tw.Flush()
	b.WriteString("\nits conventions:\n")
	for _, r := range d.Rules {
		fmt.Fprintf(&b, "  - %s\n", r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// compare prints llmmetrics' figures for another tool's file beside the
// tool's own, with the reasons they differ.
func compare(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	method := fs.String("method", "nearest-rank", "")
	from := fs.String("from", "", "")
	window := fs.Duration("window", 0, "")
	lenient := fs.Bool("lenient", false, "")
	asJSON := fs.Bool("json", false, "")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) > 1 {
		return fmt.Errorf("%w: one file at most, got %d", errUsage, len(files))
	}
	opt, err := parseOptions(fs, *method, *window, *lenient)
	if err != nil {
		return err
	}
	tool, err := parseTool("from", *from)
	if err != nil {
		return err
	}
	in, name, closeIn, err := open(files, stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	file, err := formats.Read(in, tool)
	if err != nil {
		return inFile(name, err)
	}
	c, err := formats.Compare(file, opt)
	if err != nil {
		return inFile(name, withLenientHint(err))
	}
	if *asJSON {
		b, err := c.MarshalJSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	fmt.Fprintf(stdout, "llmmetrics compare: %s (%s, %s)\n\n", name, file.Tool, file.Layout)
	return c.WriteTable(stdout)
}

// serverReport prints the server side of a run from two scrapes of a vLLM
// server's /metrics, with the known-output check when client records are
// given.
func serverReport(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	beforePath := fs.String("before", "", "")
	afterPath := fs.String("after", "", "")
	elapsed := fs.Duration("elapsed", 0, "")
	records := fs.String("records", "", "")
	selFlag := fs.String("select", "", "")
	timingsPath := fs.String("timings", "", "")
	promURL := fs.String("prometheus", "", "")
	startFlag := fs.String("start", "", "")
	endFlag := fs.String("end", "", "")
	bucketsFlag := fs.String("buckets", "128,512,2048", "")
	asJSON := fs.Bool("json", false, "")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	var bounds []int
	for _, f := range strings.Split(*bucketsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return fmt.Errorf("%w: --buckets: %q is not a token count", errUsage, f)
		}
		bounds = append(bounds, n)
	}
	sel, err := server.ParseSelector(*selFlag)
	if err != nil {
		return fmt.Errorf("%w: --select: %v", errUsage, err)
	}
	var w *server.Window
	switch {
	case *timingsPath != "" && *records == "":
		return fmt.Errorf("%w: --timings needs --records, the client records they belong to", errUsage)
	case len(files) > 0:
		return fmt.Errorf("%w: server takes no file arguments; use --before and --after, or --prometheus", errUsage)
	case *promURL != "":
		if *beforePath != "" || *afterPath != "" || *elapsed != 0 {
			return fmt.Errorf("%w: --prometheus reads the window itself: give --start and --end, not scrapes", errUsage)
		}
		start, err := parseTime(*startFlag)
		if err != nil {
			return fmt.Errorf("%w: --start: %v", errUsage, err)
		}
		end, err := parseTime(*endFlag)
		if err != nil {
			return fmt.Errorf("%w: --end: %v", errUsage, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if w, err = (&server.Prometheus{URL: *promURL}).Window(ctx, start, end, sel); err != nil {
			return err
		}
	case *beforePath == "" || *afterPath == "":
		return fmt.Errorf("%w: server needs --before and --after scrapes, or --prometheus with --start and --end", errUsage)
	case *elapsed <= 0:
		return fmt.Errorf("%w: server needs --elapsed, the time between the two scrapes", errUsage)
	default:
		readScrape := func(path string) (*server.Scrape, error) {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			s, err := server.ParseScrape(f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return s, nil
		}
		before, err := readScrape(*beforePath)
		if err != nil {
			return err
		}
		after, err := readScrape(*afterPath)
		if err != nil {
			return err
		}
		if w, err = server.Diff(before, after, *elapsed, sel); err != nil {
			return err
		}
	}
	rep := &server.Report{Window: w}
	if *records != "" {
		f, err := os.Open(*records)
		if err != nil {
			return err
		}
		defer f.Close()
		run, _, err := llmmetrics.Read(f)
		if err != nil {
			return inFile(*records, err)
		}
		if err := run.Err(); err != nil {
			return inFile(*records, err)
		}
		k, err := server.CheckKnownOutput(w, run.Records)
		if err != nil {
			return inFile(*records, err)
		}
		rep.Known = &k
		if *timingsPath != "" {
			timings, err := readTimings(*timingsPath)
			if err != nil {
				return err
			}
			rep.TTFT = server.DecomposeAll(run.Records, timings, bounds)
		}
	}
	if *asJSON {
		b, err := rep.MarshalJSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	return rep.WriteTable(stdout)
}

// parseTime reads a time as RFC 3339 or as Unix seconds.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("missing")
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return time.Time{}, fmt.Errorf("%q is neither RFC 3339 nor Unix seconds", s)
	}
	return time.UnixMilli(int64(math.Round(f * 1000))), nil
}

// readTimings reads a timings file: one JSON object a line, pairing a
// request id with the timings its server reported (see
// server.ParseTimingsLine).
func readTimings(path string) (map[string]server.Timings, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]server.Timings{}
	br := bufio.NewReader(f)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if t := strings.TrimSpace(string(b)); t != "" {
			id, tm, perr := server.ParseTimingsLine([]byte(t))
			if perr != nil {
				return nil, fmt.Errorf("%s: line %d: %v", path, line, strings.TrimPrefix(perr.Error(), "server: "))
			}
			if _, dup := out[id]; dup {
				return nil, fmt.Errorf("%s: line %d: id %q repeated", path, line, id)
			}
			out[id] = tm
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// parseOptions reads the options report and compare share.
func parseOptions(fs *flag.FlagSet, method string, window time.Duration, lenient bool) (llmmetrics.Options, error) {
	var opt llmmetrics.Options
	var err error
	if opt.Method, err = llmmetrics.ParseMethod(method); err != nil {
		return opt, fmt.Errorf("%w: --method: %v", errUsage, err)
	}
	if window < 0 || (window == 0 && flagSet(fs, "window")) {
		return opt, fmt.Errorf("%w: --window %v: %v", errUsage, window, llmmetrics.ErrInvalidWindow)
	}
	opt.Window, opt.Lenient = window, lenient
	return opt, nil
}

// parseTool parses the value of a flag that names a tool; empty is none.
func parseTool(flagName, value string) (formats.Tool, error) {
	if value == "" {
		return "", nil
	}
	t, err := formats.ParseTool(value)
	if err != nil {
		return "", fmt.Errorf("%w: --%s: %v", errUsage, flagName, err)
	}
	return t, nil
}

// parseInterleaved parses flags that may come before or after the file
// names, and returns the names.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		if fs.NArg() == 0 {
			return files, nil
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// open opens the named file, or standard input when there is none or it
// is "-".
func open(files []string, stdin io.Reader) (io.Reader, string, func(), error) {
	if len(files) == 0 || files[0] == "-" {
		return stdin, "standard input", func() {}, nil
	}
	f, err := os.Open(files[0])
	if err != nil {
		return nil, "", nil, err
	}
	return f, files[0], func() { f.Close() }, nil
}

// withLenientHint adds to an error about invalid records that --lenient
// would set them aside instead.
func withLenientHint(err error) error {
	var re *llmmetrics.RecordError
	if errors.As(err, &re) {
		return fmt.Errorf("%w (--lenient counts invalid records as rejected instead)", err)
	}
	return err
}

// inFile prefixes an error with the input's name.
func inFile(name string, err error) error {
	return fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "llmmetrics: "))
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
