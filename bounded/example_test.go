package bounded_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
)

// The summary of a run's file, read once a pass in a budget of 64 KiB.
func ExampleSummarize() {
	open := func() (io.ReadCloser, error) { return os.Open("../testdata/sample_run.jsonl") }
	s, st, err := bounded.Summarize(open, bounded.Options{Budget: 64 << 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ok:", s.Requests.OK, "of", s.Requests.Offered)
	for _, d := range []struct {
		name string
		d    *llmmetrics.Distribution
	}{{"ttft", s.TTFT}, {"e2e", s.E2E}, {"itl", &s.ITL.Distribution}} {
		p99, _ := d.d.At(llmmetrics.MustPercentile(99))
		fmt.Printf("%s: n=%d mean=%v p99=%v\n", d.name, d.d.N, d.d.Mean, p99)
	}
	fmt.Println("the request at ttft's p99:", s.TTFT.Points[3].ID)
	fmt.Printf("%.2f output tokens/s\n", s.Throughput.OutputTokensPerSecond)
	fmt.Println("workload:", s.Absent["workload"])
	fmt.Println("passes:", st.Passes)
	// Output:
	// ok: 234 of 240
	// ttft: n=234 mean=102.610256ms p99=224.903ms
	// e2e: n=234 mean=2.447484778s p99=9.401702s
	// itl: n=21408 mean=25.630635ms p99=69.944ms
	// the request at ttft's p99: req-040
	// 612.19 output tokens/s
	// workload: not computed by the bounded summary (the run was read in passes within a memory budget)
	// passes: 4
}

// Two files of one run, taken by two machines that started 2 s apart,
// summarized as one in bounded memory: the check sees each file on its
// own clock, and the merged run.
func ExampleSummarizeMerged() {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var opens []bounded.Opener
	for i, id := range []string{"a", "b"} {
		var b bytes.Buffer
		h := &llmmetrics.RunHeader{Tool: "example", Start: start.Add(time.Duration(i) * 2 * time.Second)}
		h.WriteLine(&b)
		llmmetrics.WriteJSONL(&b, []llmmetrics.Record{
			{ID: id + "1", Sent: 0, FirstText: 100 * time.Millisecond, LastText: 900 * time.Millisecond, CompletionTokens: 9},
			{ID: id + "2", Sent: time.Second, FirstText: 300 * time.Millisecond, LastText: 1300 * time.Millisecond, CompletionTokens: 11},
		})
		opens = append(opens, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b.Bytes())), nil })
	}
	check := func(merged *llmmetrics.Run, files []bounded.File) error {
		for i, f := range files {
			fmt.Printf("file %d: %d records, %v to %v\n", i+1, f.Records, f.First, f.Last)
		}
		fmt.Println("merged files:", merged.Header.Load["merged_files"])
		return nil
	}
	s, _, err := bounded.SummarizeMerged(opens, bounded.Options{}, check)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ok:", s.Requests.OK, "over", s.Throughput.Window.Length)
	fmt.Println("ttft p99:", s.TTFT.Points[3].Value, s.TTFT.Points[3].ID)
	// Output:
	// file 1: 2 records, 0s to 2.3s
	// file 2: 2 records, 0s to 2.3s
	// merged files: 2
	// ok: 4 over 4.3s
	// ttft p99: 300ms 1/a2
}

// The summary of a run read by a Source: here a file of JSONL, as
// Summarize reads it; the parquet module's Source reads Parquet.
func ExampleSummarizeSources() {
	open := func() (io.ReadCloser, error) { return os.Open("../testdata/sample_run.jsonl") }
	src := bounded.FileSource(open)
	s, _, err := bounded.SummarizeSources([]bounded.Source{src}, bounded.Options{Budget: 64 << 10}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p99, _ := s.TTFT.At(llmmetrics.MustPercentile(99))
	fmt.Println("ok:", s.Requests.OK, "ttft p99:", p99)
	// Output: ok: 234 ttft p99: 224.903ms
}

// A file's Source gives its header, read from the first line, and its
// records a batch at a time.
func ExampleFileSource() {
	src := bounded.FileSource(func() (io.ReadCloser, error) { return os.Open("../testdata/sample_run.jsonl") })
	h, err := src.Header()
	fmt.Println(h == nil, err)
	n := 0
	err = src.Pass(func(b *llmmetrics.Run) error {
		n += len(b.Records)
		return nil
	})
	fmt.Println(n, err)
	// Output:
	// true <nil>
	// 240 <nil>
}
