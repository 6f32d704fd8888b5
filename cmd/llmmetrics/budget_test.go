package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/budget"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// The memory budgets of the whole report command, in process, per record
// of a fixed synthetic run (synth.Mixed: 2% failed with the server's
// words, so that the error set is printed): a CSV file, the same on
// standard input, and a JSONL file of 16 chunks a request, each with and
// without --json. The readers' own budgets are in the root package
// (TestCSVBudget, TestJSONLBudget) and in formats (TestImportBudget); this
// one holds what the command adds, where 499f6dd's error set read a CSV
// file again as Records (4.6 times the file held at once on 2,000,000
// rows). The bytes allocated may be a fifth above what they are today, the
// peak about half again (the comment by each, Go 1.26 on linux/amd64; see
// internal/budget for why the two differ); a change that needs more raises
// the budget in its own commit, with the reason. Counts of bytes, not times. Skipped
// under the race detector, which lays memory out otherwise, and in -short.
func TestReportBudget(t *testing.T) {
	switch {
	case budget.Race:
		t.Skip("memory budgets hold for a build without the race detector")
	case testing.Short():
		t.Skip("not in -short")
	}
	const n = 100_000
	dir := t.TempDir()
	write := func(name string, k int, w func(io.Writer, []llmmetrics.Record) error) string {
		var b bytes.Buffer
		if err := w(&b, synth.Mixed(n, k)); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	csvFile := write("run.csv", 1, llmmetrics.WriteCSV)
	jsonlFile := write("run.jsonl", 16, llmmetrics.WriteJSONL)
	for _, c := range []struct {
		name        string
		args        []string
		stdin       string // a file given on standard input
		alloc, peak float64
	}{
		// Today, bytes allocated and the peak a record:
		{"csv", []string{"report", csvFile}, "", 150, 100},                    // 122; 56–57 (the file: 53)
		{"csv --json", []string{"report", "--json", csvFile}, "", 150, 100},   // 122; 56–57
		{"csv on standard input", []string{"report", "-"}, csvFile, 150, 100}, // 122; 56–57
		// A pipe past what report holds of it (here a quarter of
		// --max-memory, 4 MiB, made at once: 42 bytes a record) is written
		// to a temporary file and read from there, not held beside its
		// records: 292 and 126 when it was held in a growing buffer.
		{"csv through a pipe", []string{"report", "--max-memory", "16MiB", "-"}, "pipe:" + csvFile, 200, 100}, // 165; 57
		{"jsonl", []string{"report", jsonlFile}, "", 605, 600},                                                // 503; 373–395 (the file: 273)
		{"jsonl --json", []string{"report", "--json", jsonlFile}, "", 605, 600},                               // 503; 373–395
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			var stdin io.Reader
			if c.stdin != "" {
				name, pipe := strings.CutPrefix(c.stdin, "pipe:")
				f, err := os.Open(name)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				stdin = f
				if pipe {
					stdin = struct{ io.Reader }{f} // not a file: read as a pipe
				}
			}
			var code int
			cost := budget.Measure(func() { code = run(c.args, stdin, &out, &errOut) })
			if code != 0 || !strings.Contains(out.String(), "error_set") && !strings.Contains(out.String(), "error set") {
				t.Fatalf("exit %d, no error set: %s%s", code, out.String(), errOut.String())
			}
			alloc, peak := cost.PerRecord(n)
			t.Logf("%.0f bytes allocated a record (budget %.0f), peak %.0f (budget %.0f)", alloc, c.alloc, peak, c.peak)
			if alloc > c.alloc {
				t.Errorf("report allocates %.0f bytes a record, over its budget of %.0f", alloc, c.alloc)
			}
			if peak > c.peak {
				t.Errorf("report holds %.0f bytes a record at its peak, over its budget of %.0f", peak, c.peak)
			}
		})
	}
}
