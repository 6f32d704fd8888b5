package parquet

import (
	"bytes"
	"testing"

	"github.com/llmmetrics/llmmetrics"
)

// encode writes run as Parquet and returns the file's bytes.
func encode(t testing.TB, run *llmmetrics.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, run); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b.Bytes()
}

// decode reads a Parquet file from its bytes.
func decode(data []byte) (*llmmetrics.Run, error) {
	return Read(bytes.NewReader(data), int64(len(data)))
}

// canonical returns a run as llmmetrics' JSONL: its header line (as
// its writer wrote it, without the end line's load facts), its records
// by WriteJSONL, and its end line.
func canonical(t testing.TB, run *llmmetrics.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if run.Header != nil {
		if err := written(run.Header, run.End).WriteLine(&b); err != nil {
			t.Fatal(err)
		}
	}
	if err := llmmetrics.WriteJSONL(&b, run.Records); err != nil {
		t.Fatal(err)
	}
	if run.End != nil {
		if err := run.End.WriteLine(&b); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}
