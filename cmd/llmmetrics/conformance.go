package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/llmmetrics/llmmetrics/conformance"
)

var conformanceCommand = &command{
	name:     "conformance",
	synopsis: "llmmetrics conformance export DIR | check [--all] FILE | list",
	about: "Conformance is the kit other benchmark tools test their own metrics against: a versioned set of\n" +
		"cases, each a run of requests with every event of their streams, the options to summarize it with,\n" +
		"the figures the specification gives, and the trap it catches.\n\n" +
		"  export DIR   writes the cases: DIR/cases.json (everything, times in ns), DIR/jsonl/ID.jsonl (each\n" +
		"               case's records in llmmetrics' JSONL), DIR/cases.csv, DIR/requests.csv and\n" +
		"               DIR/expected.csv (one row a figure; \"absent\" where the figure cannot be computed).\n" +
		"  check FILE   reads a tool's answers, one JSON object a case,\n" +
		"                 {\"case\": \"trap-tpot-n\", \"figures\": {\"request.t.tpot_ms\": 50, \"tpot_ms.mean\": 50}}\n" +
		"               (null for a figure the tool finds absent; FILE \"-\" is standard input), and prints one\n" +
		"               line a case: agree, differ (with each figure, the trap and the specification's\n" +
		"               section), refused, not compared (none of its figures given) or not answered. Only\n" +
		"               the figures a tool gives are compared. Exit status 0 when every answered case\n" +
		"               agrees, 3 when one differs (or, with --all, one is not answered or compared), 1 when\n" +
		"               the file cannot be read or names an unknown case, another version or a request\n" +
		"               its case does not have.\n" +
		"  list         prints each case's id and trap.\n\n" +
		"The figures' names, units and tolerances are in docs/conformance.md and 'go doc\n" +
		"github.com/llmmetrics/llmmetrics/conformance Figures'.",
	examples: []string{
		"llmmetrics conformance export ./conformance-cases",
		"python my_tool_conformance.py ./conformance-cases > answers.jsonl && llmmetrics conformance check answers.jsonl",
		"llmmetrics conformance list",
	},
	flags: func() *flag.FlagSet { fs, _ := newConformanceFlags(); return fs },
}

func init() { conformanceCommand.run = conformanceMain }

// newConformanceFlags defines check's flag.
func newConformanceFlags() (*flag.FlagSet, *bool) {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "check: a case the answers leave out is a failure too")
	return fs, all
}

func conformanceMain(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: conformance: export DIR, check FILE or list", errUsage)
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "-help", "--help", "help":
		return helpRequest{conformanceCommand}
	case "export":
		if len(rest) != 1 {
			return fmt.Errorf("%w: conformance export takes one directory", errUsage)
		}
		if err := conformance.Export(rest[0]); err != nil {
			return fmt.Errorf("conformance export: %w", err)
		}
		_, err := fmt.Fprintf(stdout, "conformance %s: %d cases written to %s\n", conformance.Version, len(conformance.Cases()), rest[0])
		return err
	case "list":
		if len(rest) != 0 {
			return fmt.Errorf("%w: conformance list takes no arguments", errUsage)
		}
		for _, c := range conformance.Cases() {
			if _, err := fmt.Fprintf(stdout, "%-34s %s\n", c.ID, c.Trap); err != nil {
				return err
			}
		}
		return nil
	case "check":
		return conformanceCheck(rest, stdin, stdout)
	}
	return fmt.Errorf("%w: conformance: unknown subcommand %q (export, check or list)", errUsage, sub)
}

// conformanceCheck judges a tool's answers.
func conformanceCheck(args []string, stdin io.Reader, stdout io.Writer) error {
	fs, all := newConformanceFlags()
	files, err := parseInterleaved(fs, args) // its flags are checked as every command's are
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return fmt.Errorf("%w: conformance check takes one file of answers (\"-\" for standard input)", errUsage)
	}
	name := files[0]
	in := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	answers, err := conformance.ReadAnswers(in)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	results, err := conformance.CheckAnswers(answers)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	bad, err := conformance.WriteReport(stdout, results)
	if err != nil {
		return err
	}
	unanswered := 0
	for _, r := range results {
		if r.Compared() == 0 && r.Err == nil {
			unanswered++
		}
	}
	switch {
	case bad > 0:
		return fmt.Errorf("%w: %d of %d cases differ or were refused", errGate, bad, len(results))
	case *all && unanswered > 0:
		return fmt.Errorf("%w: %d of %d cases not answered or compared (--all)", errGate, unanswered, len(results))
	}
	return nil
}
