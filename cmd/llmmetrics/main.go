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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: llmmetrics report [--method nearest-rank|linear] [--percentiles 50,90,95,99]
                         [--slo ttft=500ms,tpot=50ms,e2e=5s] [--slo-strict] [--window 10s]
                         [--lenient] [--json] [FILE]`

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

	// Flags may come before or after the file name.
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) > 1 {
		return fmt.Errorf("%w: one file at most, got %d", errUsage, len(files))
	}

	var opt llmmetrics.Options
	var err error
	if opt.Method, err = llmmetrics.ParseMethod(*method); err != nil {
		return fmt.Errorf("%w: --method: %v", errUsage, err)
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
	if *window < 0 || (*window == 0 && flagSet(fs, "window")) {
		return fmt.Errorf("%w: --window %v: %v", errUsage, *window, llmmetrics.ErrInvalidWindow)
	}
	opt.Window = *window
	opt.Lenient = *lenient

	in, name := stdin, "standard input"
	if len(files) == 1 {
		f, err := os.Open(files[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in, name = f, files[0]
	}
	runData, _, err := llmmetrics.Read(in)
	if err != nil {
		return inFile(name, err)
	}
	s, err := runData.Summarize(opt)
	if err != nil {
		return inFile(name, err)
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

// inFile prefixes an error with the input's name.
func inFile(name string, err error) error {
	return fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "llmmetrics: "))
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
