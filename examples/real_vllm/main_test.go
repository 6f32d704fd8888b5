package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The file's own summary is the independent source: vLLM wrote
// completed 64, request_throughput 100.45096314121066, mean_ttft_ms
// 19.854939765565405, p99_ttft_ms 22.316114539207774, mean_itl_ms
// 2.157895938232013 and p99_itl_ms 2.8998074995797656; the recomputed
// figures must print the same 12 significant digits.
func TestRun(t *testing.T) {
	path := defaultFile()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the shared real data are absent (%v)", err)
	}
	var b bytes.Buffer
	if err := run(&b, path); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"1. vllm file, written by vllm bench serve",
		"completed            64                   file: 64",
		"request_throughput   100.450963141        file: 100.450963141",
		"mean_ttft_ms         19.8549397656        file: 19.8549397656",
		"p99_ttft_ms          22.3161145392        file: 22.3161145392",
		"mean_itl_ms          2.15789593823        file: 2.15789593823",
		"p99_itl_ms           2.89980749958        file: 2.89980749958",
		"mean_tpot_ms", "approximate: the file stores no latency",
		"3. llmmetrics beside vLLM:", "why they differ:", "Clock boundary: in 64 of 64 ok requests",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
