// A real vLLM result file, walked through: read it, recompute vLLM's own
// summary from its per-request arrays, re-read it under llmmetrics'
// conventions, and explain every difference.
//
//	go run ./examples/real_vllm [FILE]
//
// Without FILE it reads a result of vllm bench serve (0.22, chat, 64
// requests) from ../shared/realdata, the project's shared real data.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
)

func main() {
	path := defaultFile()
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if err := run(os.Stdout, path); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// defaultFile is the shared real vLLM file, found from this source file.
func defaultFile() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "..", "shared", "realdata", "vllm",
		"pillaiharish__llm-serving-performance-lab__day06_c16_i128_o64_n64.json")
}

func run(w io.Writer, path string) error {
	// Cell 1: read the file. The importer says what the file cannot tell.
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	file, err := formats.Read(f, "")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "1. %s file, written by %s\n", file.Tool, file.Layout)
	for _, n := range file.Notes {
		fmt.Fprintf(w, "   note: %s\n", n)
	}

	// Cell 2: vLLM's own summary, recomputed from the per-request arrays
	// with vLLM's formulas, beside what the file says.
	d, err := file.Dialect()
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "2. vLLM's figures, recomputed and as the file holds them:")
	for _, key := range []string{"completed", "request_throughput", "mean_ttft_ms", "p99_ttft_ms", "mean_itl_ms", "p99_itl_ms", "mean_tpot_ms"} {
		ours, _ := d.Lookup(key)
		theirs := "absent"
		for _, fig := range file.Summary {
			if fig.Key == key {
				theirs = strconv.FormatFloat(fig.Value, 'g', 12, 64)
			}
		}
		note := ""
		for _, fig := range d.Figures {
			if fig.Key == key && fig.Approx != "" {
				note = " (approximate: " + fig.Approx + ")"
			}
		}
		fmt.Fprintf(w, "   %-20s %-20s file: %s%s\n", key, strconv.FormatFloat(ours, 'g', 12, 64), theirs, note)
	}

	// Cell 3: the same requests under llmmetrics' conventions, side by side
	// with vLLM's, and why they differ.
	c, err := formats.Compare(file, llmmetrics.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "3. llmmetrics beside vLLM:")
	return c.WriteTable(w)
}
