package parquet

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// A benchmark run, as ../shared/bench/gen_records.py makes them (see
// benchRun), is at most a third of its JSONL as Parquet. Sizes do not
// depend on the machine. (gen_records.py's own run of 200,000 requests of
// 128 chunks is 3.08 times smaller; benchRun's of 20,000, 3.07.)
func TestSizeAThirdOfJSONL(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	run := benchRun(n, 128)
	var j bytes.Buffer
	if err := llmmetrics.WriteJSONL(&j, run.Records); err != nil {
		t.Fatal(err)
	}
	p := encode(t, run)
	t.Logf("%d requests × 128 chunks: JSONL %d bytes, Parquet %d bytes (%.3f×)", n, j.Len(), len(p), float64(j.Len())/float64(len(p)))
	if 3*len(p) > j.Len() {
		t.Errorf("Parquet %d bytes is more than a third of the JSONL's %d", len(p), j.Len())
	}
}

// benchRun returns n requests drawn as gen_records.py draws them: sent
// about 5 ms apart (exponential gaps); 2% failed and 1% ok without a
// token, with a prompt count and a completion count of 0; the rest with
// a first chunk after about 100 ms (lognormal, σ 0.35) and k-1 gaps of
// about 20 ms (gamma of shape 4), one in 200 stalled 300 ms longer, a
// fifth of them two tokens a chunk. (synth.Mixed's uniform gaps compress
// more: 3.10 times where gen_records.py's runs were 2.97.)
func benchRun(n, k int) *llmmetrics.Run {
	rng := rand.New(rand.NewPCG(1, 1))
	recs := make([]llmmetrics.Record, n)
	sent := 0.0
	for i := range recs {
		sent += rng.ExpFloat64() * 5e6
		r := llmmetrics.Record{ID: fmt.Sprint("r", i), Sent: time.Duration(sent), PromptTokens: 64 + rng.IntN(4032)}
		switch u := rng.Float64(); {
		case u < 0.02:
			r.Status = llmmetrics.StatusError
		case u < 0.03:
		default:
			r.Chunks = benchChunks(rng, k)
			r.CompletionTokens = k
			if rng.Float64() < 0.2 {
				r.CompletionTokens = 2 * k
			}
		}
		recs[i] = r
	}
	return &llmmetrics.Run{Records: recs}
}

// benchChunks returns k chunk arrivals as gen_records.py draws them.
func benchChunks(rng *rand.Rand, k int) []time.Duration {
	at := int64(math.Exp(math.Log(100e6) + 0.35*rng.NormFloat64()))
	chunks := make([]time.Duration, k)
	for j := range chunks {
		if j > 0 {
			gap := 0.0
			for range 4 {
				gap += rng.ExpFloat64() * 5e6
			}
			if rng.Float64() < 0.005 {
				gap += 300e6
			}
			at += int64(gap)
		}
		chunks[j] = time.Duration(at)
	}
	return chunks
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
