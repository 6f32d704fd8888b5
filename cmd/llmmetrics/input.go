package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
)

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
	return fmt.Errorf("%s: %s", name, trimPrefix(err))
}

// trimPrefix returns an error's message without the package prefix of the
// library that made it, so that a message carries one prefix only.
func trimPrefix(err error) string {
	s := err.Error()
	for _, p := range []string{"llmmetrics: ", "formats: ", "server: "} {
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

// loadRun reads one file of records, in llmmetrics' formats or another
// tool's (detected), for the commands that take several runs. Invalid
// records of llmmetrics' formats are an error unless lenient; another
// tool's invalid requests are set aside and counted, as report does.
func loadRun(name string, lenient bool) (*llmmetrics.Run, error) {
	in, _, closeIn, err := open([]string{name}, nil)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	tool, in, err := detect(in)
	if err != nil {
		return nil, inFile(name, err)
	}
	if tool == "" {
		run, _, err := llmmetrics.ReadOptions{Lenient: lenient}.Read(in)
		if err != nil && !(lenient && errors.Is(err, llmmetrics.ErrRejected)) {
			return nil, inFile(name, withLenientHint(err))
		}
		return run, nil
	}
	file, err := formats.Read(in, tool)
	if err != nil {
		return nil, inFile(name, err)
	}
	run, err := file.Records()
	if err != nil && !errors.Is(err, llmmetrics.ErrRejected) {
		return nil, inFile(name, err)
	}
	return run, nil
}
