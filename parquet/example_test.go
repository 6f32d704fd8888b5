package parquet_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics"
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
