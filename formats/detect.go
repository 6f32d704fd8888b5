package formats

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// Tools lists the tools whose files this package reads.
var Tools = []Tool{VLLM, SGLang, AIPerf, GenAIPerf, LLMPerf, GuideLLM}

// ParseTool returns the tool of a name as written by the CLI's --from flag.
func ParseTool(name string) (Tool, error) {
	for _, t := range Tools {
		if string(t) == name {
			return t, nil
		}
	}
	return "", fmt.Errorf("%w: unknown tool %q (want one of %v)", ErrFormat, name, Tools)
}

// Detect tells which tool wrote a file from the first bytes of its content,
// by the keys only that tool writes. It returns false for content of no
// known tool (such as llmmetrics' own CSV and JSONL).
func Detect(head []byte) (Tool, bool) {
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(head) > 0 && head[0] == '[' && bytes.Contains(head, []byte(`"end_to_end_latency_s"`)) {
		return LLMPerf, true
	}
	if len(head) == 0 || head[0] != '{' {
		return "", false
	}
	has := func(key string) bool { return bytes.Contains(head, []byte(`"`+key+`"`)) }
	switch {
	case has("experiments") && has("response_timestamps"):
		return GenAIPerf, true
	case has("benchmarks") && (has("request_totals") || has("successful")):
		return GuideLLM, true
	case has("total_output_tokens_retokenized") || has("mean_e2e_latency_ms") || has("median_e2e_latency_ms"):
		return SGLang, true
	case has("ttfts") || (has("duration") && has("completed") && has("request_throughput")):
		return VLLM, true
	case has("metadata") && has("metrics") && (has("request_latency") || has("error_request_count") || has("x_request_id")):
		return AIPerf, true
	}
	return "", false
}

// Read reads a file of the tool; with tool "", the tool is detected from the
// content.
func Read(r io.Reader, tool Tool) (*File, error) {
	if tool == "" {
		var head []byte
		r, head = Peek(r)
		t, ok := Detect(head)
		if !ok {
			return nil, fmt.Errorf("%w: the content matches no tool this package reads (%v)", ErrFormat, Tools)
		}
		tool = t
	}
	switch tool {
	case VLLM:
		return ReadVLLM(r)
	case SGLang:
		return ReadSGLang(r)
	case AIPerf:
		return ReadAIPerf(r)
	case LLMPerf:
		return ReadLLMPerf(r)
	case GuideLLM:
		return ReadGuideLLM(r)
	case GenAIPerf:
		return ReadGenAIPerf(r)
	}
	return nil, fmt.Errorf("%w: unknown tool %q", ErrFormat, tool)
}

// Peek returns the first bytes of r (up to 64 KiB), for Detect, and a
// reader that still yields them. A regular file is peeked at without moving
// its offset, so that an importer can still map or read it whole.
func Peek(r io.Reader) (io.Reader, []byte) {
	const size = 1 << 16
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			off, _ := f.Seek(0, io.SeekCurrent)
			head := make([]byte, size)
			n, _ := f.ReadAt(head, off)
			return f, head[:n]
		}
	}
	br := bufio.NewReaderSize(r, size)
	head, _ := br.Peek(size)
	return br, head
}

// ReadSummary reads a tool's own summary file, where the tool writes its
// summary apart from the per-request data: AIPerf's
// profile_export_aiperf.json, LLMPerf's *_summary.json. Its figures use
// the keys of the tool's dialect.
func ReadSummary(tool Tool, r io.Reader) ([]Figure, error) {
	switch tool {
	case AIPerf:
		return readAIPerfSummary(r)
	case LLMPerf:
		return readLLMPerfSummary(r)
	case GenAIPerf:
		return readGenAIPerfSummary(r)
	}
	return nil, fmt.Errorf("%w: %s writes its summary inside its result file", ErrFormat, tool)
}
