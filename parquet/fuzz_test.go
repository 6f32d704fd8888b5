package parquet

import (
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// FuzzRead feeds the reader damaged files: each is read or refused with
// an error, never a panic; a file it reads writes back.
func FuzzRead(f *testing.F) {
	ms := time.Millisecond
	run := &llmmetrics.Run{
		Header: &llmmetrics.RunHeader{Tool: "fuzz", Load: map[string]string{"loop": "closed"}},
		End:    &llmmetrics.RunEnd{State: "completed", Written: 2},
		Records: []llmmetrics.Record{
			{ID: "a", Chunks: []time.Duration{100 * ms, 150 * ms}, ChunkTokens: []int32{1, 2}, CompletionTokens: 3, PromptTokens: 7},
			{ID: "b", Status: llmmetrics.StatusError, Message: "HTTP 500", Client: &llmmetrics.ClientSide{Wait: ms}},
		},
	}
	good := encode(f, run)
	f.Add(good)
	for _, n := range []int{0, 4, 12, len(good) / 3, len(good) / 2, len(good) - 9, len(good) - 1} {
		f.Add(good[:n])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decode(data)
		if err != nil {
			return
		}
		if len(data) < len(good) && string(data) == string(good[:len(data)]) {
			t.Fatalf("a file cut to %d of %d bytes was read", len(data), len(good))
		}
		if err := Write(new(discard), got); err != nil {
			t.Fatalf("a run read back does not write: %v", err)
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
