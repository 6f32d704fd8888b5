package formats

import (
	"io"
	"os"
	"strings"
)

// This file is the registry of the tools whose files this package reads:
// everything the package knows of a tool outside its reader's own file,
// one entry per tool. A tool's reader (its file, named for the tool) gives
// each File its records, its dialect and its comparison; the entry here
// gives its names, how its files are told apart and read, what its dialect
// lets its user choose, which of its keys are settings, and the summary
// file it writes beside its per-request file, with the load a sweep takes
// from it. Adding a tool is one entry here and one reader;
// TestToolsComplete checks that every entry is complete.

// A toolDef is one tool of the registry.
type toolDef struct {
	tool Tool
	name string // as its authors write it: "vLLM", "GenAI-Perf"
	// detect tells from the object keys of the head of a file, and its
	// first byte ('{' or '['), whether the tool wrote it: by keys only it
	// writes, never by values.
	detect func(keys map[string]bool, top byte) bool
	// read reads a file of the tool, or its first benchmark where it holds
	// several; readAll reads every benchmark, in file order, or is nil
	// when the tool's files hold one.
	read    func(io.Reader) (*File, error)
	readAll func(io.Reader) ([]*File, error)
	// choices says what the tool's own summary lets its user choose, for
	// DialectWith to say so when it refuses a choice.
	choices string
	// settings are the keys of the tool's summary that are settings of
	// the run (the number of prompts, the request rate), not figures
	// computed from its data.
	settings []string
	// summary is the summary file the tool writes beside its per-request
	// file, or nil when it writes its summary inside its result file.
	summary *summaryFile
}

// A summaryFile is a tool's summary file, written beside its per-request
// file.
type summaryFile struct {
	// detect tells it from its head, as toolDef.detect does, or is nil
	// when its keys are not the tool's alone.
	detect func(keys map[string]bool, top byte) bool
	// instead says which file to read instead.
	instead string
	// read reads its figures, under the keys of the tool's dialect.
	read func(io.Reader) ([]Figure, error)
	// records and beside are the ends of the names of the per-request file
	// and of the summary file beside it ("profile_export.jsonl" and
	// "profile_export_aiperf.json"), empty when the names vary; load
	// reads the load the summary file states, nil when it states none.
	records, beside string
	load            func(io.Reader) (Load, bool, error)
}

// tools is the registry, in the order the tools are listed to people and
// tried by Detect. Each tool's detect matches no other tool's files (see
// TestToolsComplete), so the order decides only for content made to match
// several.
// It is set by init, since the readers it names look their tool up in it.
var tools []*toolDef

func init() {
	tools = []*toolDef{
		{
			tool: VLLM, name: "vLLM",
			detect: func(k map[string]bool, top byte) bool {
				return top == '{' && !isSGLang(k) && (k["ttfts"] || k["duration"] && k["completed"] && k["request_throughput"])
			},
			read:    ReadVLLM,
			choices: "it lets its user choose its percentiles (--metric-percentiles) and its goodput limits (--goodput)",
			settings: []string{"num_prompts", "request_rate", "burstiness", "max_concurrency", "rtfx",
				"ramp_up_start_rps", "ramp_up_end_rps"},
		},
		{
			tool: SGLang, name: "SGLang",
			detect:  func(k map[string]bool, top byte) bool { return top == '{' && isSGLang(k) },
			read:    ReadSGLang,
			choices: "it reports p90, p95 and p99 (and the median) always, and has no goodput",
		},
		{
			tool: AIPerf, name: "AIPerf",
			detect: func(k map[string]bool, top byte) bool {
				return top == '{' && k["metadata"] && k["metrics"] && (k["request_latency"] || k["error_request_count"] || k["x_request_id"])
			},
			read:    ReadAIPerf,
			choices: "it reports p1, p5, p10, p25, p50, p75, p90, p95 and p99 always",
			summary: &summaryFile{
				detect:  func(k map[string]bool, top byte) bool { return top == '{' && k["records"] && k["tag"] && k["avg"] },
				instead: "this is AIPerf's summary file (profile_export_aiperf.json); pass its per-record file, profile_export.jsonl, which holds the requests",
				read:    readAIPerfSummary,
				records: "profile_export.jsonl", beside: "profile_export_aiperf.json",
				load: readAIPerfLoad,
			},
		},
		{
			tool: GenAIPerf, name: "GenAI-Perf",
			detect: func(k map[string]bool, top byte) bool {
				return top == '{' && k["experiments"] && k["response_timestamps"]
			},
			read:    ReadGenAIPerf,
			choices: "it reports p1, p5, p10, p25, p50, p75, p90, p95 and p99 always; its goodput is not in the profile export",
			summary: &summaryFile{
				read:    readGenAIPerfSummary,
				records: "profile_export.json", beside: "profile_export_genai_perf.json",
			},
		},
		{
			tool: LLMPerf, name: "LLMPerf",
			detect:  func(k map[string]bool, top byte) bool { return top == '[' && k["end_to_end_latency_s"] },
			read:    ReadLLMPerf,
			choices: "it reports the quantiles p25, p50, p75, p90, p95 and p99 always, and has no goodput",
			settings: []string{"mean_input_tokens", "stddev_input_tokens", "mean_output_tokens",
				"stddev_output_tokens", "num_concurrent_requests", "timestamp"},
			summary: &summaryFile{
				detect: func(k map[string]bool, top byte) bool {
					return top == '{' && (k["num_concurrent_requests"] && k["results_ttft_s_mean"] || k["results_num_completed_requests"])
				},
				instead: "this is LLMPerf's summary file (*_summary.json); pass its per-request file, *_individual_responses.json, which holds the requests",
				read:    readLLMPerfSummary,
				records: "_individual_responses.json", beside: "_summary.json",
			},
		},
		{
			tool: GuideLLM, name: "GuideLLM",
			detect: func(k map[string]bool, top byte) bool {
				return top == '{' && k["benchmarks"] && (k["request_totals"] || k["successful"])
			},
			read:    ReadGuideLLM,
			readAll: func(r io.Reader) ([]*File, error) { return readGuideLLM(r, 0) },
			choices: "it reports its fixed percentile set (p0.1 to p99.9) always, and has no goodput",
		},
		{
			tool: InferencePerf, name: "inference-perf",
			detect:  func(k map[string]bool, top byte) bool { return top == '{' && k["load_summary"] && k["successes"] },
			read:    readInferencePerf,
			choices: "it states its figures in its stage reports, which hold no per-request data to recompute them with other choices",
		},
	}
	Tools = toolNames()
}

// isSGLang reports whether the keys are those only SGLang's bench_serving
// writes, beside the keys it shares with vLLM's.
func isSGLang(k map[string]bool) bool {
	return k["total_output_tokens_retokenized"] || k["mean_e2e_latency_ms"] || k["median_e2e_latency_ms"]
}

// toolOf returns the registry's entry of a tool, or nil.
func toolOf(t Tool) *toolDef {
	for _, d := range tools {
		if d.tool == t {
			return d
		}
	}
	return nil
}

// toolNames returns the tools of the registry, in its order.
func toolNames() []Tool {
	ts := make([]Tool, len(tools))
	for i, d := range tools {
		ts[i] = d.tool
	}
	return ts
}

// Name returns the tool's name as its authors write it ("GenAI-Perf",
// "inference-perf"), for a sentence; the Tool itself is the name a flag
// takes.
func (t Tool) Name() string { return toolName(t) }

// toolName is the tool's name as its authors write it.
func toolName(t Tool) string {
	if d := toolOf(t); d != nil {
		return d.name
	}
	return string(t)
}

// LoadBeside returns the load of the file at path, as a sweep takes it:
// the load the file states (see Load), or else the load stated by the
// summary file its tool writes beside it, where the tool keeps its run's
// settings there (AIPerf's profile_export_aiperf.json beside its
// profile_export.jsonl). ok is false when neither states one.
func (f *File) LoadBeside(path string) (l Load, ok bool) {
	if l, ok := f.Load(); ok {
		return l, true
	}
	d := toolOf(f.Tool)
	if d == nil || d.summary == nil || d.summary.load == nil || !strings.HasSuffix(path, d.summary.records) {
		return Load{}, false
	}
	sf, err := os.Open(strings.TrimSuffix(path, d.summary.records) + d.summary.beside)
	if err != nil {
		return Load{}, false
	}
	defer sf.Close()
	l, ok, err = d.summary.load(sf)
	return l, ok && err == nil
}
