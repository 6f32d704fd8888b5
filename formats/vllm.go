package formats

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/lineio"
)

// serveFile is a serving-benchmark result of vLLM (--save-result, with or
// without --save-detailed) or of SGLang, whose bench_serving derives from
// vLLM's and writes the same per-request arrays (--output-details): arrays
// in seconds, and the summary the tool computed.
type serveFile struct {
	tool       Tool
	duration   float64
	ttfts      []float64
	itls       [][]float64 // each request's gaps
	inputLens  []float64
	outputLens []float64
	errors     []string
	startTimes []float64 // nil when the file has none
	latencies  []float64 // nil when the file has none
	summary    []Figure
	hasSummary map[string]bool
	meta       map[string]string
	end        int // the offset where scan stopped, which later errors name
}

// The per-request arrays of a vLLM file, required unless noted.
var vllmArrays = []string{"ttfts", "itls", "input_lens", "output_lens", "errors"}

// ReadVLLM reads a result file of vLLM's serving benchmark, from the old
// benchmarks/benchmark_serving.py or from vllm bench serve, with
// --save-detailed (the per-request arrays are needed for records; a file
// without them is read as a summary only).
//
// The input is held in memory once (a regular file is mapped, not copied),
// and the arrays are parsed straight into slices of float64; the importer
// keeps no reference to the input.
func ReadVLLM(r io.Reader) (*File, error) {
	b, release, err := load(r)
	if err != nil {
		return nil, &FieldError{Tool: VLLM, Offset: -1, Err: err}
	}
	defer release()
	return parseServe(b, VLLM)
}

func parseServe(b []byte, tool Tool) (*File, error) {
	v := &serveFile{tool: tool, hasSummary: map[string]bool{}, meta: map[string]string{}}
	seen, ferr := v.scan(b)
	if ferr == nil {
		ferr = v.checkDuration(seen)
	}
	if ferr != nil {
		return nil, ferr
	}
	f := &File{Tool: tool, Summary: v.summary, load: v.load(), Layout: v.layout()}
	detailed, ferr := v.detailed(seen)
	if ferr == nil && detailed {
		ferr = v.checkArrays()
	}
	switch {
	case ferr != nil:
		return nil, ferr
	case !detailed:
		flag := "--save-detailed"
		if tool == SGLang {
			flag = "--output-details"
		}
		f.Notes = append(f.Notes, fmt.Sprintf("The run was saved without %s: the file holds the tool's summary only, so nothing can be recomputed.", flag))
		return f, nil
	}
	if err := v.check(); err != nil {
		err.Tool = tool
		return nil, err
	}
	v.notes(f)
	f.dialect = v.dialect
	if tool == VLLM {
		f.dialectWith = v.dialectWith
	}
	f.records = v.records
	f.compare = v.compare
	if v.startTimes == nil {
		f.Window = seconds(v.duration)
		f.NoSendTimes = true
	}
	return f, nil
}

// scan reads the file's one JSON object into v, and returns the keys it
// holds. A key is read once: a repeated key is an error.
func (v *serveFile) scan(b []byte) (map[string]bool, *FieldError) {
	s := &scanner{b: b}
	if bytes.HasPrefix(b, lineio.BOM) {
		s.i = len(lineio.BOM) // a UTF-8 byte order mark, as the CSV and JSONL readers allow
	}
	fail := func(field string, err error) (map[string]bool, *FieldError) {
		return nil, &FieldError{Tool: v.tool, Field: field, Offset: s.i, Err: err}
	}
	if err := s.expect('{'); err != nil {
		return fail("", fmt.Errorf("%w: %v", ErrFormat, err))
	}
	seen := map[string]bool{}
	for first := true; ; first = false {
		more, err := s.more('}', first)
		if err != nil {
			return fail("", fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err))
		}
		if !more {
			break
		}
		key, err := s.str()
		if err != nil {
			return fail("", fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err))
		}
		if seen[key] {
			return fail(key, fmt.Errorf("%w: key repeated", llmmetrics.ErrSyntax))
		}
		seen[key] = true
		if err := s.expect(':'); err != nil {
			return fail(key, fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err))
		}
		if err := v.member(s, key); err != nil {
			return fail(key, fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err))
		}
	}
	if s.peek() != 0 {
		return fail("", fmt.Errorf("%w: text after the JSON object", llmmetrics.ErrSyntax))
	}
	v.end = s.i
	return seen, nil
}

// member reads the value of one key: a per-request array into its slice,
// a string into meta, a number into the summary's figures; anything else
// is skipped.
func (v *serveFile) member(s *scanner, key string) error {
	var err error
	switch key {
	case "ttfts":
		v.ttfts, err = s.floats(nil)
	case "itls":
		v.itls, err = s.floatLists(runtime.GOMAXPROCS(0))
	case "input_lens":
		v.inputLens, err = s.floats(nil)
	case "output_lens":
		v.outputLens, err = s.floats(nil)
	case "errors":
		v.errors, err = s.strs(nil)
	case "start_times":
		v.startTimes, err = s.floats(nil)
	case "latencies":
		if s.peek() == '[' {
			v.latencies, err = s.floats(nil)
		} else {
			err = s.skip()
		}
	default:
		switch c := s.peek(); {
		case c == '"':
			var str string
			str, err = s.str()
			v.meta[key] = str
		case c == '-' || c == 'N' || c == 'I' || (c >= '0' && c <= '9'):
			var f float64
			if f, err = s.number(); err == nil {
				v.summary = append(v.summary, Figure{key, f})
				v.hasSummary[key] = true
				if key == "duration" {
					v.duration = f
				}
			}
		default:
			err = s.skip()
		}
	}
	return err
}

// checkDuration requires the benchmark's duration, positive and finite: a
// file with neither it nor ttfts is not a serving-benchmark result.
func (v *serveFile) checkDuration(seen map[string]bool) *FieldError {
	fail := func(field string, err error) *FieldError {
		return &FieldError{Tool: v.tool, Field: field, Offset: v.end, Err: err}
	}
	switch {
	case !v.hasSummary["duration"] && !seen["ttfts"]:
		return fail("", fmt.Errorf("%w: no duration and no ttfts: not a %s serving-benchmark result", ErrFormat, v.tool))
	case !v.hasSummary["duration"]:
		return fail("duration", llmmetrics.ErrMissingField)
	case math.IsNaN(v.duration) || math.IsInf(v.duration, 0) || v.duration <= 0:
		return fail("duration", fmt.Errorf("%w: %v", llmmetrics.ErrInvalidWindow, v.duration))
	}
	return nil
}

// layout names the tool and script that wrote the file.
func (v *serveFile) layout() string {
	switch {
	case v.tool == SGLang:
		return "bench_serving --output-file"
	case v.meta["endpoint_type"] != "" || v.startTimes != nil:
		return "vllm bench serve"
	}
	return "benchmarks/benchmark_serving.py"
}

// detailed reports whether the file holds the per-request arrays: all of
// them, or none (a summary only); some but not all is an error.
func (v *serveFile) detailed(seen map[string]bool) (bool, *FieldError) {
	n := 0
	for _, k := range vllmArrays {
		if seen[k] {
			n++
		}
	}
	if n == 0 || n == len(vllmArrays) {
		return n > 0, nil
	}
	for _, k := range vllmArrays {
		if !seen[k] {
			return false, &FieldError{Tool: v.tool, Field: k, Offset: v.end, Err: fmt.Errorf("%w: the other per-request arrays are present", llmmetrics.ErrMissingField)}
		}
	}
	return true, nil
}

// checkArrays requires one entry per request in every array, and finite
// numbers throughout.
func (v *serveFile) checkArrays() *FieldError {
	fail := func(field string, err error) *FieldError {
		return &FieldError{Tool: v.tool, Field: field, Offset: v.end, Err: err}
	}
	n := len(v.ttfts)
	lengths := map[string]int{"itls": len(v.itls), "input_lens": len(v.inputLens), "output_lens": len(v.outputLens), "errors": len(v.errors)}
	if v.startTimes != nil {
		lengths["start_times"] = len(v.startTimes)
	}
	if v.latencies != nil {
		lengths["latencies"] = len(v.latencies)
	}
	for _, k := range []string{"itls", "input_lens", "output_lens", "errors", "start_times", "latencies"} {
		if l, ok := lengths[k]; ok && l != n {
			return fail(k, fmt.Errorf("%w: %d entries, ttfts has %d", ErrLength, l, n))
		}
	}
	for name, xs := range map[string][]float64{"ttfts": v.ttfts, "input_lens": v.inputLens, "output_lens": v.outputLens, "start_times": v.startTimes, "latencies": v.latencies} {
		if i, ok := finite(xs); !ok {
			return fail(fmt.Sprintf("%s[%d]", name, i), llmmetrics.ErrNonFinite)
		}
	}
	for i, gaps := range v.itls {
		if j, ok := finite(gaps); !ok {
			return fail(fmt.Sprintf("itls[%d][%d]", i, j), llmmetrics.ErrNonFinite)
		}
	}
	return nil
}

// load is the load the file states: its max_concurrency, or else its
// request_rate when finite (vLLM writes inf for no limit); nil for none.
func (v *serveFile) load() *Load {
	var rate, conc float64
	for _, f := range v.summary {
		switch f.Key {
		case "request_rate":
			rate = f.Value
		case "max_concurrency":
			conc = f.Value
		}
	}
	switch {
	case conc > 0 && !math.IsInf(conc, 0):
		return &Load{Kind: "concurrency", Level: conc}
	case rate > 0 && !math.IsInf(rate, 0):
		return &Load{Kind: "rate", Level: rate}
	}
	return nil
}

// check refuses per-request data that would change a figure in silence:
// counts that are not token counts, times out of range, and negative gaps
// (a negative first gap of a role-chunk request would otherwise be folded
// into its TTFT). Each error names the request. A successful request
// whose output_lens is 0 while it has a TTFT or gaps is not refused here:
// records sets it aside (see zeroWithTimings).
func (v *serveFile) check() *FieldError {
	fail := func(i int, field string, err error) *FieldError {
		return &FieldError{Request: i + 1, Field: field, Offset: -1, Err: err}
	}
	for _, c := range []struct {
		name string
		xs   []float64
	}{{"input_lens", v.inputLens}, {"output_lens", v.outputLens}} {
		for i, x := range c.xs {
			if err := checkCount(x); err != nil {
				return fail(i, fmt.Sprintf("%s[%d]", c.name, i), err)
			}
		}
	}
	for _, c := range []struct {
		name string
		xs   []float64
	}{{"ttfts", v.ttfts}, {"start_times", v.startTimes}, {"latencies", v.latencies}} {
		if i, err := checkTimes(c.xs, 1); err != nil {
			return fail(i, fmt.Sprintf("%s[%d]", c.name, i), err)
		}
	}
	if len(v.startTimes) > 0 {
		lo, hi := slices.Min(v.startTimes), slices.Max(v.startTimes)
		if err := checkTime(hi - lo); err != nil {
			return fail(slices.Index(v.startTimes, hi), fmt.Sprintf("start_times[%d]", slices.Index(v.startTimes, hi)), fmt.Errorf("%w: the send times span %v s", llmmetrics.ErrOutOfRange, hi-lo))
		}
	}
	for i, gaps := range v.itls {
		if j, err := checkTimes(gaps, 1); err != nil {
			return fail(i, fmt.Sprintf("itls[%d][%d]", i, j), err)
		}
		if v.errors[i] != "" {
			continue
		}
		if v.ttfts[i] < 0 {
			return fail(i, fmt.Sprintf("ttfts[%d]", i), fmt.Errorf("%w: %v s", llmmetrics.ErrNegativeDuration, v.ttfts[i]))
		}
		at := v.ttfts[i]
		for j, g := range gaps {
			if g < 0 {
				return fail(i, fmt.Sprintf("itls[%d][%d]", i, j), fmt.Errorf("%w: a gap of %v s", llmmetrics.ErrNonMonotonic, g))
			}
			at += g
		}
		if err := checkTime(at); err != nil {
			return fail(i, fmt.Sprintf("itls[%d]", i), fmt.Errorf("%w: the last chunk arrives %v s after the send", llmmetrics.ErrOutOfRange, at))
		}
	}
	return nil
}

// gaps returns request i's gaps.
func (v *serveFile) gaps(i int) []float64 { return v.itls[i] }

// notes says what the file cannot tell, and the quirks found in it.
func (v *serveFile) notes(f *File) {
	ok, roleChunk, multi := 0, 0, 0
	for i := range v.ttfts {
		if v.errors[i] != "" {
			continue
		}
		ok++
		n, gaps := int(v.outputLens[i]), len(v.gaps(i))
		switch {
		case n >= 1 && gaps == n:
			roleChunk++
		case gaps+1 < n:
			multi++
		}
	}
	if v.latencies == nil {
		f.Notes = append(f.Notes, fmt.Sprintf("%s stores no per-request latency: E2E is rebuilt as ttft + Σ itls, which is exact only to a few µs (the tool's latency may end at a later frame), and so are TPOT and E2E figures built on it.", toolName(v.tool)))
	}
	if v.tool == SGLang {
		f.Notes = append(f.Notes, "SGLang's E2E ends at the last line of the stream, [DONE] included, and its output_lens are the requested lengths unless the server sent usage: with ignore_eos off they can exceed what was generated.")
	}
	if v.startTimes == nil {
		f.Notes = append(f.Notes, "The file has no send times (start_times): every request is taken as sent at 0, and rates use the file's duration as the declared window.")
	}
	if roleChunk > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d of %d ok requests have as many gaps as output tokens, with a first gap of a few µs: that client stamped TTFT at a role-only first chunk. Under llmmetrics' conventions their first text arrives one gap later, and their first gap is not a token gap.", roleChunk, ok))
	}
	if multi > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d of %d ok requests have fewer chunks than output tokens: their gaps are chunk gaps, not token gaps, and what vLLM calls ITL is not a per-token latency for them.", multi, ok))
	}
	if v.tool == VLLM {
		f.Notes = append(f.Notes, "Output token counts are the client's output_lens: server usage where the tool had it, otherwise re-tokenized text; the file does not say which.")
	}
}

// records builds llmmetrics records: request i is sent at start_times[i]
// (from the earliest) or at 0, and its text chunks arrive at ttft and then
// after each gap, rounded to the nanosecond. A request whose gaps number as
// many as its tokens had its TTFT stamped at a role-only chunk: its first
// text is taken one gap later. A successful request of 0 output tokens
// with timings is set aside in Run.Rejected (see zeroWithTimings).
func (v *serveFile) records() *llmmetrics.Run {
	n := len(v.ttfts)
	run := &llmmetrics.Run{Records: hugepage.Make[llmmetrics.Record](n, n)}
	total := n
	for _, g := range v.itls {
		total += len(g)
	}
	arena := hugepage.Make[time.Duration](0, total)
	t0 := 0.0
	if len(v.startTimes) > 0 {
		t0 = v.startTimes[0]
		for _, t := range v.startTimes {
			t0 = min(t0, t)
		}
	}
	var drop []int // the requests set aside, in order
	for i := range v.ttfts {
		r := &run.Records[i]
		r.ID = strconv.Itoa(i)
		r.PromptTokens = int(v.inputLens[i])
		if v.startTimes != nil {
			r.Sent = seconds(v.startTimes[i] - t0)
		}
		if v.errors[i] != "" {
			r.Status, r.Message = llmmetrics.StatusError, strings.TrimSpace(v.errors[i])
			continue
		}
		r.CompletionTokens = int(v.outputLens[i])
		if err := v.zeroWithTimings(i); err != nil {
			run.Reject(&llmmetrics.RecordError{Index: i, ID: r.ID, Field: fmt.Sprintf("output_lens[%d]", i), Err: err})
			drop = append(drop, i)
			continue
		}
		if r.CompletionTokens == 0 {
			continue // zero-token: no text to time
		}
		gaps := v.gaps(i)
		at := v.ttfts[i]
		if len(gaps) == r.CompletionTokens {
			at += gaps[0]
			gaps = gaps[1:]
		}
		start := len(arena)
		arena = append(arena, seconds(at))
		for _, g := range gaps {
			at += g
			arena = append(arena, seconds(at))
		}
		r.Chunks = arena[start:len(arena):len(arena)]
	}
	// The requests set aside leave Records, most recent first so that the
	// earlier indexes hold.
	for k := len(drop) - 1; k >= 0; k-- {
		run.Records = slices.Delete(run.Records, drop[k], drop[k]+1)
	}
	return run
}

// zeroWithTimings returns why successful request i is set aside when its
// output_lens is 0 while it has a TTFT or gaps: counted zero-token, its
// timings would be dropped in silence, and its tokens are unknown. vLLM
// itself counts such a request completed, with its TTFT, and so does its
// dialect here.
func (v *serveFile) zeroWithTimings(i int) error {
	if v.errors[i] != "" || v.outputLens[i] != 0 || (v.ttfts[i] == 0 && len(v.gaps(i)) == 0) {
		return nil
	}
	return fmt.Errorf("%w: 0 output tokens, but a TTFT of %v s and %d gaps: set aside, its tokens unknown", llmmetrics.ErrTokensBelowChunks, v.ttfts[i], len(v.gaps(i)))
}
