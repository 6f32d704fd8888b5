package conformance_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/conformance"
)

// myTTFT is a tool under test: it stamps TTFT at the first streamed event
// of any kind, as a client that does not look inside the deltas would.
func myTTFT(c conformance.Case) (conformance.Figures, error) {
	f := conformance.Figures{}
	for _, r := range c.Requests {
		name := "request." + r.ID + ".ttft_ms"
		if r.Status != "ok" || len(r.Events) == 0 {
			f[name] = conformance.Absent
			continue
		}
		f[name] = conformance.Num(float64(r.Events[0].At-r.Sent) / 1e6)
	}
	return f, nil
}

// A tool's author runs every case through the tool's own computation
// inside go test; each disagreement is a test error naming the case, the
// figure, the trap and the specification's section.
func ExampleCheck() {
	// In a file of the tool's tests:
	//
	//	func TestConformance(t *testing.T) { conformance.Check(t, myTTFT) }
	var _ func(*testing.T) = func(t *testing.T) { conformance.Check(t, myTTFT) }
}

// Run gives each case's result; Explain says what a disagreement is.
func ExampleRun() {
	for _, r := range conformance.Run(myTTFT) {
		if r.Case.ID == "trap-role-only-first-chunk" {
			fmt.Println(conformance.Explain(r))
		}
	}
	// Output:
	// case trap-role-only-first-chunk
	// 	request.chat.ttft_ms: got 40, want 100
	// 	trap: TTFT stamped at a role-only first delta, which carries no output text.
	// 	specification: Serving Workloads §2.1 TTFT (first chunk that contains output text)
	// 	arithmetic: role delta at 40 ms is not text; first text at 100: TTFT 100; last text 160: E2E 160; TPOT 60/2 = 30
}

// Cases are plain data: requests with every stream event, options and
// the expected figures.
func ExampleCases() {
	for _, c := range conformance.Cases() {
		if c.ID == "seed-four-token-trace" {
			r := c.Requests[0]
			fmt.Println(c.Options.Method, c.Options.Percentiles, len(r.Events), "events,", *r.CompletionTokens, "tokens")
			fmt.Println("TPOT", c.Expected["request.four.tpot_ms"], "ms; largest gap", c.Expected["request.four.max_gap_ms"], "ms")
		}
	}
	// Output:
	// nearest-rank [50 99] 4 events, 4 tokens
	// TPOT 80 ms; largest gap 200 ms
}

// The library is itself a Tool.
func ExampleLibrary() {
	for _, c := range conformance.Cases() {
		if c.ID == "seed-averaging" {
			f, err := conformance.Library(c)
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println("request-weighted", f["tpot_ms.mean"], "gap-weighted", f["tpot_ms.gap_weighted_mean"])
		}
	}
	// Output:
	// request-weighted 30 gap-weighted 10.4
}

// Compare and Agree judge figures within their tolerance; an absent
// figure agrees only with absent.
func ExampleCompare() {
	want := conformance.Figures{"tpot_ms.mean": conformance.Absent, "ttft_ms.p50": conformance.Num(100), "requests.ok": conformance.Num(3)}
	got := conformance.Figures{"tpot_ms.mean": conformance.Num(0), "ttft_ms.p50": conformance.Num(100.0000004)}
	differ, missing := conformance.Compare(want, got)
	fmt.Println(differ, missing)
	// Output:
	// [tpot_ms.mean: got 0, want absent] [requests.ok: not answered (want 3)]
}

// A tool in another language writes its answers, one JSON object a case;
// CheckAnswers and WriteReport judge them (this is what `llmmetrics
// conformance check` does).
func ExampleCheckAnswers() {
	answers, err := conformance.ReadAnswers(strings.NewReader(
		`{"case": "trap-tpot-n", "figures": {"request.t.tpot_ms": 40, "tpot_ms.mean": 40, "tpot_ms.p50": 40}}` + "\n" +
			`{"case": "edge-ties", "figures": {"ttft_ms.p50": 100, "ttft_ms.p75": 100, "ttft_ms.p99": 200}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	results, err := conformance.CheckAnswers(answers)
	if err != nil {
		fmt.Println(err)
		return
	}
	var answered []conformance.Result
	for _, r := range results {
		if r.Answered {
			answered = append(answered, r)
		}
	}
	bad, _ := conformance.WriteReport(os.Stdout, answered)
	fmt.Println(bad, "differ")
	// Output:
	// differ        trap-tpot-n
	//     request.t.tpot_ms: got 40, want 50
	//     tpot_ms.mean: got 40, want 50
	//     tpot_ms.p50: got 40, want 50
	//     trap: TPOT dividing the decode time by n instead of the n − 1 gaps.
	//     specification: Serving Workloads §2.2 ITL and TPOT
	//     arithmetic: 5 tokens, first 100, last 300: TPOT 200/4 = 50 (not 200/5 = 40)
	// agree         edge-ties (3 of 4 figures given)
	// conformance 3: 1 agree, 1 differ or refused, 0 not answered or compared, of 2 cases
	// 1 differ
}

// Export writes the cases for tools in any language.
func ExampleExport() {
	dir, err := os.MkdirTemp("", "conformance")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := conformance.Export(dir); err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"cases.json", "cases.csv", "requests.csv", "expected.csv", "jsonl/seed-opening-trace.jsonl"} {
		_, err := os.Stat(dir + "/" + name)
		fmt.Println(name, err == nil)
	}
	// Output:
	// cases.json true
	// cases.csv true
	// requests.csv true
	// expected.csv true
	// jsonl/seed-opening-trace.jsonl true
}

// A percentile's key in a figure's name.
func ExamplePercentileKey() {
	fmt.Println(conformance.PercentileKey(50), conformance.PercentileKey(99.9))
	// Output: p50 p99.9
}

// Only text events are text chunks: a role delta, the usage frame and
// [DONE] are not.
func ExampleRequest_TextTimes() {
	for _, c := range conformance.Cases() {
		if c.ID == "trap-role-only-first-chunk" {
			r := c.Requests[0]
			fmt.Println(len(r.Events), "events,", r.TextTimes())
		}
	}
	// Output: 6 events, [100ms 130ms 160ms]
}

// A request as the library's record: its text chunks from the send, and
// the client's wait before it.
func ExampleRequest_Record() {
	for _, c := range conformance.Cases() {
		if c.ID == "trap-ttft-from-connection" {
			rec, err := c.Requests[0].Record()
			if err != nil {
				fmt.Println(err)
				return
			}
			ttft, _ := rec.TTFT()
			fmt.Println("sent", rec.Sent, "after a wait of", rec.Client.Wait, "; TTFT", ttft)
		}
	}
	// Output: sent 80ms after a wait of 80ms ; TTFT 120ms
}

// Agree compares one figure within its tolerance: 1 ns for milliseconds,
// exactly for counts.
func ExampleAgree() {
	fmt.Println(conformance.Agree("ttft_ms.p50", conformance.Num(120), conformance.Num(120.0000004)))
	fmt.Println(conformance.Agree("requests.ok", conformance.Num(3), conformance.Num(2)))
	fmt.Println(conformance.Agree("tpot_ms.mean", conformance.Absent, conformance.Num(0)))
	// Output:
	// true
	// false
	// false
}
