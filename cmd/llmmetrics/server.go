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
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/server"
)

var serverCommand = &command{
	name: "server",
	synopsis: "llmmetrics server (--before A.prom --after B.prom --elapsed 60s | --prometheus URL --start T --end T)\n" +
		"                    [--select name=value,...] [--records FILE [--timings FILE] [--buckets 128,512,2048]] [--json]\n" +
		"  llmmetrics server --records FILE --timings FILE [--buckets 128,512,2048] [--json]",
	about: "Server prints what a vLLM server did over a window: the delta and rate of every counter (output\n" +
		"and prompt tokens/s apart), finished requests by reason, and each histogram's delta with its mean\n" +
		"and PromQL histogram_quantile p50/p95/p99, every figure labelled as a server figure. The window is\n" +
		"two scrapes of /metrics taken --elapsed apart, or read from a Prometheus server's query API. A\n" +
		"restart between the ends, a series at one end only, or a selector that picks nothing is an error.\n" +
		"With --records, the client's records are checked against the server's token counter (the known-\n" +
		"output check); with --timings too, each request's client TTFT is decomposed with the server's\n" +
		"per-request timings. --records and --timings alone, without a window, give the decomposition only.",
	examples: []string{
		"llmmetrics server --before before.prom --after after.prom --elapsed 60s --select model_name=Qwen/Qwen2.5-3B-Instruct",
		"llmmetrics server --before a.prom --after b.prom --elapsed 60s --records run.jsonl --timings timings.jsonl --json",
		"llmmetrics server --prometheus http://127.0.0.1:9090 --start 2026-11-29T10:00:00Z --end 2026-11-29T10:01:00Z",
		"llmmetrics server --records run.jsonl --timings timings.jsonl",
	},
	flags: func() *flag.FlagSet { fs, _ := newServerFlags(); return fs },
}

// serverFlags are the flags of server.
type serverFlags struct {
	before, after, records, sel, timings, prometheus, start, end, buckets *string
	elapsed                                                               *time.Duration
	json                                                                  *bool
}

func newServerFlags() (*flag.FlagSet, *serverFlags) {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	f := &serverFlags{}
	f.before = fs.String("before", "", "`file` of the scrape of /metrics taken at the start of the window (Prometheus text or OpenMetrics)")
	f.after = fs.String("after", "", "`file` of the scrape taken at the end of the window")
	f.elapsed = fs.Duration("elapsed", 0, "the `duration` between the two scrapes, e.g. 60s")
	f.prometheus = fs.String("prometheus", "", "read the window from the Prometheus server at `URL` instead of scrapes")
	f.start = fs.String("start", "", "with --prometheus: the window's start, RFC 3339 or Unix seconds")
	f.end = fs.String("end", "", "with --prometheus: the window's end, RFC 3339 or Unix seconds")
	f.sel = fs.String("select", "", "pick the series whose labels have these values, e.g. `model_name=a,engine=0` (default: every series)")
	f.records = fs.String("records", "", "the client's records of the same window (CSV or JSONL `file`), for the known-output check")
	f.timings = fs.String("timings", "", "per-request server timings (JSONL `file`: id, source, timings), to decompose client TTFT; needs --records")
	f.buckets = fs.String("buckets", "128,512,2048", "prompt-token `bounds` of the TTFT decomposition's buckets")
	f.json = fs.Bool("json", false, "print one JSON object instead of a table")
	return fs, f
}

// serverReport prints the server side of a run from two scrapes of a vLLM
// server's /metrics, with the known-output check when client records are
// given.
func serverReport(args []string, _ io.Reader, stdout io.Writer) error {
	fs, f := newServerFlags()
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	bounds, err := parseBuckets(*f.buckets)
	if err != nil {
		return err
	}
	sel, err := server.ParseSelector(*f.sel)
	if err != nil {
		return usageError("select", err)
	}
	var w *server.Window
	switch {
	case *f.timings != "" && *f.records == "":
		return fmt.Errorf("%w: --timings needs --records, the client records they belong to", errUsage)
	case len(files) > 0:
		return fmt.Errorf("%w: server takes no file arguments; use --before and --after, or --prometheus", errUsage)
	case *f.prometheus != "":
		if w, err = f.prometheusWindow(sel); err != nil {
			return err
		}
	case *f.before == "" && *f.after == "" && *f.timings != "":
		return decomposeOnly(*f.records, *f.timings, bounds, *f.json, stdout)
	case *f.before == "" || *f.after == "":
		return fmt.Errorf("%w: server needs --before and --after scrapes, or --prometheus with --start and --end (or only --records and --timings, for the TTFT decomposition alone)", errUsage)
	case *f.elapsed <= 0:
		return fmt.Errorf("%w: server needs --elapsed, the time between the two scrapes", errUsage)
	default:
		if w, err = f.scrapeWindow(sel); err != nil {
			return err
		}
	}
	rep := &server.Report{Window: w}
	if *f.records != "" {
		if err := f.checkRecords(rep, bounds); err != nil {
			return err
		}
	}
	if *f.json {
		b, err := rep.MarshalJSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	return rep.WriteTable(stdout)
}

// parseBuckets reads --buckets, the prompt-token bounds of the TTFT
// decomposition.
func parseBuckets(s string) ([]int, error) {
	var bounds []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: --buckets: %q is not a token count", errUsage, f)
		}
		bounds = append(bounds, n)
	}
	return bounds, nil
}

// prometheusWindow reads the window from --prometheus, between --start
// and --end.
func (f *serverFlags) prometheusWindow(sel server.Selector) (*server.Window, error) {
	if *f.before != "" || *f.after != "" || *f.elapsed != 0 {
		return nil, fmt.Errorf("%w: --prometheus reads the window itself: give --start and --end, not scrapes", errUsage)
	}
	start, err := parseTime(*f.start)
	if err != nil {
		return nil, usageError("start", err)
	}
	end, err := parseTime(*f.end)
	if err != nil {
		return nil, usageError("end", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return (&server.Prometheus{URL: *f.prometheus}).Window(ctx, start, end, sel)
}

// scrapeWindow reads the window from the --before and --after scrapes,
// --elapsed apart.
func (f *serverFlags) scrapeWindow(sel server.Selector) (*server.Window, error) {
	before, err := readScrape(*f.before)
	if err != nil {
		return nil, err
	}
	after, err := readScrape(*f.after)
	if err != nil {
		return nil, err
	}
	return server.Diff(before, after, *f.elapsed, sel)
}

// readScrape reads and parses a scrape file.
func readScrape(path string) (*server.Scrape, error) {
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

// checkRecords adds to rep the known-output check of --records against
// the window and, with --timings, the TTFT decomposition.
func (f *serverFlags) checkRecords(rep *server.Report, bounds []int) error {
	in, err := os.Open(*f.records)
	if err != nil {
		return err
	}
	defer in.Close()
	run, _, err := llmmetrics.Read(in)
	if err != nil {
		return inFile(*f.records, err)
	}
	k, err := server.CheckKnownOutput(rep.Window, run.Records)
	if err != nil {
		return inFile(*f.records, err)
	}
	rep.Known = &k
	if *f.timings != "" {
		timings, err := readTimings(*f.timings)
		if err != nil {
			return err
		}
		rep.TTFT = server.DecomposeAll(run.Records, timings, bounds)
	}
	return nil
}

// decomposeOnly decomposes the TTFT of the records with the timings,
// without a window of server metrics.
func decomposeOnly(records, timingsPath string, bounds []int, asJSON bool, stdout io.Writer) error {
	in, err := os.Open(records)
	if err != nil {
		return err
	}
	defer in.Close()
	run, _, err := llmmetrics.Read(in)
	if err != nil {
		return inFile(records, err)
	}
	timings, err := readTimings(timingsPath)
	if err != nil {
		return err
	}
	rep := server.DecomposeAll(run.Records, timings, bounds)
	if asJSON {
		b, err := json.Marshal(map[string]any{"side": "server", "ttft_decomposition": rep})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	fmt.Fprint(stdout, "client TTFT decomposed with the server's per-request timings\n")
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
	return parseTimings(f, path)
}

// parseTimings reads the lines of a timings file from r, named name in
// errors.
func parseTimings(r io.Reader, path string) (map[string]server.Timings, error) {
	out := map[string]server.Timings{}
	br := bufio.NewReader(r)
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
