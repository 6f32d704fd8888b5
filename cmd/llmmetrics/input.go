package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
	"github.com/llmmetrics/llmmetrics/parquet"
)

// open opens the named file, or standard input when there is none or it
// is "-".
func open(files []string, stdin io.Reader) (io.Reader, string, func(), error) {
	switch {
	case stdin == nil && len(files) > 0 && files[0] == "-": // one of several files: --merge, diff, sweep
		return nil, "", nil, fmt.Errorf("%w: - (standard input) is read only as a command's one input, not as one of several files: write it to a file", errUsage)
	case len(files) == 0 || files[0] == "-":
		return stdin, "standard input", func() {}, nil
	}
	f, err := os.Open(files[0])
	if err != nil {
		return nil, "", nil, err
	}
	return f, files[0], func() { f.Close() }, nil
}

// withLenientHint adds to an error about an invalid record that --lenient
// would set it aside instead, when it would: not when --lenient was given
// (lenient), nor for what a lenient read refuses too, a run header or end
// line that cannot be read or text after the end line.
func withLenientHint(err error, lenient bool) error {
	var re *llmmetrics.RecordError
	if lenient || !errors.As(err, &re) || errors.Is(err, llmmetrics.ErrAfterEnd) ||
		re.Field == "llmmetrics_run" || re.Field == "llmmetrics_end" {
		return err
	}
	return fmt.Errorf("%w (--lenient counts invalid records as rejected instead)", err)
}

// inFile prefixes an error with the input's name. A file named .parquet
// whose bytes could not be parsed was not Parquet (Parquet is told by its
// magic bytes, and its reader's errors are not syntax errors): it says so
// first, rather than only what reading it as CSV or JSONL found.
func inFile(name string, err error) error {
	if isParquetName(name) && errors.Is(err, llmmetrics.ErrSyntax) {
		return fmt.Errorf("%s: not a Parquet file: it does not begin with the magic bytes %s (read as CSV or JSONL instead: %s)", name, parquet.Magic, trimPrefix(err))
	}
	return fmt.Errorf("%s: %s", name, trimPrefix(err))
}

// trimPrefix returns an error's message without the package prefix of the
// library that made it, so that a message carries one prefix only.
func trimPrefix(err error) string {
	s := err.Error()
	for _, p := range []string{"llmmetrics: ", "formats: ", "server: ", "drive: ", "trace: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

// oneLine makes an error message one line with the command's prefix.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "; ")
	if !strings.HasPrefix(s, "llmmetrics: ") {
		s = "llmmetrics: " + s
	}
	return s
}

// readRuns reads one file of records for the commands that take several
// runs: a run in llmmetrics' formats (own), or another tool's file
// (detected), each of its benchmarks a File (files). Invalid records of
// llmmetrics' formats are an error unless lenient.
func readRuns(name string, lenient bool) (own *llmmetrics.Run, files []*formats.File, err error) {
	in, _, closeIn, err := open([]string{name}, nil)
	if err != nil {
		return nil, nil, err
	}
	defer closeIn()
	tool, in, err := detect(in, name)
	if err != nil {
		return nil, nil, inFile(name, err)
	}
	if tool == "" {
		run, err := readRun(in, lenient) // parquet.go
		if err != nil && !(lenient && errors.Is(err, llmmetrics.ErrRejected)) {
			return nil, nil, inFile(name, withLenientHint(err, lenient))
		}
		return run, nil, nil
	}
	if files, err = formats.ReadAll(in, tool); err != nil {
		return nil, nil, inFile(name, err)
	}
	return nil, files, nil
}

// records returns the records of another tool's file, its invalid
// requests set aside in the run, as report does (see lenientFor).
func records(name string, file *formats.File) (*llmmetrics.Run, error) {
	run, err := file.Records()
	if err != nil && !errors.Is(err, llmmetrics.ErrRejected) {
		return nil, inFile(name, err)
	}
	return run, nil
}

// lenientFor returns opt lenient when some run is another tool's file
// and --strict was not given: its invalid requests are set aside and
// counted, as report does, since its reader cannot fix them. The runs of
// one comparison share their options, so llmmetrics' own files beside it
// are then summarized leniently too (they were read strictly unless
// --lenient).
func lenientFor(opt llmmetrics.Options, foreign, strict bool) llmmetrics.Options {
	if foreign && !strict {
		opt.Lenient = true
	}
	return opt
}

// distinctRuns refuses a file named twice among the runs of one side of a
// comparison (or of a sweep):
// the same file counted as two runs would make one run's requests look like
// independent repeats, and a test on them claim a significance it has not.
func distinctRuns(names []string) error {
	seen := make(map[string]string, len(names))
	for _, name := range names {
		key := filepath.Clean(name)
		if abs, err := filepath.Abs(name); err == nil {
			key = abs
		}
		if first, ok := seen[key]; ok && name != "-" {
			return fmt.Errorf("%w: %s is given twice (as %s and %s): each file is one run, and repeats must be runs of their own", errUsage, name, first, name)
		}
		seen[key] = name
	}
	return nil
}
