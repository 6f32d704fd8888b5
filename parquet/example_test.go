package parquet_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
	"github.com/llmmetrics/llmmetrics/parquet"
)

func ExampleWrite() {
	run := &llmmetrics.Run{
		Header: &llmmetrics.RunHeader{Tool: "example", Model: "tiny"},
		Records: []llmmetrics.Record{
			{ID: "r1", Chunks: []time.Duration{120 * time.Millisecond, 160 * time.Millisecond}, CompletionTokens: 2},
			{ID: "r2", Status: llmmetrics.StatusError, Message: "HTTP 503"},
		},
	}
	var b bytes.Buffer
	if err := parquet.Write(&b, run); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(b.Bytes()[:4]))
	// Output: PAR1
}

func ExampleRead() {
	var b bytes.Buffer
	run := &llmmetrics.Run{Records: []llmmetrics.Record{
		{ID: "r1", Chunks: []time.Duration{120 * time.Millisecond, 160 * time.Millisecond}, CompletionTokens: 2},
	}}
	if err := parquet.Write(&b, run); err != nil {
		fmt.Println(err)
		return
	}
	got, err := parquet.Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}
	ttft, _ := got.Records[0].TTFT()
	fmt.Println(len(got.Records), ttft)
	// Output: 1 120ms
}

func ExampleReadOptions_Read() {
	data := []byte("PAR1 not a whole file PAR1")
	_, err := parquet.ReadOptions{Lenient: true}.Read(bytes.NewReader(data), int64(len(data)))
	fmt.Println(err)
	// Output: parquet: not a whole Parquet file: its footer says 543517801 bytes, more than the file's 26: truncated
}

// A Source reads a Parquet file a batch of rows at a time, once a pass,
// for bounded.SummarizeSources.
func ExampleNewSource() {
	var b bytes.Buffer
	run := &llmmetrics.Run{Records: []llmmetrics.Record{
		{ID: "r1", Chunks: []time.Duration{120 * time.Millisecond, 160 * time.Millisecond}, CompletionTokens: 2},
		{ID: "r2", Chunks: []time.Duration{90 * time.Millisecond, 130 * time.Millisecond}, CompletionTokens: 2},
	}}
	if err := parquet.Write(&b, run); err != nil {
		fmt.Println(err)
		return
	}
	src, err := parquet.NewSource(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _, err := bounded.SummarizeSources([]bounded.Source{src}, bounded.Options{}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.TTFT.N, s.TTFT.Mean)
	// Output: 2 105ms
}

func ExampleSource_Header() {
	var b bytes.Buffer
	run := &llmmetrics.Run{Header: &llmmetrics.RunHeader{Tool: "example", Model: "tiny"}}
	if err := parquet.Write(&b, run); err != nil {
		fmt.Println(err)
		return
	}
	src, err := parquet.NewSource(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := src.Header()
	fmt.Println(h.Model, err)
	// Output: tiny <nil>
}

func ExampleSource_Pass() {
	var b bytes.Buffer
	run := &llmmetrics.Run{
		End:     &llmmetrics.RunEnd{State: "completed", Written: 1, Planned: 1},
		Records: []llmmetrics.Record{{ID: "r1", Status: llmmetrics.StatusError, Message: "HTTP 503"}},
	}
	if err := parquet.Write(&b, run); err != nil {
		fmt.Println(err)
		return
	}
	src, err := parquet.NewSource(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}
	err = src.Pass(func(batch *llmmetrics.Run) error {
		fmt.Println(len(batch.Records), batch.End != nil)
		return nil
	})
	fmt.Println(err)
	// Output:
	// 1 true
	// <nil>
}
