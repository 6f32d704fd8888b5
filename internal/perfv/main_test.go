package perfv

import (
	"os"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics/formats"
)

func TestPerf(t *testing.T) {
	for range 3 {
		t0 := time.Now()
		f, _ := os.Open("/tmp/big.json")
		file, err := formats.Read(f, "vllm")
		if err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		if _, err := file.Dialect(); err != nil {
			t.Fatal(err)
		}
		t.Log("read", t1.Sub(t0), "dialect", time.Since(t1))
		f.Close()
	}
}
