package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
)

// analysis holds the flags report and reconcile share: how to summarize,
// and where the records come from.
type analysis struct {
	method, percentiles, slo, from, warmup, stratify *string
	sloStrict, lenient, strict                       *bool
	window                                           *time.Duration
	json                                             *bool
	tool                                             formats.Tool // --from, parsed by options
}

// define defines the flags; report has them all, reconcile (full false)
// not those that choose which figures are computed.
func (a *analysis) define(fs *flag.FlagSet, full bool) {
	none, no := "", false
	a.percentiles, a.slo, a.sloStrict, a.lenient, a.warmup, a.stratify = &none, &none, &no, &no, &none, &none
	a.method = fs.String("method", "nearest-rank", "percentile `method`: nearest-rank (a real request, named in the output) or linear (Hyndman–Fan type 7, numpy's default)")
	if full {
		a.percentiles = fs.String("percentiles", "50,90,95,99", "comma-separated `list` of percentiles to report, each in [0, 100] with at most 4 decimals, e.g. 50,99,99.9")
		a.slo = fs.String("slo", "", "per-request SLO for goodput, any subset of ttft, tpot, e2e and max_gap, e.g. `ttft=500ms,tpot=50ms,e2e=5s,max_gap=1s`; a request is good when it meets every limit")
		a.sloStrict = fs.Bool("slo-strict", false, "a value meets an SLO limit only below it (<), not at it (≤)")
		a.warmup = fs.String("warmup", "", "set the run's warm-up aside as a counted category: the first `N` requests, those sent within a duration of the first (30s), or auto (the specification's illustrative rule)")
		a.stratify = fs.String("stratify", "", "also report latency per output or prompt length stratum of the ok requests, e.g. `output=16,64,256` or prompt=512,2048")
		a.lenient = fs.Bool("lenient", false, "set invalid records aside as rejected, counted and listed, instead of failing (the default for other tools' files)")
	}
	a.window = fs.Duration("window", 0, "declared `duration` of the run for throughput and goodput, e.g. 10m (default: first send → last text chunk)")
	a.strict = fs.Bool("strict", false, "fail on any invalid request of another tool's file instead of setting it aside (llmmetrics' own formats are always strict without --lenient)")
	a.json = fs.Bool("json", false, "print one JSON object instead of a table")
	a.from = fs.String("from", "", "read FILE as `TOOL`'s result file: vllm, sglang, aiperf, genai-perf, llmperf, guidellm or inference-perf (default: detected from the content)")
}

func (a *analysis) asJSON() bool { return *a.json }

// options checks the flags and returns the summary options they ask for.
func (a *analysis) options(fs *flag.FlagSet) (llmmetrics.Options, error) {
	var opt llmmetrics.Options
	var err error
	if err = opt.Method.UnmarshalText([]byte(*a.method)); err != nil {
		return opt, usageError("method", err)
	}
	if *a.percentiles != "" {
		if opt.Percentiles, err = llmmetrics.ParsePercentiles(*a.percentiles); err != nil {
			return opt, usageError("percentiles", err)
		}
	}
	w := *a.window
	if w < 0 || (w == 0 && flagSet(fs, "window")) {
		return opt, usageError("window", fmt.Errorf("%v: %w", w, llmmetrics.ErrInvalidWindow))
	}
	opt.Window = w
	if *a.lenient && *a.strict {
		return opt, fmt.Errorf("%w: --lenient and --strict ask for opposite things", errUsage)
	}
	opt.Lenient = *a.lenient
	switch {
	case *a.slo != "":
		slo, err := llmmetrics.ParseSLO(*a.slo)
		if err != nil {
			return opt, usageError("slo", err)
		}
		slo.Strict = *a.sloStrict
		opt.SLO = &slo
	case *a.sloStrict:
		return opt, fmt.Errorf("%w: --slo-strict needs --slo", errUsage)
	}
	if opt.Warmup, err = parseWarmup(*a.warmup); err != nil {
		return opt, err
	}
	if *a.stratify != "" {
		var spec llmmetrics.StrataSpec
		if err := spec.UnmarshalText([]byte(*a.stratify)); err != nil {
			return opt, usageError("stratify", err)
		}
		opt.Stratify = &spec
	}
	a.tool, err = parseTool("from", *a.from)
	return opt, err
}

// parseWarmup reads --warmup: a count, a duration or auto.
func parseWarmup(v string) (*llmmetrics.WarmupSpec, error) {
	switch {
	case v == "":
		return nil, nil
	case v == "auto":
		rule := llmmetrics.LessonsWarmup
		return &llmmetrics.WarmupSpec{Rule: &rule}, nil
	}
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return &llmmetrics.WarmupSpec{Requests: n}, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return &llmmetrics.WarmupSpec{Duration: d}, nil
	}
	return nil, valueError(fmt.Sprintf("--warmup %q: want a positive count, a positive duration or auto", v))
}

// usageError reports a bad flag value: the flag, and the library's reason
// without its package prefix.
func usageError(name string, err error) error {
	return valueError(fmt.Sprintf("--%s: %s", name, trimPrefix(err)))
}

// parseTool parses the value of a flag that names a tool; empty is none.
func parseTool(flagName, value string) (formats.Tool, error) {
	if value == "" {
		return "", nil
	}
	t, err := formats.ParseTool(value)
	if err != nil {
		return "", usageError(flagName, err)
	}
	return t, nil
}

// parseInterleaved parses flags that may come before or after the file
// names, and returns the names. -h or --help asks for the command's help
// (the command named as the flag set is).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(discard{})
	bad := guardNumbers(fs)
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequest{lookup(fs.Name())}
			}
			if *bad != nil {
				return nil, *bad
			}
			return nil, fmt.Errorf("%w: %s", errUsage, didYouMean(fs, err))
		}
		if fs.NArg() == 0 {
			return files, checkNumbers(fs)
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
		if fs.Arg(0) == "-" && len(args) > 0 && args[0] == "-" {
			return nil, fmt.Errorf("%w: standard input named twice", errUsage)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// parseOne parses a command's flags and its one optional file name, and
// returns the summary options the flags ask for and the file's name ("" for
// standard input).
func (a *analysis) parseOne(fs *flag.FlagSet, args []string) (llmmetrics.Options, []string, error) {
	return a.parseFiles(fs, args, 1)
}

// parseFiles is parseOne for a command that takes up to most files (0: any
// number).
func (a *analysis) parseFiles(fs *flag.FlagSet, args []string, most int) (llmmetrics.Options, []string, error) {
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return llmmetrics.Options{}, nil, err
	}
	if most > 0 && len(files) > most {
		return llmmetrics.Options{}, nil, fmt.Errorf("%w: one file at most, got %d", errUsage, len(files))
	}
	opt, err := a.options(fs)
	return opt, files, err
}

// positiveFlags are the numeric flags whose zero means nothing: when given,
// they must be above it. Every other numeric flag must be finite and not
// negative (see checkNumbers).
var positiveFlags = map[string]bool{
	"rate": true, "burstiness": true, "duration": true, "requests": true, "prompt-tokens": true,
	"gpu-interval": true, "search-from": true, "search-max": true, "target": true, "elapsed": true, "alpha": true,
	"max-error-rate": true, "benchmark": true,
}

// checkNumbers is the one check of every numeric flag of every command,
// after guardNumbers has kept the values that do not parse: a value given
// must be a finite number (not NaN or ±Inf), not negative, and above zero
// where zero means nothing. It names the flag and the value.
func checkNumbers(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil {
			return
		}
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		var v float64
		switch x := g.Get().(type) {
		case float64:
			v = x
		case int:
			v = float64(x)
		case int64:
			v = float64(x)
		case time.Duration:
			v = float64(x)
		default:
			return
		}
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			err = valueError(fmt.Sprintf("--%s %s: not a finite number", f.Name, f.Value))
		case v < 0:
			err = valueError(fmt.Sprintf("--%s %s: must not be negative", f.Name, f.Value))
		case v == 0 && positiveFlags[f.Name]:
			err = valueError(fmt.Sprintf("--%s %s: must be above zero", f.Name, f.Value))
		}
	})
	return err
}

// A valueError is a flag's value out of its range: a usage mistake
// (status 2) told in one line, without the command's usage.
type valueError string

func (e valueError) Error() string        { return string(e) }
func (e valueError) Is(target error) bool { return target == errUsage }

// didYouMean adds to the flag package's error for an unknown flag the
// defined flag nearest it, when one is near.
func didYouMean(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "flag provided but not defined: ")
	if !ok {
		return msg
	}
	name = strings.TrimLeft(name, "-")
	best, dist := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < dist {
			best, dist = f.Name, d
		}
	})
	dashes := "--" // as the help writes flags; a one-letter one is typed with one
	if len(name) == 1 {
		dashes = "-"
	}
	msg = "unknown flag " + dashes + name
	if best != "" {
		msg += "; did you mean --" + best + "?"
	}
	return msg
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
