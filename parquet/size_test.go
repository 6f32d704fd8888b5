package parquet

import (
	"bytes"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// A benchmark run (as ../shared/bench/gen_records.py makes them: 2%
// failed, 1% without a token, 128 chunks a request) is at most a third of
// its JSONL as Parquet. Sizes do not depend on the machine.
func TestSizeAThirdOfJSONL(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	run := &llmmetrics.Run{Records: synth.Mixed(n, 128)}
	var j bytes.Buffer
	if err := llmmetrics.WriteJSONL(&j, run.Records); err != nil {
		t.Fatal(err)
	}
	p := encode(t, run)
	t.Logf("%d requests × 128 chunks: JSONL %d bytes, Parquet %d bytes (%.2f×)", n, j.Len(), len(p), float64(j.Len())/float64(len(p)))
	if 3*len(p) > j.Len() {
		t.Errorf("Parquet %d bytes is more than a third of the JSONL's %d", len(p), j.Len())
	}
}

// BenchmarkWrite and BenchmarkRead write and read 200,000 requests of 32
// chunks (go test -bench . -benchmem -run ^$).
func BenchmarkWrite(b *testing.B) {
	run := &llmmetrics.Run{Records: synth.Mixed(200000, 32)}
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		if err := Write(&buf, run); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(buf.Len()), "bytes/file")
	}
}

func BenchmarkRead(b *testing.B) {
	data := encode(b, &llmmetrics.Run{Records: synth.Mixed(200000, 32)})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
