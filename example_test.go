package llmmetrics_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// The opening trace of the first lesson: one request, sent at 0, whose five
// tokens arrive in five chunks at 120, 155, 192, 228 and 265 ms.
func openingTrace() llmmetrics.Record {
	ms := time.Millisecond
	return llmmetrics.Record{
		ID:               "trace-5",
		Chunks:           []time.Duration{120 * ms, 155 * ms, 192 * ms, 228 * ms, 265 * ms},
		PromptTokens:     512,
		CompletionTokens: 5,
	}
}

// The goodput cohort of the second lesson: limits TTFT ≤ 500 ms and
// TPOT ≤ 50 ms; A and B pass, C starts late, D generates slowly, E times out.
func cohort() []llmmetrics.Record {
	ms := time.Millisecond
	req := func(id string, sent, ttft, tpot time.Duration) llmmetrics.Record {
		return llmmetrics.Record{ID: id, Sent: sent, FirstText: ttft, LastText: ttft + 2*tpot, CompletionTokens: 3}
	}
	return []llmmetrics.Record{
		req("A", 0, 100*ms, 20*ms),
		req("B", 2000*ms, 200*ms, 40*ms),
		req("C", 4000*ms, 700*ms, 20*ms),
		req("D", 6000*ms, 100*ms, 80*ms),
		{ID: "E", Sent: 8000 * ms, Status: llmmetrics.StatusTimeout},
	}
}

func Example() {
	recs := cohort()
	slo := llmmetrics.SLO{TTFT: 500 * time.Millisecond, TPOT: 50 * time.Millisecond}
	s, err := llmmetrics.Summarize(recs, llmmetrics.Options{SLO: &slo, Window: 10 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	a := s.Requests
	fmt.Printf("offered %d: ok %d, failed %d\n", a.Offered, a.OK, a.Failed)
	fmt.Printf("TTFT p50 %v (request %s), method %v\n", s.TTFT.Points[0].Value, s.TTFT.Points[0].ID, s.Method)
	fmt.Printf("attainment %.0f%%, goodput %.1f requests/s\n", 100*s.Goodput.Attainment, s.Goodput.RequestsPerSecond)
	// Output:
	// offered 5: ok 4, failed 1
	// TTFT p50 100ms (request A), method nearest-rank
	// attainment 40%, goodput 0.2 requests/s
}

func ExampleRecord_TTFT() {
	r := openingTrace()
	ttft, _ := r.TTFT()
	fmt.Println(ttft)
	// Output: 120ms
}

func ExampleRecord_E2E() {
	r := openingTrace()
	e2e, _ := r.E2E()
	fmt.Println(e2e)
	// Output: 265ms
}

func ExampleRecord_TPOT() {
	r := openingTrace()
	tpot, _ := r.TPOT() // (265 − 120) / (5 − 1)
	fmt.Println(tpot)

	one := llmmetrics.Record{FirstText: 80 * time.Millisecond, LastText: 80 * time.Millisecond, CompletionTokens: 1}
	_, err := one.TPOT()
	fmt.Println(errors.Is(err, llmmetrics.ErrTooFewTokens))
	// Output:
	// 36.25ms
	// true
}

func ExampleRecord_UserTPS() {
	r := openingTrace()
	tps, _ := r.UserTPS() // 4 / 0.145 s
	fmt.Printf("%.1f tokens/s\n", tps)
	// Output: 27.6 tokens/s
}

func ExampleRecord_DatabricksE2E() {
	r := openingTrace()
	a, _ := r.DatabricksE2E()
	fmt.Printf("exact %v, approximation %v, over by %v (%.0f%% of n·TPOT)\n", a.Exact, a.Approx, a.Error, 100*a.RelativeError)
	// Output: exact 265ms, approximation 301.25ms, over by 36.25ms (20% of n·TPOT)
}

func ExampleRecord_AppendGaps() {
	r := openingTrace()
	gaps, _ := r.AppendGaps(nil)
	fmt.Println(gaps)
	// Output: [35ms 37ms 36ms 37ms]
}

func ExampleRecord_GapBasis() {
	r := openingTrace()
	b, _ := r.GapBasis()
	fmt.Println(b) // five chunks for five tokens

	r.CompletionTokens = 9 // the same chunks carrying nine tokens
	b, _ = r.GapBasis()
	fmt.Println(b)
	// Output:
	// token
	// chunk
}

func ExampleRecord_MaxGap() {
	// The four-token trace of the second lesson: a TPOT of 80 ms hides a
	// 200 ms pause.
	ms := time.Millisecond
	r := llmmetrics.Record{Chunks: []time.Duration{100 * ms, 120 * ms, 320 * ms, 340 * ms}, CompletionTokens: 4}
	tpot, _ := r.TPOT()
	worst, _ := r.MaxGap()
	fmt.Println(tpot, worst)
	// Output: 80ms 200ms
}

func ExampleRecord_Validate() {
	ms := time.Millisecond
	r := llmmetrics.Record{ID: "r7", Chunks: []time.Duration{100 * ms, 90 * ms}, CompletionTokens: 2}
	err := r.Validate()
	fmt.Println(errors.Is(err, llmmetrics.ErrNonMonotonic))
	fmt.Println(err)
	// Output:
	// true
	// llmmetrics: record -1 (id "r7"): field chunks[1]: chunk arrivals go backwards: 90ms after 100ms
}

func ExampleRecord_Category() {
	for _, r := range []llmmetrics.Record{
		openingTrace(),
		{CompletionTokens: 0},
		{Status: llmmetrics.StatusCancelled},
	} {
		fmt.Println(r.Category())
	}
	// Output:
	// ok
	// zero_token
	// failed
}

func ExampleStatus_String() {
	fmt.Println(llmmetrics.StatusTimeout)
	// Output: timeout
}

func ExampleStatus_UnmarshalText() {
	var s llmmetrics.Status
	err := s.UnmarshalText([]byte("cancelled"))
	fmt.Println(s, err)
	err = s.UnmarshalText([]byte("done"))
	fmt.Println(err)
	// Output:
	// cancelled <nil>
	// llmmetrics: unknown status: "done" (want ok, error, timeout or cancelled)
}

func ExampleDescribe_percentiles() {
	// Of 1,000 sorted values the p50 is the 500th and the p99 the 990th.
	xs := make([]time.Duration, 1000)
	for i := range xs {
		xs[i] = time.Duration(1000-i) * time.Millisecond
	}
	ps := []llmmetrics.Percentile{llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(99)}
	nr, _ := llmmetrics.Describe(xs, llmmetrics.NearestRank, ps...)
	lin, _ := llmmetrics.Describe(xs, llmmetrics.Linear, ps...)
	fmt.Println(nr.Points[0].Value, nr.Points[1].Value, lin.Points[0].Value, lin.Points[1].Value)
	// Output: 500ms 990ms 500.5ms 990.01ms
}

func ExampleDescribe() {
	ms := time.Millisecond
	xs := []time.Duration{15 * ms, 20 * ms, 35 * ms, 40 * ms, 50 * ms}
	d, _ := llmmetrics.Describe(xs, llmmetrics.Linear, llmmetrics.MustPercentile(40))
	fmt.Println(d.N, d.Mean, d.Min, d.Max, d.Points[0].Value, d.Method)
	// Output: 5 32ms 15ms 50ms 29ms linear
}

func ExampleDistribution_At() {
	ms := time.Millisecond
	d, _ := llmmetrics.Describe([]time.Duration{3 * ms, 1 * ms, 2 * ms}, llmmetrics.NearestRank, llmmetrics.DefaultPercentiles...)
	v, ok := d.At(llmmetrics.MustPercentile(50))
	fmt.Println(v, ok)
	_, ok = d.At(llmmetrics.MustPercentile(75))
	fmt.Println(ok)
	// Output:
	// 2ms true
	// false
}

func ExampleMethod_UnmarshalText() {
	var m llmmetrics.Method
	err := m.UnmarshalText([]byte("linear"))
	fmt.Println(m, err)
	// Output: linear <nil>
}

func ExampleMethod_String() {
	var m llmmetrics.Method // the zero value is the default
	fmt.Println(m)
	// Output: nearest-rank
}

func ExampleNewPercentile() {
	// 7 is read as the decimal 7, so the rank of p7 in 100 values is 7.
	p, err := llmmetrics.NewPercentile(7)
	fmt.Println(p, err)
	_, err = llmmetrics.NewPercentile(100.5)
	fmt.Println(errors.Is(err, llmmetrics.ErrPercentile))
	// Output:
	// 7 <nil>
	// true
}

func ExampleMustPercentile() {
	fmt.Println(llmmetrics.MustPercentile(99.9).Key())
	// Output: p99.9
}

func ExamplePercentile_UnmarshalText() {
	var p llmmetrics.Percentile
	err := p.UnmarshalText([]byte("p99.99"))
	fmt.Println(p.Float(), p.Key(), err)
	// Output: 99.99 p99.99 <nil>
}

func ExampleParsePercentiles() {
	ps, err := llmmetrics.ParsePercentiles("50,90,95,99")
	fmt.Println(ps, err)
	// Output: [50 90 95 99] <nil>
}

func ExamplePercentile_String() {
	fmt.Println(llmmetrics.MustPercentile(99.5).String(), llmmetrics.MustPercentile(99.5).Float())
	// Output: 99.5 99.5
}

func ExampleSLO_Meets() {
	slo := llmmetrics.SLO{TTFT: 500 * time.Millisecond, TPOT: 50 * time.Millisecond}
	for _, r := range cohort() {
		ok, _ := slo.Meets(&r)
		fmt.Print(r.ID, ":", ok, " ")
	}
	fmt.Println()
	// Output: A:true B:true C:false D:false E:false
}

func ExampleParseSLO() {
	slo, err := llmmetrics.ParseSLO("ttft=500ms,tpot=50ms")
	fmt.Println(slo, err)
	slo.Strict = true
	fmt.Println(slo.String())
	// Output:
	// ttft=500ms,tpot=50ms (inclusive ≤) <nil>
	// ttft=500ms,tpot=50ms (strict <)
}

func ExampleSummarize() {
	// The lesson's averaging illustration: A has 100 tokens at a TPOT of
	// 10 ms, B has 2 tokens at 50 ms.
	ms := time.Millisecond
	recs := []llmmetrics.Record{
		{ID: "A", FirstText: 120 * ms, LastText: 1110 * ms, CompletionTokens: 100},
		{ID: "B", FirstText: 120 * ms, LastText: 170 * ms, CompletionTokens: 2},
	}
	s, _ := llmmetrics.Summarize(recs, llmmetrics.Options{})
	fmt.Println("request-weighted mean TPOT:", s.TPOT.Mean)
	fmt.Println("gap-weighted mean:", s.TPOT.GapWeightedMean)
	// Output:
	// request-weighted mean TPOT: 30ms
	// gap-weighted mean: 10.4ms
}

func ExampleSummary_WriteTable() {
	s, _ := llmmetrics.Summarize([]llmmetrics.Record{openingTrace()}, llmmetrics.Options{
		Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50)},
	})
	s.WriteTable(os.Stdout)
	// Output:
	// environment: not recorded (the records carry no run header)
	//
	// requests: 1 offered = 1 ok + 0 zero-token + 0 failed + 0 rejected
	//           failed: 0 error, 0 timeout, 0 cancelled; 0 ok requests had one token (no TPOT)
	//
	// workload of the measured requests:
	//   prompt tokens: n 1, p50 512, p95 512, max 512; histogram from 512 by 1: 1
	//   output tokens: n 1, p50 5, p95 5, max 5; histogram from 5 by 1: 1
	//   in flight (ok requests, send → last text, time-weighted over 0.265 s): mean 1.00, p50 1, max 1
	//
	//   metric (ms)       n     mean    std      min      p50      max
	//   TTFT              1  120.000  0.000  120.000  120.000  120.000
	//   TPOT              1   36.250  0.000   36.250   36.250   36.250
	//   E2E               1  265.000  0.000  265.000  265.000  265.000
	//   ITL (token gaps)  4   36.250  0.829   35.000   36.000   37.000
	//   max gap/request   1   37.000  0.000   37.000   37.000   37.000
	//
	// percentiles: nearest-rank (value at rank ⌈p·N/100⌉, a real request); mean of TTFT/TPOT/E2E is request-weighted; std is the population std
	// TPOT: (t_last − t_first)/(n − 1) with n from usage; gap-weighted mean 36.250 ms; 0 one-token requests excluded
	// ITL: gap-weighted, pooled over 1 requests with chunk arrivals: 1 had one chunk per token, 0 did not
	//
	// throughput over 0.265 s (first send → last text chunk), counting 1 ok request:
	//   output  18.868 tokens/s (5 tokens)
	//   prompt  1932.075 tokens/s (512 tokens), a separate figure: never add the two
	//   requests  3.774 /s
	//
	// absent:
	//   workload.arrivals: fewer than three measured requests
	//   workload.early_stop: no ok request says its max_tokens
}

func ExampleSummary_MarshalJSON() {
	s, _ := llmmetrics.Summarize([]llmmetrics.Record{openingTrace()}, llmmetrics.Options{
		Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50)},
	})
	b, _ := s.MarshalJSON()
	fmt.Println(string(b[:strings.Index(string(b), `,"tpot_ms"`)]))
	// Output: {"percentile_method":"nearest-rank","requests":{"offered":1,"ok":1,"failed":0,"zero_token":0,"one_token":0,"rejected":0,"warmup":0,"errors":0,"timeouts":0,"cancelled":0},"ttft_ms":{"n":1,"mean":120,"std":0,"min":120,"max":120,"p50":120,"request_ids":{"p50":"trace-5"}}
}

func ExampleReadCSV() {
	in := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\n" +
		"r1,256,11,150,450,ok\n" +
		"r2,256,,,,error\n" +
		"r3,256,3,nan,90,ok\n"
	_, err := llmmetrics.ReadCSV(strings.NewReader(in))
	fmt.Println(err)
	// Output:
	// llmmetrics: line 4, column 10 (id "r3"): field TTFT_ms: value is NaN or infinite: "nan"
}

func ExampleReadJSONL() {
	in := `{"id":"a","chunk_arrivals_ns":[100000000,120000000,320000000,340000000],"completion_tokens":4}`
	run, _ := llmmetrics.ReadJSONL(strings.NewReader(in))
	gap, _ := run.Records[0].MaxGap()
	fmt.Println(gap, run.Lines)
	// Output: 200ms [1]
}

func ExampleRead() {
	run, format, _ := llmmetrics.Read(strings.NewReader(`{"id":"z","completion_tokens":0}`))
	fmt.Println(format, run.Records[0].Category())
	// Output: jsonl zero_token
}

func ExampleRun_Summarize() {
	in := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n" +
		"a,10,2,100,150\n" +
		"b,10,x,100,150\n"
	run, err := llmmetrics.ReadOptions{Lenient: true}.ReadCSV(strings.NewReader(in))
	fmt.Println(errors.Is(err, llmmetrics.ErrRejected))
	_, err = run.Summarize(llmmetrics.Options{})
	fmt.Println(errors.Is(err, llmmetrics.ErrSyntax))
	s, _ := run.Summarize(llmmetrics.Options{Lenient: true})
	fmt.Printf("%+v\n", s.Requests)
	// Output:
	// true
	// true
	// {Offered:2 OK:1 ZeroToken:0 Failed:0 Rejected:1 Warmup:0 Preflight:0 Unfinished:0 Errors:0 Timeouts:0 Cancelled:0 OneToken:0 Uncounted:{NoUsage:0 ZeroUsage:0 BelowChunks:0} Unstreamed:0}
}

func ExampleRun_Err() {
	run, _ := llmmetrics.ReadOptions{Lenient: true}.ReadJSONL(strings.NewReader(`{"id":"a","completion_tokens":-1,"first_text_ns":1,"last_text_ns":2,"color":"red"}`))
	fmt.Println(run.Err())
	// Output: llmmetrics: 1 row rejected; line 1, column 69 (id "a"): field color: syntax error: unknown key "color" (keys are matched exactly)
}

func ExampleWriteCSV() {
	recs := cohort()[3:]
	llmmetrics.WriteCSV(os.Stdout, recs)
	// Output:
	// request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status,message
	// D,0,3,100,260,6000,ok,
	// E,,,,,8000,timeout,
}

func ExampleWriteJSONL() {
	llmmetrics.WriteJSONL(os.Stdout, []llmmetrics.Record{openingTrace()})
	// Output: {"id":"trace-5","status":"ok","sent_ns":0,"chunk_arrivals_ns":[120000000,155000000,192000000,228000000,265000000],"prompt_tokens":512,"completion_tokens":5}
}

// A run read from a CSV file without sent_ms has no send times: written
// back, it has none again, where the function WriteCSV would write 0.
func ExampleRun_WriteCSV() {
	run, _ := llmmetrics.ReadCSV(strings.NewReader("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\nA,12,3,100,180\n"))
	run.WriteCSV(os.Stdout)
	// Output:
	// request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status,message
	// A,12,3,100,180,ok,
}

// A run written with its header and end lines reads back whole; its
// records have no sent_ns, as it has no send times.
func ExampleRun_WriteJSONL() {
	run := &llmmetrics.Run{
		Header:      &llmmetrics.RunHeader{Tool: "mybench 1.0", Start: time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)},
		Records:     []llmmetrics.Record{{ID: "a", FirstText: 100, LastText: 300, CompletionTokens: 3}},
		NoSendTimes: true,
	}
	run.WriteJSONL(os.Stdout)
	// Output:
	// {"llmmetrics_run":{"tool":"mybench 1.0","start":"2026-12-02T15:00:00Z"}}
	// {"id":"a","status":"ok","first_text_ns":100,"last_text_ns":300,"completion_tokens":3}
}

func ExampleWindow_String() {
	s, _ := llmmetrics.Summarize(cohort(), llmmetrics.Options{})
	fmt.Println(s.Throughput.Window) // A's send at 0 to D's last token at 6.26 s
	// Output: 6.26s (first send → last text chunk)
}

func ExampleRecordError() {
	_, err := llmmetrics.Summarize([]llmmetrics.Record{{ID: "x", CompletionTokens: -2}}, llmmetrics.Options{})
	var re *llmmetrics.RecordError
	if errors.As(err, &re) {
		fmt.Println(re.Index, re.ID, re.Field, errors.Is(err, llmmetrics.ErrNegativeCount))
	}
	// Output: 0 x completion_tokens true
}

func ExampleBasis_String() {
	fmt.Println(llmmetrics.BasisToken, llmmetrics.BasisChunk)
	// Output: token chunk
}

func ExampleCategory_String() {
	fmt.Println(llmmetrics.CategoryRejected)
	// Output: rejected
}

func ExampleFormat_String() {
	fmt.Println(llmmetrics.FormatCSV, llmmetrics.FormatJSONL)
	// Output: csv jsonl
}

func ExampleSLO_String() {
	fmt.Println(llmmetrics.SLO{E2E: 5 * time.Second, MaxGap: time.Second})
	fmt.Println(llmmetrics.SLO{})
	// Output:
	// e2e=5s,max_gap=1s (inclusive ≤)
	// none
}

func ExamplePercentile_Float() {
	fmt.Println(llmmetrics.MustPercentile(99.9).Float())
	// Output: 99.9
}

func ExamplePercentile_Key() {
	fmt.Println(llmmetrics.MustPercentile(50).Key(), llmmetrics.MustPercentile(99.99).Key())
	// Output: p50 p99.99
}

func ExampleReadOptions_ReadCSV() {
	in := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\n" +
		"r1,256,11,150,450,ok\n" +
		"r2,256,,,,error\n" +
		"r3,256,3,nan,90,ok\n"
	// Lenient reading sets the bad row aside, and says so.
	run, err := llmmetrics.ReadOptions{Lenient: true}.ReadCSV(strings.NewReader(in))
	fmt.Println(len(run.Records), run.RejectedCount(), errors.Is(err, llmmetrics.ErrRejected))
	tpot, _ := run.Records[0].TPOT() // (450 − 150) / 10
	fmt.Println(tpot)
	s, _ := run.Summarize(llmmetrics.Options{Lenient: true})
	fmt.Println(s.Requests.Offered, s.Requests.Rejected)
	// Output:
	// 2 1 true
	// 30ms
	// 3 1
}

func ExampleReadOptions_ReadJSONL() {
	in := `{"id":"a","chunk_arrivals_ns":[100000000,120000000],"completion_tokens":2}
{"id":"b","status":"error","status":"ok"}
`
	run, err := llmmetrics.ReadOptions{Lenient: true}.ReadJSONL(strings.NewReader(in))
	fmt.Println(len(run.Records))
	fmt.Println(err)
	// Output:
	// 1
	// llmmetrics: 1 row rejected; line 2, column 28 (id "b"): field status: syntax error: key "status" repeated
}

func ExampleReadOptions_Read() {
	_, _, err := llmmetrics.ReadOptions{Lenient: true}.Read(strings.NewReader("\n \n"))
	fmt.Println(err)
	// Output: llmmetrics: no records: the input is empty
}

func ExampleReadOptions_Summarize() {
	in := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\n" +
		"r1,256,11,150,450,ok\n" +
		"r2,256,,,,error\n" +
		"r3,256,3,nan,90,ok\n" +
		"r4,256,5,110,190,ok\n"
	s, format, _ := llmmetrics.ReadOptions{Lenient: true}.Summarize(strings.NewReader(in), llmmetrics.Options{Lenient: true})
	// TPOT: (450 − 150) / 10 = 30 ms and (190 − 110) / 4 = 20 ms; the
	// nearest-rank p50 of two values is the lower, named by its request.
	p50 := s.TPOT.Points[0]
	fmt.Println(format, s.Requests.Offered, s.Requests.OK, s.Requests.Failed, s.Requests.Rejected)
	fmt.Println(p50.Value, p50.ID)
	// Output:
	// csv 4 2 1 1
	// 20ms r4
}

func ExampleReadOptions_SummarizeFailed() {
	in := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status,message\n" +
		"r1,256,11,150,450,ok,\n" +
		"r2,256,,,,error,HTTP 503: overloaded\n" +
		"r3,256,5,110,190,ok,\n" +
		"r4,256,,,,timeout,\n"
	var failed []string
	s, _, _ := llmmetrics.ReadOptions{}.SummarizeFailed(strings.NewReader(in), llmmetrics.Options{}, func(r llmmetrics.Record) {
		failed = append(failed, r.ID+" "+r.Status.String()+" "+r.Message)
	})
	fmt.Println(s.Requests.Offered, s.Requests.OK, s.Requests.Failed)
	fmt.Println(strings.Join(failed, "; "))
	// Output:
	// 4 2 2
	// r2 error HTTP 503: overloaded; r4 timeout
}

func ExampleRun_Reject() {
	var run llmmetrics.Run
	for i := range llmmetrics.MaxReasons + 2 {
		run.Reject(&llmmetrics.RecordError{Line: i + 1, Err: llmmetrics.ErrSyntax})
	}
	fmt.Println(len(run.Rejected), run.Unlisted, run.RejectedCount())
	// Output: 1000 2 1002
}

func ExampleRun_RejectedCount() {
	in := "{\"id\":\"a\",\"completion_tokens\":0}\n{\"ID\":\"b\"}\n{\"id\":\"c\"}}\n"
	run, _ := llmmetrics.ReadOptions{Lenient: true}.ReadJSONL(strings.NewReader(in))
	fmt.Println(len(run.Records), run.RejectedCount())
	// Output: 1 2
}

func ExampleRunHeader_WriteLine() {
	var b strings.Builder
	h := &llmmetrics.RunHeader{Tool: "llmmetrics v0.1.0", Target: "http://127.0.0.1:8000/v1/chat/completions", API: "chat",
		Model: "m", Start: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), Load: map[string]string{"loop": "closed", "concurrency": "8"}}
	h.WriteLine(&b)
	b.WriteString(`{"id":"r1","sent_ns":0,"chunk_arrivals_ns":[100000000,120000000],"completion_tokens":2,"wait_ns":3000}` + "\n")
	b.WriteString(`{"id":"w1","warmup":true,"sent_ns":0,"chunk_arrivals_ns":[900000000],"completion_tokens":1}` + "\n")
	run, _ := llmmetrics.ReadJSONL(strings.NewReader(b.String()))
	s, _ := run.Summarize(llmmetrics.Options{})
	fmt.Println(run.Header.Load["concurrency"], s.Header.Model)
	fmt.Println(s.Requests.Offered, s.Requests.OK, s.Requests.Warmup, s.TTFT.Max)
	// Output:
	// 8 m
	// 2 1 1 100ms
}

func ExampleClientSide_Lateness() {
	// Due at 1 s in an open loop; the client began the call at 1.25 s and,
	// after 5 ms in its connection pool, wrote it at 1.255 s.
	c := &llmmetrics.ClientSide{Scheduled: time.Second, HasSchedule: true, Wait: 5 * time.Millisecond}
	late, ok := c.Lateness(1255 * time.Millisecond)
	fmt.Println(late, ok)
	// Output: 250ms true
}

func ExampleWarmupRule_Detect() {
	// 60 requests, one a second: the first 20 slow (a cold server), then
	// steady at TTFT 100 ms and TPOT 20 ms.
	var recs []llmmetrics.Record
	for i := range 60 {
		ttft := 100 * time.Millisecond
		if i < 20 {
			ttft = time.Duration(400-15*i) * time.Millisecond
		}
		recs = append(recs, llmmetrics.Record{Sent: time.Duration(i) * time.Second, FirstText: ttft,
			LastText: ttft + 180*time.Millisecond, CompletionTokens: 10})
	}
	cut, _ := llmmetrics.LessonsWarmup.Detect(recs)
	fmt.Println(cut.Steady, cut.Start)
	fmt.Println(cut.Reason)
	// Output:
	// true 20s
	// the median TTFT and TPOT of windows 3 to 6 of 10 requests each changed by less than 2% (the specification's illustrative rule)
}

func ExampleWarmupSpec_Cut() {
	// Five requests sent at 0, 1, 1, 2 and 3 s.
	var recs []llmmetrics.Record
	for i, sec := range []int{0, 1, 1, 2, 3} {
		recs = append(recs, llmmetrics.Record{ID: fmt.Sprint("r", i), Sent: time.Duration(sec) * time.Second,
			FirstText: 50 * time.Millisecond, LastText: 90 * time.Millisecond, CompletionTokens: 3})
	}
	for _, w := range []llmmetrics.WarmupSpec{{Requests: 1}, {Requests: 2}, {Duration: 1500 * time.Millisecond}} {
		cut, _ := w.Cut(recs)
		fmt.Println(cut.Start, "-", cut.Reason)
	}
	// Output:
	// 1s - the first 1 request in send order
	// 1s - the first 1 request in send order (2 asked: a cut is a send time, and a request sent at the same instant as the first one measured is measured too)
	// 1.5s - the 3 requests sent within 1.5s of the first
}

func ExampleWarmupCut_Apply() {
	recs := []llmmetrics.Record{
		{ID: "a", Sent: 0, FirstText: time.Second, LastText: time.Second, CompletionTokens: 1},
		{ID: "b", Sent: 2 * time.Second, FirstText: time.Second, LastText: time.Second, CompletionTokens: 1},
	}
	marked := llmmetrics.WarmupCut{Steady: true, Start: time.Second}.Apply(recs)
	fmt.Println(marked[0].Warmup, marked[1].Warmup, recs[0].Warmup)
	s, _ := llmmetrics.Summarize(marked, llmmetrics.Options{})
	fmt.Println(s.Requests.Offered, s.Requests.OK, s.Requests.Warmup)
	// Output:
	// true false false
	// 2 1 1
}

func ExampleSummary_workload() {
	// Three ok requests sent a second apart, each 1.5 s long, asking for
	// up to 100 tokens; the second stopped early.
	var recs []llmmetrics.Record
	for i, n := range []int{100, 40, 100} {
		recs = append(recs, llmmetrics.Record{ID: fmt.Sprint(i), Sent: time.Duration(i) * time.Second, PromptTokens: 500 + i,
			FirstText: 200 * time.Millisecond, LastText: 1500 * time.Millisecond, CompletionTokens: n, MaxTokens: 100})
	}
	s, _ := llmmetrics.Summarize(recs, llmmetrics.Options{})
	w := s.Workload
	fmt.Println("output p50", w.Output.P50, "max", w.Output.Max)
	fmt.Println("arrivals", w.Arrivals.Mean, w.Arrivals.Reading)
	// In flight: 1 over [0, 1), 2 over [1, 1.5), 1 over [1.5, 2), 2 over
	// [2, 2.5), 1 over [2.5, 3.5): 4.5 request-seconds over 3.5 s.
	fmt.Printf("in flight mean %.3f, max %d\n", w.Concurrency.Mean, w.Concurrency.Max)
	fmt.Printf("early stop %d of %d\n", w.EarlyStop.Early, w.EarlyStop.Known)
	// Output:
	// output p50 100 max 100
	// arrivals 1s paced
	// in flight mean 1.286, max 2
	// early stop 1 of 3
}

func ExampleStrataSpec_UnmarshalText() {
	var spec llmmetrics.StrataSpec
	err := spec.UnmarshalText([]byte("output=16,64,256"))
	fmt.Println(spec.By, spec.Bounds, err)
	err = spec.UnmarshalText([]byte("output=64,16"))
	fmt.Println(err)
	// Output:
	// output [16 64 256] <nil>
	// llmmetrics: invalid option: strata bounds [64 16] must ascend
}

func ExampleSummary_strata() {
	var recs []llmmetrics.Record
	for i, n := range []int{8, 12, 40, 200} {
		ttft := time.Duration(100+10*i) * time.Millisecond
		recs = append(recs, llmmetrics.Record{ID: fmt.Sprint(i), FirstText: ttft, LastText: ttft + time.Duration(n)*20*time.Millisecond, CompletionTokens: n})
	}
	sum, _ := llmmetrics.Summarize(recs, llmmetrics.Options{Stratify: &llmmetrics.StrataSpec{By: "output", Bounds: []int{16, 64}}})
	st := sum.Strata
	for _, s := range st.Strata {
		fmt.Printf("%s: %d requests, E2E max %v\n", s, s.Requests, s.Summary.E2E.Max)
	}
	// Output:
	// n ≤ 16: 2 requests, E2E max 350ms
	// 16 < n ≤ 64: 1 requests, E2E max 920ms
	// n > 64: 1 requests, E2E max 4.13s
}

func ExampleStratum_String() {
	fmt.Println(llmmetrics.Stratum{Above: 16, AtMost: 64})
	// Output: 16 < n ≤ 64
}

func ExampleMergeRuns() {
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	a := &llmmetrics.Run{Header: &llmmetrics.RunHeader{Tool: "a", Start: t0},
		Records: []llmmetrics.Record{{ID: "r1", Sent: time.Second, Chunks: []time.Duration{100 * time.Millisecond}, CompletionTokens: 1}}}
	// The second machine started 2.5 s later by its clock.
	b := &llmmetrics.Run{Header: &llmmetrics.RunHeader{Tool: "b", Start: t0.Add(2500 * time.Millisecond)},
		Records: []llmmetrics.Record{{ID: "r1", Sent: time.Second, Chunks: []time.Duration{100 * time.Millisecond}, CompletionTokens: 1}}}
	m, _ := llmmetrics.MergeRuns([]*llmmetrics.Run{a, b})
	for _, r := range m.Records {
		fmt.Println(r.ID, r.Sent)
	}
	s, _ := m.Summarize(llmmetrics.Options{})
	fmt.Println(s.Throughput.Window.Length) // 1 s → 3.5 s + 100 ms
	// Output:
	// 1/r1 1s
	// 2/r1 3.5s
	// 2.6s
}

// A request whose server sent no usage keeps its TTFT and E2E; its TPOT
// needs n and is absent with the reason.
func ExampleRecord_CountState() {
	r := llmmetrics.Record{ID: "r1", NoUsage: true, Chunks: []time.Duration{120 * time.Millisecond, 150 * time.Millisecond, 190 * time.Millisecond}}
	fmt.Println(r.Category(), r.CountState())
	ttft, _ := r.TTFT()
	fmt.Println(ttft)
	_, err := r.TPOT()
	fmt.Println(errors.Is(err, llmmetrics.ErrNoCount))
	// Output:
	// ok no_usage
	// 120ms
	// true
}

func ExampleCountState_String() {
	fmt.Println(llmmetrics.CountKnown, llmmetrics.CountBelowChunks)
	// Output: counted below_chunks
}

func ExampleUncounted_Total() {
	recs := []llmmetrics.Record{
		{ID: "a", Chunks: []time.Duration{100 * time.Millisecond, 140 * time.Millisecond}, CompletionTokens: 2},
		{ID: "b", Chunks: []time.Duration{90 * time.Millisecond, 130 * time.Millisecond}, NoUsage: true},
		{ID: "c", Chunks: []time.Duration{110 * time.Millisecond, 150 * time.Millisecond}, CompletionTokens: 1},
	}
	s, _ := llmmetrics.Summarize(recs, llmmetrics.Options{})
	u := s.Requests.Uncounted
	fmt.Println(s.Requests.OK, u.Total(), u.NoUsage, u.BelowChunks, s.TTFT.N)
	// Output: 3 2 1 1 3
}

func ExampleThroughput_LowerBound() {
	// Of two ok requests over one second, one reported no usage: the 10
	// tokens of the other are a lower bound of what the server sent.
	recs := []llmmetrics.Record{
		{ID: "a", Sent: 0, FirstText: 100 * time.Millisecond, LastText: time.Second, CompletionTokens: 10},
		{ID: "b", Sent: 0, FirstText: 100 * time.Millisecond, LastText: 900 * time.Millisecond, NoUsage: true},
	}
	s, _ := llmmetrics.Summarize(recs, llmmetrics.Options{})
	t := s.Throughput
	fmt.Println(t.LowerBound(), t.CountedRequests, t.Requests, t.OutputTokensPerSecond)
	// Output: true 1 2 10
}

func ExampleThroughput_PromptLowerBound() {
	// Of two ok requests over one second, one carries no prompt token
	// count: the 40 prompt tokens of the other are a lower bound.
	recs := []llmmetrics.Record{
		{ID: "a", Sent: 0, FirstText: 100 * time.Millisecond, LastText: time.Second, PromptTokens: 40, CompletionTokens: 10},
		{ID: "b", Sent: 0, FirstText: 100 * time.Millisecond, LastText: 900 * time.Millisecond, CompletionTokens: 10},
	}
	s, _ := llmmetrics.Summarize(recs, llmmetrics.Options{})
	t := s.Throughput
	fmt.Println(t.PromptLowerBound(), t.PromptCountedRequests, t.Requests, t.PromptTokensPerSecond)
	// Output: true 1 2 40
}

func ExampleSamples() {
	// Of four records, one failed, one was sent in the first second (the
	// warm-up asked for) and one repeats an id: one sample is left.
	recs := []llmmetrics.Record{
		{ID: "a", Sent: 0, FirstText: 90 * time.Millisecond, LastText: 200 * time.Millisecond, CompletionTokens: 3},
		{ID: "b", Sent: 2 * time.Second, FirstText: 120 * time.Millisecond, LastText: 300 * time.Millisecond, CompletionTokens: 3},
		{ID: "c", Sent: 3 * time.Second, Status: llmmetrics.StatusError},
		{ID: "b", Sent: 4 * time.Second, FirstText: 80 * time.Millisecond, LastText: 100 * time.Millisecond, CompletionTokens: 2},
	}
	samples, err := llmmetrics.Samples(recs, llmmetrics.Options{Lenient: true, Warmup: &llmmetrics.WarmupSpec{Duration: time.Second}})
	for _, r := range samples {
		ttft, _ := r.TTFT()
		fmt.Println(r.ID, r.Sent, ttft)
	}
	fmt.Println(err)
	// Output:
	// b 2s 120ms
	// <nil>
}

// A load generator writes its header, each record as it ends, and the end
// line last; a file cut before its end line, or inside a line, reads as
// truncated.
func ExampleRunEnd_WriteLine() {
	var b bytes.Buffer
	h := &llmmetrics.RunHeader{Tool: "loadgen", Start: time.Unix(0, 0).UTC(), Ends: true}
	h.WriteLine(&b)
	head := b.Len()
	llmmetrics.WriteJSONL(&b, []llmmetrics.Record{
		{ID: "1", Sent: 0, Chunks: []time.Duration{100 * time.Millisecond, 150 * time.Millisecond}, CompletionTokens: 2},
		{ID: "2", Status: llmmetrics.StatusCancelled, Message: "interrupted", Sent: time.Millisecond},
	})
	whole := b.Len()
	end := &llmmetrics.RunEnd{State: "interrupted", By: "SIGTERM", Planned: 100, Written: 2}
	end.WriteLine(&b)

	for _, file := range [][]byte{b.Bytes(), b.Bytes()[:whole], b.Bytes()[:whole-20], b.Bytes()[:head]} {
		run, err := llmmetrics.ReadJSONL(bytes.NewReader(file))
		if err != nil {
			fmt.Println(err)
			continue
		}
		s, err := run.Summarize(llmmetrics.Options{Lenient: true})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(s.Completeness.State+":", s.Completeness.Reason)
	}
	// Output:
	// interrupted: INTERRUPTED by SIGTERM: 2 requests of 100 planned written; the figures cover only these
	// truncated: TRUNCATED: the file stops before the end line its header promised (records read: 2); the writer stopped before the run ended, and the figures cover only what was written
	// truncated: TRUNCATED: the file ends inside line 3 (54 bytes of an unfinished record after record 1), before the end line its header promised; the writer stopped before the run ended, and the figures cover only the whole records written
	// llmmetrics: TRUNCATED: the file stops after its header, before any record and before the end line its header promised: the writer stopped before it wrote a request, and there is nothing to measure
}

// A file cut inside its first record has no figure, but says how it
// ended: truncated.
func ExampleRun_Completeness() {
	file := `{"llmmetrics_run":{"tool":"loadgen","start":"2026-01-01T00:00:00Z","ends":true}}` + "\n" + `{"id":"1","sent_ns":0,"chunk_arr`
	run, _ := llmmetrics.ReadJSONL(strings.NewReader(file))
	c := run.Completeness()
	fmt.Println(c.State, c.Read, c.Cut.Line)
	_, err := run.Summarize(llmmetrics.Options{})
	fmt.Println(errors.Is(err, llmmetrics.ErrNoRecords))
	fmt.Println(err)
	// Output:
	// truncated 0 2
	// true
	// llmmetrics: TRUNCATED: the file ends inside line 2 (32 bytes of an unfinished record), before any whole record: the writer stopped before it wrote a request, and there is nothing to measure
}

func ExampleMetrics() {
	// The opening trace of the first lesson: TTFT 120 ms, TPOT 36.25 ms,
	// E2E 265 ms, gaps 35, 37, 36 and 37 ms.
	s, _ := llmmetrics.Summarize([]llmmetrics.Record{openingTrace()}, llmmetrics.Options{})
	for _, m := range llmmetrics.Metrics() {
		if d := m.Distribution(s); d != nil {
			fmt.Printf("%-16s %s_%s: mean %v over %s\n", m.Label, m.Key, m.Unit, d.Mean, m.Over)
		} else {
			fmt.Printf("%-16s absent\n", m.Label)
		}
	}
	// Output:
	// TTFT             ttft_ms: mean 120ms over ok requests
	// TPOT             tpot_ms: mean 36.25ms over ok requests with n ≥ 2 and a usable count
	// E2E              e2e_ms: mean 265ms over ok requests
	// ITL              itl_ms: mean 36.25ms over the gaps between consecutive text chunks of ok requests, pooled
	// max gap/request  max_gap_ms: mean 37ms over ok requests with two or more chunk arrivals
	// TTFT from sched. absent
	// E2E from sched.  absent
}

func ExampleMetric_UnmarshalText() {
	var m llmmetrics.Metric
	err := m.UnmarshalText([]byte("max_gap"))
	fmt.Println(m.Name, m.Doc, err)
	fmt.Println(m.UnmarshalText([]byte("ttst")))
	// Output:
	// largest gap per request Record.MaxGap <nil>
	// llmmetrics: invalid option: unknown metric "ttst" (want ttft, tpot, e2e, itl, max_gap, ttft_from_scheduled or e2e_from_scheduled)
}

func ExampleMetric_MarshalText() {
	b, _ := json.Marshal(llmmetrics.Metrics()[:3])
	fmt.Println(string(b))
	// Output: ["ttft","tpot","e2e"]
}

func ExampleMetric_Distribution() {
	s, _ := llmmetrics.Summarize(cohort(), llmmetrics.Options{Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50)}})
	var m llmmetrics.Metric
	m.UnmarshalText([]byte("tpot"))
	d := m.Distribution(s)
	fmt.Println(d.N, d.Points[0].Value, d.Points[0].ID)
	// Output: 4 20ms A
}

func ExampleMetric_Value() {
	r := openingTrace()
	for _, m := range llmmetrics.Metrics() {
		v, err := m.Value(&r)
		if err != nil {
			fmt.Println(m.Key, "has no value per request")
			continue
		}
		fmt.Println(m.Key, v)
	}
	// Output:
	// ttft 120ms
	// tpot 36.25ms
	// e2e 265ms
	// itl has no value per request
	// max_gap 37ms
	// ttft_from_scheduled has no value per request
	// e2e_from_scheduled has no value per request
}

func ExampleMetric_Limit() {
	slo := llmmetrics.SLO{TTFT: 500 * time.Millisecond, TPOT: 50 * time.Millisecond}
	for _, m := range llmmetrics.Metrics() {
		if limit, ok := m.Limit(slo); ok {
			fmt.Printf("%s ≤ %v\n", m.Key, limit)
		}
	}
	// Output:
	// ttft ≤ 500ms
	// tpot ≤ 50ms
	// e2e ≤ 0s
	// max_gap ≤ 0s
}

// An attainment with requests left unjudged against a TPOT limit (no
// usable token count) is a lower bound: of 4 answers, 1 good, 2 without
// usage that met the TTFT limit and 1 too slow, it lies between 1/4 and
// (1 + 2)/4.
func ExampleGoodput_AttainmentUpper() {
	ms := time.Millisecond
	recs := []llmmetrics.Record{
		{ID: "a", Chunks: []time.Duration{100 * ms, 140 * ms}, CompletionTokens: 2},
		{ID: "b", Chunks: []time.Duration{100 * ms, 140 * ms}, NoUsage: true},
		{ID: "c", Chunks: []time.Duration{100 * ms, 140 * ms}, NoUsage: true},
		{ID: "d", Chunks: []time.Duration{900 * ms, 940 * ms}, CompletionTokens: 2},
	}
	s, _ := llmmetrics.Summarize(recs, llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: 500 * ms, TPOT: 50 * ms}})
	fmt.Println(s.Goodput.Attainment, s.Goodput.AttainmentUpper())
	// Output: 0.25 0.75
}
