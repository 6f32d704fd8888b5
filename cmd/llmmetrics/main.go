// Command llmmetrics summarizes per-request records of an LLM serving run:
// TTFT, TPOT, ITL, E2E, their percentiles, throughput and goodput, with
// every convention named in the output. Its definitions are those of the
// project's specification (see the package documentation of
// github.com/llmmetrics/llmmetrics).
//
// Usage:
//
//	llmmetrics run [flags]                take the measurement: drive a server and observe every stream
//	llmmetrics report [flags] [FILE]      the client-side report of a run
//	llmmetrics diff [flags] A B           did B change from A: each figure's change and its significance
//	llmmetrics sweep [flags] FILE...      runs at several load levels: median ±MAD per level, and the capacity
//	llmmetrics reconcile [flags] [FILE]   another tool's figures beside llmmetrics', with the reasons they differ
//	llmmetrics server [flags]             the server side, from two scrapes of /metrics
//	llmmetrics conformance export|check   the cases other tools test their metrics against
//	llmmetrics convert [flags] IN OUT     a run's records between JSONL, CSV and Parquet
//	llmmetrics sql [flags] [FILE]         the definitions as SQL over a run's Parquet records
//	llmmetrics version                    the version of this build
//	llmmetrics help [COMMAND]             a command's flags, defaults and examples
//
// FILE is a CSV, JSONL or Parquet file of per-request records (see the package
// documentation of github.com/llmmetrics/llmmetrics), or another tool's
// result file; without it, or when it is "-", the command reads standard
// input. The format is detected from the content.
//
// On bad input the command prints one line to standard error and exits
// with status 1; on a bad command line, with status 2; when report's gate
// (--fail-below, --fail-if) finds the run crossing a condition, with
// status 3, after printing the report; when no measured request of a run
// (or of a --search or --ttft-breakdown) ended ok, with status 4, after
// printing the report and its error set;
// when a signal interrupted a run before its load began (nothing was
// measured), with status 5.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// A command is one subcommand: its flags (for help as for parsing), what
// it does, and examples.
type command struct {
	name     string
	synopsis string
	about    string
	examples []string
	flags    func() *flag.FlagSet // a fresh flag set, for help
	run      func(args []string, stdin io.Reader, stdout io.Writer) error
}

var commands []*command // filled in by init, in the order help lists them

func init() {
	reportCommand.run = report
	reconcileCommand.run = reconcile
	serverCommand.run = serverReport
	versionCommand.run = printVersion
	runCommand.run = parquetOut(runLoad) // parquet.go: --out x.parquet
	convertCommand.run = convertRun
	diffCommand.run = diffRuns
	sweepCommand.run = sweepReport
	sqlCommand.run = printSQL
	commands = []*command{runCommand, reportCommand, diffCommand, sweepCommand, reconcileCommand, serverCommand, conformanceCommand, convertCommand, sqlCommand, versionCommand}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// errUsage marks command-line mistakes, which exit with status 2.
var errUsage = errors.New("usage")

// helpRequest asks for a command's help (nil: the overview), printed on
// standard output with status 0.
type helpRequest struct{ cmd *command }

func (h helpRequest) Error() string { return "help requested" }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := dispatch(args, stdin, stdout)
	var help helpRequest
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		writeHelp(stdout, help.cmd)
		return 0
	case errors.Is(err, errUsage):
		msg := strings.TrimPrefix(err.Error(), "usage: ")
		var ve valueError
		if errors.As(err, &ve) {
			fmt.Fprintf(stderr, "llmmetrics: %s\n", ve)
			return 2
		}
		var cu commandUsage
		if errors.As(err, &cu) {
			msg = strings.TrimPrefix(cu.err.Error(), "usage: ")
			fmt.Fprintf(stderr, "llmmetrics: %s: %s\nusage: %s\nRun 'llmmetrics help %s' for its flags, defaults and examples.\n", cu.cmd.name, msg, cu.cmd.synopsis, cu.cmd.name)
			return 2
		}
		fmt.Fprintf(stderr, "llmmetrics: %v\n%s", msg, synopses())
		return 2
	case errors.Is(err, errGate):
		fmt.Fprintf(stderr, "%s\n", oneLine(err.Error()))
		return 3
	case errors.Is(err, errAllFailed), errors.Is(err, errNothingMeasured), errors.Is(err, errTooManyFailures):
		fmt.Fprintf(stderr, "%s\n", oneLine(err.Error()))
		return 4
	case errors.Is(err, errNotBegun):
		fmt.Fprintf(stderr, "%s\n", oneLine(err.Error()))
		return 5
	default:
		fmt.Fprintf(stderr, "%s\n", oneLine(err.Error()))
		return 1
	}
}

func dispatch(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: no command", errUsage)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			c := lookup(args[1])
			if c == nil {
				return fmt.Errorf("%w: help: unknown command %q", errUsage, args[1])
			}
			return helpRequest{c}
		}
		return helpRequest{}
	case "-version", "--version":
		return versionCommand.run(nil, stdin, stdout)
	case "compare":
		return fmt.Errorf("%w: compare is now called reconcile (it puts another tool's figures beside llmmetrics'); to compare two runs, use diff", errUsage)
	}
	c := lookup(args[0])
	if c == nil {
		msg := fmt.Sprintf("unknown command %q", args[0])
		best, dist := "", 3
		for _, k := range commands {
			if d := editDistance(args[0], k.name); d < dist {
				best, dist = k.name, d
			}
		}
		if best != "" {
			msg += "; did you mean " + best + "?"
		}
		return fmt.Errorf("%w: %s", errUsage, msg)
	}
	err := c.run(args[1:], stdin, stdout)
	if errors.Is(err, errUsage) {
		return commandUsage{c, err}
	}
	return err
}

// commandUsage is a usage mistake on one command's line: only that
// command's usage is printed with it.
type commandUsage struct {
	cmd *command
	err error
}

func (u commandUsage) Error() string { return u.err.Error() }
func (u commandUsage) Unwrap() error { return u.err }

// synopses lists every command's synopsis, for usage errors.
func synopses() string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %s\n", c.synopsis)
	}
	b.WriteString("Run 'llmmetrics help COMMAND' for a command's flags, defaults and examples.\n")
	return b.String()
}

// writeHelp prints the overview, or one command's help: what it does,
// every flag with its default, and examples.
func writeHelp(w io.Writer, c *command) {
	if c == nil {
		fmt.Fprint(w, "llmmetrics turns per-request records of an LLM serving run into latency, throughput and\n"+
			"goodput figures, naming every convention it uses. Its definitions are the project's specification\n"+
			"(see the README, \"The specification\", and go doc github.com/llmmetrics/llmmetrics).\n\n")
		fmt.Fprint(w, synopses())
		return
	}
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.synopsis, c.about)
	if fs := c.flags(); fs != nil {
		var n int
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(w, "\nflags:")
			fs.SetOutput(w)
			fs.PrintDefaults()
		}
	}
	if len(c.examples) > 0 {
		fmt.Fprintln(w, "\nexamples:")
		for _, e := range c.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}
