// Package formats reads the result files of other LLM benchmark tools into
// llmmetrics records, computes each tool's own summary from the per-request
// data as that tool would (its dialect), and explains where the tool's
// conventions differ from llmmetrics'.
//
// It is a separate package so that importers of the root package do not
// carry the readers of every other tool's files.
//
// # Files
//
//	tool            file                                   reader
//	vllm            --save-result [--save-detailed] JSON   ReadVLLM
//	sglang          bench_serving --output-file JSONL      ReadSGLang, ReadSGLangRuns
//	aiperf          profile_export.jsonl                   ReadAIPerf
//	genai-perf      perf_analyzer profile_export.json      ReadGenAIPerf
//	llmperf         *_individual_responses.json            ReadLLMPerf
//	guidellm        benchmarks.json                        ReadGuideLLM
//	inference-perf  stage_N_{lifecycle,prometheus}_metrics.json  Read, ReadStage
//
// An inference-perf stage report holds the tool's summary of a load
// stage, no requests: Read gives its figures as the file states them
// (Dialect.Stated), and a sweep takes them as a level's (ReadStage).
//
// What the package knows of each tool outside its reader — its names, how
// its files are detected and read, its dialect's choices, its settings,
// its summary file and the load a sweep takes from it — is one entry of
// one registry (tools.go), checked complete by a test.
//
// Read detects the tool from the content when it is not named, by the keys
// only that tool writes (never by string values), and recognises the tools'
// companion summary files (ErrSummaryFile, naming the file to pass
// instead). A reader refuses a wrong or truncated file with a *FieldError
// that names the tool, the request (its position, and its id where the file
// has one), the field and the byte offset or line; it never returns part of
// a file. Per-request arrays of different lengths are an error (ErrLength).
// Every reader skips a leading UTF-8 byte order mark, refuses anything but
// white space after its JSON document, and refuses times that are not
// finite or lie further than llmmetrics.MaxTime from their boundary, and
// counts that are not whole numbers in [0, llmmetrics.MaxCount]: a value
// that would overflow a figure is an error at input, never an infinity in
// the output.
//
// File.Records returns the requests as llmmetrics records. A request the
// importer cannot express (a GenAI-Perf request without usage, say) is set
// aside in the Run, and Records then returns the Run with an error wrapping
// llmmetrics.ErrRejected. A request that llmmetrics refuses (more chunks
// than tokens, from a tool that re-tokenized the text) is refused when the
// Run is summarized; the command sets such requests aside by default for
// other tools' files, since their users cannot fix them.
//
// Each File carries Notes: what the file cannot tell (vLLM stores no
// per-request latency; LLMPerf no chunk times and no send times; GenAI-Perf
// counts tokens with a tokenizer this package does not have) and the quirks
// found in it (a vLLM 0.22 chat client that stamped TTFT at a role-only
// chunk; chunks that carried several tokens; re-tokenized counts below the
// chunk count). They are carried into every report.
//
// # Dialects
//
// File.Dialect recomputes the tool's own summary from the per-request data
// with the tool's formulas — its percentile method, standard deviation,
// which requests count, its TPOT and ITL definitions and names, throughput
// denominators — under the tool's own keys and units. Each figure says
// whether the file's data determine it (then it agrees with the tool's to
// at least 9 significant digits, as the conformance tests check on the real
// files) or why not; Dialect.Why names the figures that cannot be rebuilt
// at all.
//
// # Comparison
//
// Compare summarizes the file's records under llmmetrics' conventions and
// puts them beside the tool's figures, row by row, with one sentence for
// each difference in convention that applies to the file: percentile
// method, weighting, clock boundaries, token or chunk counts, window,
// failures, standard deviation. Of a file that keeps only a sample of its
// requests (File.Sample), the tool's column holds the figures the file
// states, over every request (Comparison.Stated), since the tool's formulas
// applied to the sample would describe no run.
//
// Dialect options: DialectWith applies the choices a tool offers its user:
// vLLM's percentiles (--metric-percentiles) and goodput limits (--goodput),
// AIPerf's goodput limits. A choice the tool does not offer is an error
// wrapping ErrUnsupported.
//
// # Numbers
//
// The vLLM and SGLang reader parses numbers itself, for speed, and every
// number it reads is the float64 strconv.ParseFloat gives for the same
// text: up to 19 digits are gathered as an integer and scaled by an exact
// power of ten; when that is not provably correctly rounded, the residual
// is measured with a fused multiply-add and, in the rare undecided case,
// compared with the midpoint between two float64s in exact 128-bit integer
// arithmetic. So the medians and percentiles of the vLLM dialect equal, bit
// for bit, the figures vLLM wrote with numpy. The other readers use
// encoding/json.
package formats

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// Tool names a benchmark tool whose files this package reads.
type Tool string

const (
	VLLM      Tool = "vllm"       // vLLM's serving benchmark: benchmark_serving.py and vllm bench serve
	AIPerf    Tool = "aiperf"     // NVIDIA AIPerf: profile_export.jsonl
	LLMPerf   Tool = "llmperf"    // Ray LLMPerf: *_individual_responses.json
	SGLang    Tool = "sglang"     // SGLang bench_serving: --output-file JSONL
	GuideLLM  Tool = "guidellm"   // GuideLLM: benchmarks.json
	GenAIPerf Tool = "genai-perf" // NVIDIA GenAI-Perf / perf_analyzer: profile_export.json
)

// Sentinel errors of this package. Errors about a file wrap one of these
// (or a sentinel of the llmmetrics package) in a *FieldError.
var (
	// ErrFormat means the input is not a file of the format asked for, or
	// of any known format when detecting.
	ErrFormat = errors.New("formats: not a known result file")
	// ErrLength means per-request arrays of one file have different lengths.
	ErrLength = errors.New("formats: per-request arrays of different lengths")
	// ErrNoRecords means a summary-only file was asked for per-request
	// records.
	ErrNoRecords = errors.New("formats: the file holds a summary only, no per-request data")
	// ErrSummaryFile means a tool's summary file, written beside its
	// per-request file, was given where the per-request file is read.
	ErrSummaryFile = errors.New("formats: a summary file, not a per-request file")
)

// A FieldError reports a problem with one field of a file: the format, the
// request it belongs to (its position, and its id where the file has one),
// the field (a JSON key, or a path such as key[index]), the byte offset or
// line where known, and the error.
type FieldError struct {
	Tool    Tool
	Request int    // the request's position in the file, from 1; 0 when the error is not about one request
	ID      string // the request's id, where the file has one
	Field   string
	Offset  int // byte offset, or -1
	Line    int // line number (from 1), or 0
	Err     error
}

func (e *FieldError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "formats: %s file", e.Tool)
	switch {
	case e.Line > 0:
		fmt.Fprintf(&b, ", line %d", e.Line)
	case e.Offset >= 0:
		fmt.Fprintf(&b, ", byte %d", e.Offset)
	}
	if e.Request > 0 {
		fmt.Fprintf(&b, ", request %d", e.Request)
	}
	if e.ID != "" {
		fmt.Fprintf(&b, " (id %q)", e.ID)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ", field %s", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(strings.TrimPrefix(e.Err.Error(), "llmmetrics: "))
	return b.String()
}

func (e *FieldError) Unwrap() error { return e.Err }

// A Figure is one summary figure, under the key a tool writes it.
type Figure struct {
	Key   string
	Value float64
}

// A File is a result file read into memory: the records under llmmetrics'
// conventions, the file's own summary figures, and what the file cannot
// tell.
type File struct {
	Tool   Tool
	Layout string // which version or mode of the tool wrote it

	// Window is the throughput window the file implies, when its records
	// carry no send times (0 when they do: derive it from the records).
	Window time.Duration
	// NoSendTimes is true when the file stores no send times: without a
	// Window it implies none, and rates need a declared window (see
	// llmmetrics.Options). Records gives both to the Run it returns.
	NoSendTimes bool
	// Benchmark is the position of this benchmark among the Benchmarks of
	// its file, from 1: a GuideLLM file can hold several (see ReadAll);
	// every other file holds one.
	Benchmark, Benchmarks int
	// Strategy is how the tool says it scheduled the requests, where it
	// says ("constant at 4 requests/s"), for people; see Load.
	Strategy string
	// Sample is set when the file keeps only some of the run's requests
	// (GuideLLM's request_samples): its Summary covers them all, its
	// records only the sample. nil when the records are the whole run.
	Sample *Sample
	// Summary holds the figures the file itself reports, in file order.
	Summary []Figure
	// Notes says what the file cannot tell and which quirks were found, in
	// sentences for people.
	Notes []string

	load        *Load // the load the file states, nil for none
	dialect     func() (*Dialect, error)
	dialectWith func(DialectOptions) (*Dialect, error) // nil when the tool offers no choice
	records     func() *llmmetrics.Run
	compare     func(*Comparison) error
}

// A Load is the load a benchmark was taken at, as its file states it: a
// concurrency (closed loop) or a rate of arrivals in requests a second.
type Load struct {
	Kind  string // "concurrency" or "rate"
	Level float64
}

// Load returns the load the file states: GuideLLM's strategy (synchronous
// is concurrency 1, concurrent its streams, constant and poisson their
// rate; throughput states none), vLLM's max_concurrency or else a finite
// request_rate. ok is false when the file states none.
func (f *File) Load() (l Load, ok bool) {
	if f.load == nil {
		return Load{}, false
	}
	return *f.load, true
}

// Records returns one record per request of the file, under llmmetrics'
// conventions, built on each call, with the file's Window and NoSendTimes
// (which Run.Summarize applies). A request the importer had to set aside
// is in Run.Rejected, and Records then returns the Run with Run.Err, which
// wraps llmmetrics.ErrRejected; Run.Summarize counts it. It returns
// ErrNoRecords for a file that holds a summary only.
func (f *File) Records() (*llmmetrics.Run, error) {
	if f.records == nil {
		return nil, fmt.Errorf("%w (%s)", ErrNoRecords, f.Tool)
	}
	run := f.records()
	run.Window, run.NoSendTimes = f.Window, f.NoSendTimes
	return run, run.Err()
}

// Dialect computes the tool's own summary from the file's per-request data,
// with the tool's formulas.
func (f *File) Dialect() (*Dialect, error) {
	if f.dialect == nil {
		return nil, fmt.Errorf("%w (%s)", ErrNoRecords, f.Tool)
	}
	return f.dialect()
}

// IsSetting reports whether a key of a tool's summary is a setting of the
// run (the number of prompts, the request rate) rather than a figure
// computed from its data.
func IsSetting(tool Tool, key string) bool {
	d := toolOf(tool)
	return d != nil && slices.Contains(d.settings, key)
}

// A Dialect is a tool's summary of a file, computed by this package from the
// per-request data with the tool's own formulas. Each figure carries whether
// the file's data determine it exactly, and if not, why.
type Dialect struct {
	Tool Tool
	// Stated is true when the figures are the file's own, as the tool
	// wrote them, since its file holds no per-request data to recompute
	// them from (inference-perf's stage reports).
	Stated  bool
	Figures []DialectFigure
	Rules   []string // the tool's conventions, in sentences
	// Missing names the figures the tool reports that its per-request data
	// cannot reproduce, with the reason.
	Missing map[string]string
}

// A DialectFigure is one figure of a dialect. Approx says why the figure may
// differ from the tool's own beyond float rounding (empty when the
// per-request data determine it).
type DialectFigure struct {
	Figure
	Approx string
}

// Why returns why the tool's figure with the key cannot be reproduced, if
// it cannot: Missing holds either the key or its metric (the part before
// the first dot).
func (d *Dialect) Why(key string) (string, bool) {
	if why, ok := d.Missing[key]; ok {
		return why, true
	}
	metric, _, _ := strings.Cut(key, ".")
	why, ok := d.Missing[metric]
	return why, ok
}

// Lookup returns the value of the figure with the key.
func (d *Dialect) Lookup(key string) (float64, bool) {
	for _, f := range d.Figures {
		if f.Key == key {
			return f.Value, true
		}
	}
	return 0, false
}
