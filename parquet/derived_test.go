package parquet

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/parquet-go/parquet-go"
)

// The derived columns hold the figures a notebook would compute, null
// where a figure does not exist.
func TestDerivedColumns(t *testing.T) {
	ms := time.Millisecond
	run := &llmmetrics.Run{Records: []llmmetrics.Record{
		// The seeds' four-token trace: chunks at 100, 120, 320, 340 ms.
		// TTFT 100 ms; E2E 340 ms; TPOT (340 − 100)/(4 − 1) = 80 ms; the
		// largest gap 320 − 120 = 200 ms.
		{ID: "four", Chunks: []time.Duration{100 * ms, 120 * ms, 320 * ms, 340 * ms}, CompletionTokens: 4},
		// One token: TTFT = E2E = 50 ms, no TPOT, no gap.
		{ID: "one", Sent: time.Second, FirstText: 50 * ms, LastText: 50 * ms, CompletionTokens: 1},
		{ID: "failed", Status: llmmetrics.StatusError, Message: "HTTP 500"},
		{ID: "zero"},
		{ID: "warm", Warmup: true, Chunks: []time.Duration{10 * ms, 30 * ms}, CompletionTokens: 2},
	}}
	type derived struct {
		ID       string `parquet:"id"`
		TTFTNS   *int64 `parquet:"ttft_ns,optional"`
		E2ENS    *int64 `parquet:"e2e_ns,optional"`
		TPOTNS   *int64 `parquet:"tpot_ns,optional"`
		MaxGapNS *int64 `parquet:"max_gap_ns,optional"`
		Outcome  string `parquet:"outcome"`
	}
	data := encode(t, run)
	got, err := parquet.Read[derived](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := []derived{
		{"four", i64(100e6), i64(340e6), i64(80e6), i64(200e6), "ok"},
		{"one", i64(50e6), i64(50e6), nil, nil, "ok"},
		{"failed", nil, nil, nil, nil, "failed"},
		{"zero", nil, nil, nil, nil, "zero_token"},
		{"warm", i64(10e6), i64(30e6), i64(20e6), i64(20e6), "warmup"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("derived columns:\n got %s\nwant %s", show(got), show(want))
	}
}

func show[T any](v []T) string {
	var b bytes.Buffer
	for _, x := range v {
		rv := reflect.ValueOf(x)
		b.WriteString("{")
		for i := range rv.NumField() {
			f := rv.Field(i)
			if f.Kind() == reflect.Pointer {
				if f.IsNil() {
					b.WriteString("null ")
				} else {
					b.WriteString(time.Duration(f.Elem().Int()).String() + " ")
				}
				continue
			}
			b.WriteString(f.String() + " ")
		}
		b.WriteString("} ")
	}
	return b.String()
}

// The columns and their types are the published schema's (doc.go), in
// its order.
func TestSchemaColumns(t *testing.T) {
	want := []string{
		"id required byte_array", "status required byte_array", "message optional byte_array",
		"sent_ns required int64", "first_text_ns optional int64", "last_text_ns optional int64",
		"chunk_arrivals_ns required group", "chunk_tokens required group",
		"prompt_tokens optional int64", "completion_tokens optional int64", "max_tokens optional int64",
		"warmup required boolean", "preflight required boolean",
		"scheduled_ns optional int64", "wait_ns optional int64", "first_answer_ns optional int64", "reasoning_tokens optional int64",
		"cached_prompt_tokens optional int64", "session optional byte_array", "turn optional int64",
		"one_body required boolean", "unfinished required boolean",
		"ttft_ns optional int64", "e2e_ns optional int64", "tpot_ns optional int64", "max_gap_ns optional int64",
		"outcome required byte_array", "sent_unix_ns optional int64",
	}
	fields := schema.Fields()
	if len(fields) != len(want) {
		t.Fatalf("%d columns, want %d", len(fields), len(want))
	}
	for i, f := range fields {
		if got := f.Name() + " " + describe(f); got != want[i] {
			t.Errorf("column %d: %s, want %s", i, got, want[i])
		}
	}
	list := schema.Fields()[6].Fields()[0]
	if list.Name() != "list" || list.Fields()[0].Name() != "element" || describe(list.Fields()[0]) != "required int64" {
		t.Errorf("chunk_arrivals_ns is not a three-level list of int64: %v", schema)
	}
}
