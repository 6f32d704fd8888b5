package conformance

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
)

// The export reads back: cases.json gives the cases, each JSONL file the
// case's records (a request without usage has no completion_tokens), and
// expected.csv every expected figure.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	if err := Export(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Version string
		Cases   []Case
	}
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	cs := Cases()
	if set.Version != Version || len(set.Cases) != len(cs) {
		t.Fatalf("version %q, %d cases; want %q, %d", set.Version, len(set.Cases), Version, len(cs))
	}
	figures := 0
	for i, c := range cs {
		got := set.Cases[i]
		if got.ID != c.ID || len(got.Requests) != len(c.Requests) || len(got.Expected) != len(c.Expected) {
			t.Errorf("case %d: %s with %d requests and %d figures read back as %s, %d, %d",
				i, c.ID, len(c.Requests), len(c.Expected), got.ID, len(got.Requests), len(got.Expected))
		}
		if d, m := Compare(c.Expected, got.Expected); len(d)+len(m) > 0 {
			t.Errorf("case %s: expected figures changed in the export: %v %v", c.ID, d, m)
		}
		figures += len(c.Expected)
		f, err := os.Open(filepath.Join(dir, "jsonl", c.ID+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		run, err := llmmetrics.ReadOptions{Lenient: true}.ReadJSONL(bufio.NewReader(f))
		f.Close()
		noCount := false
		for _, r := range c.Requests {
			noCount = noCount || r.Status == "ok" && r.CompletionTokens == nil
		}
		switch {
		case noCount:
			// An ok line without completion_tokens reads as a request
			// whose server reported no usage (issue 20), never as 0.
			noUsage := false
			if err == nil {
				for _, r := range run.Records {
					noUsage = noUsage || r.NoUsage
				}
			}
			if !noUsage {
				t.Errorf("case %s: the request without usage was not read as such (%v)", c.ID, err)
			}
		case err != nil:
			t.Errorf("case %s: JSONL: %v", c.ID, err)
		case len(run.Records) != len(c.Requests):
			t.Errorf("case %s: JSONL has %d records, want %d", c.ID, len(run.Records), len(c.Requests))
		}
	}
	f, err := os.Open(filepath.Join(dir, "expected.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != figures+1 || strings.Join(rows[0], ",") != "case,figure,value" {
		t.Errorf("expected.csv: %d rows, header %v; want %d and case,figure,value", len(rows), rows[0], figures+1)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A request that failed after streaming text keeps its text chunks in the
// JSONL export, so that a JSONL reader that takes its first chunk for a
// TTFT, or its chunks for delivered tokens, is caught by
// trap-failed-partial-output as a reader of cases.json is.
func TestExportKeepsPartialText(t *testing.T) {
	dir := t.TempDir()
	if err := Export(dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range Cases() {
		f, err := os.Open(filepath.Join(dir, "jsonl", c.ID+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		run, err := llmmetrics.ReadOptions{Lenient: true}.ReadJSONL(bufio.NewReader(f))
		f.Close()
		if err != nil {
			t.Fatalf("case %s: %v", c.ID, err)
		}
		for i, r := range c.Requests {
			text := r.TextTimes()
			if r.Status == "ok" || len(text) == 0 {
				continue
			}
			got := run.Records[i].Chunks
			if len(got) != len(text) {
				t.Errorf("case %s, failed request %s: %d text chunks in the JSONL, want %d", c.ID, r.ID, len(got), len(text))
				continue
			}
			for k := range text {
				if got[k] != text[k]-r.Sent {
					t.Errorf("case %s, request %s: chunk %d at %v, want %v", c.ID, r.ID, k, got[k], text[k]-r.Sent)
				}
			}
		}
	}
	// The trap's own case: c streamed 3 chunks (50, 60, 70 ms) before its error.
	b, err := os.ReadFile(filepath.Join(dir, "jsonl", "trap-failed-partial-output.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"chunk_arrivals_ns":[50000000,60000000,70000000]`) {
		t.Errorf("the failed request's chunks are not in its JSONL line:\n%s", b)
	}
}
