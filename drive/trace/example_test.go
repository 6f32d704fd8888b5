package trace_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llmmetrics/llmmetrics/drive/trace"
)

func ExampleRead() {
	tr, err := trace.Read("testdata/azure.csv", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tr.Format, len(tr.Rows), tr.Rows[1].At, tr.Rows[1].Prompt, tr.Rows[1].Output)
	// Output: azure 4 52ms 3180 8
}

// A bad row stops reading, named by file, line and field.
func ExampleReadFrom() {
	in := `{"timestamp": 0, "input_length": 1024, "output_length": 10}
{"timestamp": 3000, "input_length": 512, "output_length": 0}
`
	_, err := trace.ReadFrom(strings.NewReader(in), "trace.jsonl", "")
	fmt.Println(err)
	fmt.Println(errors.Is(err, trace.ErrZero))
	// Output:
	// trace.jsonl:2: output_length "0": a length of zero: every request has a prompt and an output
	// true
}

func ExampleParseFormat() {
	f, err := trace.ParseFormat("mooncake")
	fmt.Println(f, err)
	// Output: mooncake <nil>
}

// A window of BurstGPT's rows from 40 s, twice as fast, prompts capped
// at 1,000 tokens.
func ExampleTrace_Replay() {
	tr, _ := trace.Read("testdata/burstgpt.csv", "")
	r, err := tr.Replay(trace.Options{From: 40e9, Speed: 2, MaxPrompt: 1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range r.Requests {
		fmt.Println(q.Scheduled, q.PromptTokens, q.MaxTokens, q.Source)
	}
	fmt.Println(r.CappedPrompt, "capped")
	// Output:
	// 0s 1000 130 burstgpt.csv:3
	// 0s 212 43 burstgpt.csv:4
	// 36.625s 93 260 burstgpt.csv:5
	// 1 capped
}

// Three requests over 36.625 s as sent: 2 gaps in 36.625 s.
func ExampleReplay_MeanRate() {
	tr, _ := trace.Read("testdata/burstgpt.csv", "")
	r, _ := tr.Replay(trace.Options{From: 40e9, Speed: 2})
	fmt.Printf("%.4f\n", r.MeanRate())
	// Output: 0.0546
}

func ExampleError_Error() {
	err := &trace.Error{File: "conv.csv", Line: 12, Field: "ContextTokens", Value: "12x", Err: trace.ErrNotNumber}
	fmt.Println(err)
	// Output: conv.csv:12: ContextTokens "12x": not a number
}

func ExampleDetectFormat() {
	f, ok := trace.DetectFormat([]byte(`{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1]}` + "\n"))
	fmt.Println(f, ok)
	_, ok = trace.DetectFormat([]byte("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n"))
	fmt.Println(ok)
	// Output:
	// mooncake true
	// false
}
