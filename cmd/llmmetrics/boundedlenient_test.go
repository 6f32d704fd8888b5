package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// lenientRun writes a run's JSONL of 20,000 records with rows and records
// that a lenient report sets aside: a line that is not JSON, records of
// times out of order, a negative prompt count, and ids repeated (a failed
// request's among them, which the error set counts as in memory), in dir,
// named name; with a run header starting at start, when not zero.
func lenientRun(t *testing.T, dir, name string, start time.Time) string {
	t.Helper()
	recs := synth.Mixed(20_000, 8)
	recs[0].ID += "-" + name // two files are two runs, not a copy (sameRunTwice)
	for i := 10; i < 20_000; i += 1_500 {
		recs[i].Status, recs[i].Chunks, recs[i].FirstText, recs[i].LastText = llmmetrics.StatusOK, nil, 3*time.Millisecond, 2*time.Millisecond
	}
	recs[77].PromptTokens = -4
	failed := 0
	for recs[failed].Status == llmmetrics.StatusOK {
		failed++
	}
	recs[19_000].ID, recs[19_001] = recs[failed].ID, recs[failed]
	recs[12_345].ID = recs[3].ID
	var b bytes.Buffer
	if !start.IsZero() {
		(&llmmetrics.RunHeader{Tool: "test", Start: start}).WriteLine(&b)
	}
	if err := llmmetrics.WriteJSONL(&b, recs[:5_000]); err != nil {
		t.Fatal(err)
	}
	b.WriteString("{\"id\": oops\n")
	if err := llmmetrics.WriteJSONL(&b, recs[5_000:]); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// report --lenient --max-memory 1MiB of a file of several MB sets aside,
// counts and lists the rows and records report --lenient sets aside in
// memory, with the same figures and error set, in JSON and in the table,
// but for its note; with --merge it reads the files whole, said in a
// note.
func TestReportMaxMemoryLenient(t *testing.T) {
	dir := t.TempDir()
	path := lenientRun(t, dir, "run.jsonl", time.Time{})
	args := []string{"report", "--lenient", "--json", "--slo", "ttft=200ms,e2e=3s", path}
	code, inMemory, errs := runCLI(t, "", args...)
	if code != 0 || !strings.Contains(inMemory, `"rejected":17,`) {
		t.Fatalf("in memory: %d %s\n%s", code, errs, inMemory)
	}
	code, boundedOut, errs := runCLI(t, "", append([]string{"report", "--max-memory", "1MiB"}, args[1:]...)...)
	if code != 0 {
		t.Fatalf("bounded: %d %s", code, errs)
	}
	sameReport(t, "--lenient", boundedOut, inMemory)
	_, want, _ := runCLI(t, "", "report", "--lenient", path)
	_, got, _ := runCLI(t, "", "report", "--lenient", "--max-memory", "1MiB", path)
	if aside := setAside(want); aside == "" || setAside(got) != aside {
		t.Errorf("the table sets aside\n%s\nwant\n%s", setAside(got), aside)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, b := lenientRun(t, dir, "a.jsonl", start), lenientRun(t, dir, "b.jsonl", start.Add(time.Millisecond))
	_, merged, _ := runCLI(t, "", "report", "--lenient", "--max-memory", "1MiB", "--merge", a, b)
	if !strings.Contains(merged, "in memory, more than --max-memory (1.0 MB), but --lenient needs its records there: it was read whole") {
		t.Errorf("--merge --lenient: the table does not say it was read whole:\n%s", merged)
	}
}

// setAside returns a report table's lines about the records set aside:
// the line that counts them and the list of their reasons.
func setAside(table string) string {
	var out []string
	listing := false
	for _, line := range strings.Split(table, "\n") {
		switch {
		case strings.HasPrefix(line, "SET ASIDE:"), strings.HasPrefix(line, "requests: "):
			out = append(out, line)
		case line == "rejected:":
			listing = true
		case listing && line == "":
			listing = false
		}
		if listing {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
