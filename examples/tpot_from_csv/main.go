// TPOT from a CSV of client timings (seed 000 of the specification, §4.3 step 5 and "Try it
// yourself" 3): per-request TPOT = (E2E − TTFT)/(completion_tokens − 1) for
// completion_tokens ≥ 2, with the excluded requests counted, never dropped.
//
//	go run ./examples/tpot_from_csv [FILE]
//
// Without FILE it reads the specification's exercise, testdata/seeds/tpot_exercise.csv.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/llmmetrics/llmmetrics"
)

func main() {
	name := exercise()
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	f, err := os.Open(name)
	if err == nil {
		defer f.Close()
		err = run(os.Stdout, f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// exercise is the path of the bundled exercise, next to this source file's
// module root.
func exercise() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "testdata", "seeds", "tpot_exercise.csv")
}

func run(w io.Writer, in io.Reader) error {
	// Cell 1: read the CSV. Rows that do not parse would be listed in
	// run.Err; this file has none.
	run, err := llmmetrics.ReadCSV(in)
	if err != nil {
		return err
	}
	if err := run.Err(); err != nil {
		return err
	}

	// Cell 2: TPOT per request, where it exists, and why not elsewhere.
	for i := range run.Records {
		r := &run.Records[i]
		tpot, err := r.TPOT()
		switch {
		case err == nil:
			fmt.Fprintf(w, "%s: (%v − %v)/(%d − 1) = %v\n", r.ID, r.LastText, r.FirstText, r.CompletionTokens, tpot)
		default:
			fmt.Fprintf(w, "%s: no TPOT (%s, n = %d)\n", r.ID, r.Category(), r.CompletionTokens)
		}
	}

	// Cell 3: the summary counts every row in one category.
	s, err := run.Summarize(llmmetrics.Options{})
	if err != nil {
		return err
	}
	a := s.Requests
	fmt.Fprintf(w, "%d rows: %d ok (%d with one token, excluded from TPOT), %d zero-token, %d failed\n",
		a.Offered, a.OK, a.OneToken, a.ZeroToken, a.Failed)
	fmt.Fprintf(w, "TPOT over %d requests: mean %v, p50 %v (request %s)\n",
		s.TPOT.N, s.TPOT.Mean, s.TPOT.Points[0].Value, s.TPOT.Points[0].ID)
	return nil
}
