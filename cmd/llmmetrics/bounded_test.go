package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// report --max-memory 1MiB of a file of several MB summarizes it in
// bounded memory, says so in a note, and prints the figures the report in
// memory prints, in JSON and in the table, for JSONL and CSV; the
// sections it does not compute are absent.
func TestReportMaxMemory(t *testing.T) {
	recs := synth.Mixed(20_000, 8)
	for _, format := range []struct {
		name  string
		write func(*bytes.Buffer, []llmmetrics.Record) error
	}{{"run.jsonl", func(b *bytes.Buffer, r []llmmetrics.Record) error { return llmmetrics.WriteJSONL(b, r) }},
		{"run.csv", func(b *bytes.Buffer, r []llmmetrics.Record) error { return llmmetrics.WriteCSV(b, r) }}} {
		var b bytes.Buffer
		if err := format.write(&b, recs); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), format.name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"report", "--json", "--slo", "ttft=200ms,e2e=3s", "--percentiles", "50,99,99.9", path}
		code, inMemory, errs := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: in memory: %d %s", format.name, code, errs)
		}
		code, boundedOut, errs := runCLI(t, "", append([]string{"report", "--max-memory", "1MiB"}, args[1:]...)...)
		if code != 0 {
			t.Fatalf("%s: bounded: %d %s", format.name, code, errs)
		}
		sameReport(t, format.name, boundedOut, inMemory)
		_, table, _ := runCLI(t, "", "report", "--max-memory", "1MiB", path)
		if !strings.Contains(table, "bounded summary: "+path) || !strings.Contains(table, "in memory, more than --max-memory (1.0 MB); read in ") ||
			!strings.Contains(table, "workload.prompt: not computed by the bounded summary") {
			t.Errorf("%s: the table does not say it was bounded:\n%s", format.name, table)
		}
		_, table, _ = runCLI(t, "", "report", "--max-memory", "1MiB", "--stratify", "output=100", path)
		if !strings.Contains(table, "in memory, more than --max-memory (1.0 MB), but --stratify needs its records there: it was read whole") {
			t.Errorf("%s: --stratify: the table does not say it was read whole:\n%s", format.name, table)
		}
	}
}

// sameReport fails unless the bounded report's JSON has the in-memory
// one's keys and values, but for the sections it does not compute and its
// notes.
func sameReport(t *testing.T, name, got, want string) {
	t.Helper()
	var g, w map[string]any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	for k, wv := range w {
		switch k {
		case "workload", "load_check", "ttft_by_turn", "client", "absent", "notes":
			continue
		}
		if !reflect.DeepEqual(g[k], wv) {
			t.Errorf("%s: %s:\n got %v\nwant %v", name, k, g[k], wv)
		}
	}
	if _, ok := g["workload"]; ok {
		t.Errorf("%s: a bounded report has a workload", name)
	}
	notes, _ := g["notes"].([]any)
	if len(notes) == 0 || !strings.HasPrefix(notes[len(notes)-1].(string), "bounded summary: ") {
		t.Errorf("%s: notes %v", name, notes)
	}
}

// --max-memory reads sizes in bytes, with a decimal or binary unit, and
// refuses others; the physical memory is read from /proc/meminfo's form.
func TestMaxMemory(t *testing.T) {
	for s, want := range map[string]int64{"1048576": 1 << 20, "512MiB": 512 << 20, "8GB": 8e9, "3KiB": 3 << 10, "10B": 10,
		// the spellings users type: a unit without B, in any case, and a
		// decimal fraction (1.5 × 2³⁰ = 1610612736; 2.5 × 10³ = 2500;
		// 1.3 × 1024 = 1331.2, the fraction of a byte dropped)
		"8M": 8e6, "8Mi": 8 << 20, "8mi": 8 << 20, "1.5GiB": 1610612736, "1.5gib": 1610612736, "2.5k": 2500,
		"1.3KiB": 1331, "4 GiB": 4 << 30, "1.5GB": 1.5e9, "1T": 1e12, "2Ti": 2 << 40, "7b": 7} {
		if got, err := parseSize(s); err != nil || got != want {
			t.Errorf("%s: got %d, %v, want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0", "-1MiB", "12XB", "MiB", "1..5G", "1.2.3G", ".5G", "1.G", "1e3", "0.0001B", "8 M B", "9999999999T", "lots"} {
		if _, err := parseSize(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
	path := filepath.Join(t.TempDir(), "meminfo")
	os.WriteFile(path, []byte("MemFree:  10 kB\nMemTotal:       24576000 kB\n"), 0o644)
	if got, ok := physicalMemory(path); !ok || got != 24576000<<10 {
		t.Errorf("MemTotal: %d, %v", got, ok)
	}
	if code, _, errs := runCLI(t, "", "report", "--max-memory", "lots", "x"); code != 2 || errs != "llmmetrics: --max-memory lots: not a positive size, such as 512MiB, 1.5GiB, 8G or 1048576\n" {
		t.Errorf("--max-memory lots: %d %s", code, errs)
	}
}

// report --merge --max-memory 1MiB of three shards' files merges them in
// bounded memory, with the checks and figures of the merge in memory:
// the same JSON but for what it does not compute, the merge's note and
// warning, and the refusal of a shard given twice.
func TestReportMergeMaxMemory(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var paths []string
	for i, at := range []time.Duration{0, 1500 * time.Millisecond, 250 * time.Millisecond} {
		var b bytes.Buffer
		h := &llmmetrics.RunHeader{Tool: "test", Model: "m", Start: start.Add(at), Ends: true,
			Load: map[string]string{"plan": "p1", "loop": "closed", "concurrency": "4", "shard": fmt.Sprintf("%d/3", i+1)}}
		h.WriteLine(&b)
		recs := synth.Mixed(8_000+1_000*i, 8)
		for j := range recs { // a shard's ids, as run --shard prefixes them: two shards are not one run
			recs[j].ID = fmt.Sprintf("%d/%s", i+1, recs[j].ID)
		}
		llmmetrics.WriteJSONL(&b, recs)
		e := &llmmetrics.RunEnd{State: "completed", Written: len(recs), Planned: len(recs)}
		if i == 1 {
			e.State, e.By = "interrupted", "SIGTERM"
		}
		e.WriteLine(&b)
		paths = append(paths, filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i+1)))
		if err := os.WriteFile(paths[i], b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"report", "--merge", "--json", "--slo", "ttft=200ms"}, paths...)
	code, inMemory, errs := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("in memory: %d %s", code, errs)
	}
	code, got, errs := runCLI(t, "", append([]string{"report", "--max-memory", "1MiB"}, args[1:]...)...)
	if code != 0 {
		t.Fatalf("bounded: %d %s", code, errs)
	}
	sameReport(t, "merge", got, inMemory)
	for _, key := range []string{"run", "completeness"} {
		var g, w map[string]any
		json.Unmarshal([]byte(got), &g)
		json.Unmarshal([]byte(inMemory), &w)
		if !reflect.DeepEqual(g[key], w[key]) {
			t.Errorf("%s:\n got %v\nwant %v", key, g[key], w[key])
		}
	}
	if !strings.Contains(got, "Merged 3 files of one run") || !strings.Contains(got, "the files' starts differ by 1.5s") {
		t.Errorf("the merge's notes are missing:\n%s", got)
	}
	twice := []string{"report", "--merge", "--max-memory", "1MiB", paths[0], paths[1], paths[2], paths[1]}
	_, _, inMemoryErr := runCLI(t, "", append([]string{"report", "--merge"}, twice[4:]...)...)
	if code, _, errs := runCLI(t, "", twice...); code != 2 || errs != inMemoryErr {
		t.Errorf("a file given twice: %d %q, in memory %q", code, errs, inMemoryErr)
	}
}

// A gate on a bounded report of a run file with a run header: the load
// check, which a gate consults before it trusts a latency or a throughput,
// was not computed, so such a condition cannot be judged (status 1, never
// a pass); error_rate, which counts every request, is judged as ever.
func TestReportMaxMemoryGate(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"llmmetrics_run":{"tool":"llmmetrics test","start":"2026-12-02T00:00:00Z","load":{"loop":"open","rate_per_s":"100"}}}` + "\n")
	for i := range 50 {
		fmt.Fprintf(&b, `{"id":"r%d","status":"ok","sent_ns":%d,"chunk_arrivals_ns":[100000000,140000000],"completion_tokens":2}`+"\n", i, i*10_000_000)
	}
	path := writeFile(t, "run.jsonl", b.String())
	code, _, errs := runCLI(t, "", "report", "--max-memory", "1KiB", "--fail-if", "p99(ttft)>100s", path)
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "p99(ttft)>100s cannot be judged: the load check was not computed")
	code, out, errs := runCLI(t, "", "report", "--max-memory", "1KiB", "--fail-if", "error_rate>0.5", path)
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, out, "(a budget of 66 kB, the least it is given, though half of --max-memory is less)")
	code, _, errs = runCLI(t, "", "report", "--fail-if", "p99(ttft)>100s", path)
	assert.Equal(t, 0, code, "in memory the load check is computed: %s", errs)
}

// A strict error in bounded memory is the in-memory report's one line:
// the file, the line, the id, the field, the reason and the --lenient
// hint, with no word of batches; for a syntax error and a repeated id too.
func TestBoundedStrictErrorAsInMemory(t *testing.T) {
	src, err := os.ReadFile("../../testdata/sample_run.jsonl")
	require.NoError(t, err)
	lines := strings.SplitAfter(string(src), "\n")[:20]
	for name, edit := range map[string]func([]string){
		"status": func(l []string) { l[11] = strings.Replace(l[11], `"status":"ok"`, `"status":"fine"`, 1) },
		"syntax": func(l []string) { l[11] = "{oops" + l[11] },
		"dup":    func(l []string) { l[11] = strings.Replace(l[11], `"id":"req-011"`, `"id":"req-001"`, 1) },
	} {
		l := slices.Clone(lines)
		edit(l)
		path := writeFile(t, name+".jsonl", strings.Join(l, ""))
		code, _, want := runCLI(t, "", "report", path)
		require.Equal(t, 1, code, want)
		code, _, got := runCLI(t, "", "report", "--max-memory", "1000", path)
		assert.Equal(t, 1, code, got)
		assert.Equal(t, want, got, name)
		assert.Contains(t, got, "line 12", name)
		assert.Contains(t, got, "(--lenient counts invalid records as rejected instead)", name)
	}
}

// In a merge in bounded memory, the strict error names the file of the
// invalid record, as the merge in memory does.
func TestBoundedMergeStrictErrorAsInMemory(t *testing.T) {
	src, err := os.ReadFile("../../testdata/sample_run.jsonl")
	require.NoError(t, err)
	lines := strings.SplitAfter(string(src), "\n")[:20]
	header := func(start string) string { return `{"llmmetrics_run":{"tool":"x","start":"` + start + `"}}` + "\n" }
	good := writeFile(t, "m1.jsonl", header("2026-12-01T15:00:00Z")+strings.Join(lines, ""))
	bad := slices.Clone(lines)
	bad[11] = strings.Replace(bad[11], `"status":"ok"`, `"status":"fine"`, 1)
	spoilt := writeFile(t, "m2.jsonl", header("2026-12-01T15:00:01Z")+strings.Join(bad, ""))
	code, _, want := runCLI(t, "", "report", "--merge", good, spoilt)
	require.Equal(t, 1, code, want)
	code, _, got := runCLI(t, "", "report", "--max-memory", "1000", "--merge", good, spoilt)
	assert.Equal(t, 1, code, got)
	assert.Equal(t, want, got)
	assert.Contains(t, got, spoilt+": line 13, column 32")
}

// The bounded notes say each fact once: of a pipe spooled to a temporary
// file, the spool's note says only the spool, and the size and the limit
// are the next note's; the note gives what the input would take in
// memory, the figure past the limit, so that a size below the limit does
// not read as a contradiction; and sizes below 10 kB keep a decimal, so
// that 1,406 bytes against 1,024 do not read "(1 kB) … (1 kB)".
func TestBoundedNotesSayEachFactOnce(t *testing.T) {
	src, err := os.ReadFile("../../testdata/sample_run.jsonl")
	require.NoError(t, err)
	lines := strings.SplitAfter(string(src), "\n")
	three := strings.Join(lines[:3], "")
	require.Len(t, three, 1406, "the size the figures below are of")
	path := writeFile(t, "three.jsonl", three)

	// 1,406 bytes would take 3 × 1,406 = 4,218 in memory, past 1 KiB
	// (1,024 bytes).
	for _, args := range [][]string{{path}, {"--warmup", "1", path}} {
		_, out, errs := runCLI(t, "", append([]string{"report", "--max-memory", "1KiB"}, args...)...)
		assert.Contains(t, out, path+" (1.4 kB) would take about 4.2 kB in memory, more than --max-memory (1.0 kB)", errs)
	}

	// A pipe (runCLI's standard input is none of os.File) past
	// pipeInMemory's share of 1 KiB is spooled.
	_, out, errs := runCLI(t, three, "report", "--max-memory", "1KiB", "-")
	assert.Contains(t, out, "  - standard input was written to a temporary file, removed when report ends, and read from there\n"+
		"  - bounded summary: standard input (1.4 kB) would take about 4.2 kB in memory, more than --max-memory (1.0 kB);", errs)
	assert.Equal(t, 1, strings.Count(out, "(1.4 kB)"), "the size once")

	// --max-memory 100: 100 bytes, not "0 kB".
	_, out, errs = runCLI(t, "", "report", "--max-memory", "100", path)
	assert.Contains(t, out, "more than --max-memory (100 bytes)", errs)
}

// megabytes: bytes below 1 kB, one decimal below 10 kB, whole kB below
// 1 MB, one decimal of MB above.
func TestMegabytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 999: "999 bytes", 1024: "1.0 kB", 1406: "1.4 kB",
		9949: "9.9 kB", 66_000: "66 kB", 999_499: "999 kB", 1_048_576: "1.0 MB", 274_900_000: "274.9 MB"} {
		assert.Equal(t, want, megabytes(n), n)
	}
}
