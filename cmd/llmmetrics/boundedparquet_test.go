package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/synth"
	"github.com/llmmetrics/llmmetrics/parquet"
)

// writeParquet writes a run as Parquet to a file of the test's.
func writeParquet(t *testing.T, name string, run *llmmetrics.Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := parquet.Write(&b, run); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, name, b.String())
}

// report --max-memory of a Parquet file past 12 times its size summarizes
// it in bounded memory, a batch of rows at a time, and prints the figures
// the report of the file read whole prints, with its header and
// completeness; below 12 times its size it is read whole.
func TestReportMaxMemoryParquet(t *testing.T) {
	run := &llmmetrics.Run{
		Header:  &llmmetrics.RunHeader{Tool: "test", Model: "m", Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		End:     &llmmetrics.RunEnd{State: "completed", Written: 20_000, Planned: 20_000},
		Records: synth.Mixed(20_000, 8),
	}
	path := writeParquet(t, "run.parquet", run)
	st, _ := os.Stat(path)
	args := []string{"--json", "--slo", "ttft=200ms,e2e=3s", "--percentiles", "50,99,99.9", path}
	code, inMemory, errs := runCLI(t, "", append([]string{"report"}, args...)...)
	if code != 0 {
		t.Fatalf("in memory: %d %s", code, errs)
	}
	code, got, errs := runCLI(t, "", append([]string{"report", "--max-memory", "1MiB"}, args...)...)
	if code != 0 {
		t.Fatalf("bounded: %d %s", code, errs)
	}
	sameReport(t, "parquet", got, inMemory)
	sameKeys(t, got, inMemory, "run", "completeness")
	if !strings.Contains(got, "bounded summary: "+path) {
		t.Errorf("no bounded note:\n%s", got)
	}
	// 11 times the file is less than it takes read whole; 13 times, more.
	for _, c := range []struct {
		times   int64
		bounded bool
	}{{11, true}, {13, false}} {
		limit := fmt.Sprint(c.times * st.Size())
		_, out, _ := runCLI(t, "", append([]string{"report", "--max-memory", limit}, args...)...)
		if strings.Contains(out, "bounded summary: ") != c.bounded {
			t.Errorf("--max-memory %d times the file: bounded %v, want %v", c.times, !c.bounded, c.bounded)
		}
	}
}

// sameKeys fails unless the two reports' JSON have the same values at
// keys.
func sameKeys(t *testing.T, got, want string, keys ...string) {
	t.Helper()
	g, w := jsonObject(t, got), jsonObject(t, want)
	for _, k := range keys {
		if fmt.Sprint(g[k]) != fmt.Sprint(w[k]) || w[k] == nil {
			t.Errorf("%s:\n got %v\nwant %v", k, g[k], w[k])
		}
	}
}

// report --merge --max-memory of shards written as Parquet merges them in
// bounded memory with the figures of the merge in memory, which reads
// Parquet shards as it reads JSONL ones.
func TestReportMergeMaxMemoryParquet(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var jsonl, pq []string
	for i, at := range []time.Duration{0, 1500 * time.Millisecond} {
		h := &llmmetrics.RunHeader{Tool: "test", Model: "m", Start: start.Add(at), Ends: true,
			Load: map[string]string{"plan": "p1", "loop": "closed", "concurrency": "4", "shard": fmt.Sprintf("%d/2", i+1)}}
		recs := synth.Mixed(8_000+1_000*i, 8)
		for j := range recs { // a shard's ids, as run --shard prefixes them: two shards are not one run
			recs[j].ID = fmt.Sprintf("%d/%s", i+1, recs[j].ID)
		}
		run := &llmmetrics.Run{Header: h, Records: recs, End: &llmmetrics.RunEnd{State: "completed", Written: len(recs), Planned: len(recs)}}
		pq = append(pq, writeParquet(t, fmt.Sprintf("shard-%d.parquet", i+1), run))
		var b bytes.Buffer
		h.WriteLine(&b)
		llmmetrics.WriteJSONL(&b, recs)
		run.End.WriteLine(&b)
		jsonl = append(jsonl, writeFile(t, fmt.Sprintf("shard-%d.jsonl", i+1), b.String()))
	}
	args := []string{"--merge", "--json", "--slo", "ttft=200ms"}
	_, fromJSONL, errs := runCLI(t, "", append(append([]string{"report"}, args...), jsonl...)...)
	code, inMemory, errs2 := runCLI(t, "", append(append([]string{"report"}, args...), pq...)...)
	if code != 0 {
		t.Fatalf("in memory: %d %s %s", code, errs, errs2)
	}
	sameKeys(t, inMemory, fromJSONL, "ttft_ms", "itl_ms", "requests", "throughput", "goodput", "run", "completeness")
	code, got, errs := runCLI(t, "", append(append([]string{"report", "--max-memory", "1MiB"}, args...), pq...)...)
	if code != 0 {
		t.Fatalf("bounded: %d %s", code, errs)
	}
	sameReport(t, "merge", got, inMemory)
	sameKeys(t, got, inMemory, "run", "completeness")
}

// report - reads standard input that ends within --max-memory in memory,
// as ever; standard input that does not is written to a temporary file,
// said in a note, and summarized in bounded memory from there, with the
// figures of the report in memory, for JSONL and for Parquet.
func TestReportStdinMaxMemory(t *testing.T) {
	recs := synth.Mixed(20_000, 8)
	var jsonl bytes.Buffer
	if err := llmmetrics.WriteJSONL(&jsonl, recs); err != nil {
		t.Fatal(err)
	}
	var pq bytes.Buffer
	if err := parquet.Write(&pq, &llmmetrics.Run{Records: recs}); err != nil {
		t.Fatal(err)
	}
	args := []string{"report", "--json", "--slo", "ttft=200ms", "-"}
	for _, in := range []struct{ name, data string }{{"jsonl", jsonl.String()}, {"parquet", pq.String()}} {
		code, inMemory, errs := runCLI(t, in.data, args...)
		if code != 0 || strings.Contains(inMemory, "bounded summary") {
			t.Fatalf("%s: in memory: %d %s", in.name, code, errs)
		}
		code, got, errs := runCLI(t, in.data, append([]string{"report", "--max-memory", "1MiB"}, args[1:]...)...)
		if code != 0 {
			t.Fatalf("%s: bounded: %d %s", in.name, code, errs)
		}
		sameReport(t, in.name, got, inMemory)
		if !strings.Contains(got, `"standard input was written to a temporary file, removed when report ends, and read from there","bounded summary: standard input (`+megabytes(int64(len(in.data)))+") would take about ") ||
			!strings.Contains(got, "in memory, more than --max-memory (1.0 MB); read in") {
			t.Errorf("%s: no note of the spool, or not each fact once:\n%s", in.name, got)
		}
	}
	_, table, _ := runCLI(t, jsonl.String(), "report", "--max-memory", "1MiB", "--stratify", "output=100", "-")
	if !strings.Contains(table, "written to a temporary file") || !strings.Contains(table, "--stratify needs its records there: it was read whole") {
		t.Errorf("--stratify: the table does not say it was spooled and read whole:\n%s", table)
	}
}

// jsonObject returns a report's JSON as a map.
func jsonObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// --lenient with a Parquet file past --max-memory reads it whole, saying
// so: the Parquet source stops at the first bad row where --lenient sets
// it aside.
func TestReportMaxMemoryParquetLenient(t *testing.T) {
	run := &llmmetrics.Run{Records: synth.Mixed(2_000, 4)}
	path := writeParquet(t, "run.parquet", run)
	code, inMemory, errs := runCLI(t, "", "report", "--json", "--lenient", path)
	if code != 0 {
		t.Fatalf("in memory: %d %s", code, errs)
	}
	code, got, errs := runCLI(t, "", "report", "--json", "--lenient", "--max-memory", "4096", path)
	if code != 0 {
		t.Fatalf("--max-memory: %d %s", code, errs)
	}
	if strings.Contains(got, "bounded summary: ") || !strings.Contains(got, "but --lenient needs its records there: it was read whole") {
		t.Errorf("not read whole with a note:\n%s", got)
	}
	sameKeys(t, got, inMemory, "requests", "ttft_ms", "e2e_ms", "throughput")
}

// The bounded note names the load check among what it did not compute
// only for a run whose header gave a load to check.
func TestBoundedNoteLoadCheck(t *testing.T) {
	recs := synth.Mixed(5_000, 4)
	for _, c := range []struct {
		name   string
		header *llmmetrics.RunHeader
		load   bool
	}{
		{"no header", nil, false},
		{"a load", &llmmetrics.RunHeader{Tool: "test", Load: map[string]string{"concurrency": "8"}}, true},
	} {
		var b bytes.Buffer
		if c.header != nil {
			c.header.WriteLine(&b)
		}
		if err := llmmetrics.WriteJSONL(&b, recs); err != nil {
			t.Fatal(err)
		}
		path := writeFile(t, "run.jsonl", b.String())
		_, out, errs := runCLI(t, "", "report", "--max-memory", "1MiB", path)
		if !strings.Contains(out, "bounded summary: ") {
			t.Fatalf("%s: not bounded: %s%s", c.name, out, errs)
		}
		if got := strings.Contains(out, "the load check"); got != c.load {
			t.Errorf("%s: the note names the load check: %v, want %v", c.name, got, c.load)
		}
	}
}
