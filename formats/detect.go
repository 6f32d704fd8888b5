package formats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/llmmetrics/llmmetrics/internal/lineio"
)

// Tools lists the tools whose files this package reads, in the order
// Detect tries them.
var Tools []Tool // set by init, from the registry (tools.go)

// ParseTool returns the tool of a name as written by the CLI's --from flag.
func ParseTool(name string) (Tool, error) {
	if d := toolOf(Tool(name)); d != nil {
		return d.tool, nil
	}
	return "", fmt.Errorf("%w: unknown tool %q (want one of %v)", ErrFormat, name, Tools)
}

// Detect tells which tool wrote a file from the first bytes of its content,
// by the keys only that tool writes: object keys, found by reading the
// head as JSON tokens, so that a string value (an id "ttfts", say) is never
// taken for a key. It returns false for content of no known tool (such as
// llmmetrics' own CSV and JSONL) and for a tool's summary file (see
// DetectSummary).
func Detect(head []byte) (Tool, bool) {
	keys, top := headKeys(head)
	for _, d := range tools {
		if d.detect(keys, top) {
			return d.tool, true
		}
	}
	return "", false
}

// DetectSummary tells whether the head of a file is a tool's summary file,
// written beside its per-request file: AIPerf's profile_export_aiperf.json
// or LLMPerf's *_summary.json. It returns the tool and a sentence that
// says which file to read instead.
func DetectSummary(head []byte) (Tool, string, bool) {
	keys, top := headKeys(head)
	for _, d := range tools {
		if s := d.summary; s != nil && s.detect != nil && s.detect(keys, top) {
			return d.tool, s.instead, true
		}
	}
	return "", "", false
}

// headKeys returns the object keys found in the JSON values of head (one,
// or several for JSON lines), to a depth of eight containers, and the first
// value's first byte ('{' or '['; 0 when the head is not JSON). A head cut
// off in the middle gives the keys up to the cut.
func headKeys(head []byte) (map[string]bool, byte) {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, lineio.BOM), " \t\r\n")
	if len(head) == 0 || head[0] != '{' && head[0] != '[' {
		return nil, 0
	}
	keys := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(head))
	// Each open container is a frame; in an object, tokens alternate
	// between a key and its value, and a value that is a container counts
	// as one when it closes.
	type frame struct{ object, wantKey bool }
	var stack []frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return keys, head[0]
		}
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if top >= 0 && stack[top].object {
					stack[top].wantKey = false
				}
				stack = append(stack, frame{object: d == '{', wantKey: d == '{'})
			default:
				stack = stack[:top]
				valueDone()
			}
			continue
		}
		if top >= 0 && stack[top].object && stack[top].wantKey {
			if k, ok := tok.(string); ok && len(stack) <= 8 {
				keys[k] = true
			}
			stack[top].wantKey = false
			continue
		}
		valueDone()
	}
}

// Read reads a file of the tool; with tool "", the tool is detected from the
// content.
func Read(r io.Reader, tool Tool) (*File, error) {
	if tool == "" {
		var head []byte
		r, head = Peek(r)
		t, ok := Detect(head)
		if !ok {
			if _, instead, ok := DetectSummary(head); ok {
				return nil, fmt.Errorf("%w: %s", ErrSummaryFile, instead)
			}
			return nil, fmt.Errorf("%w: the content matches no tool this package reads (%v)", ErrFormat, Tools)
		}
		tool = t
	}
	d := toolOf(tool)
	if d == nil {
		return nil, fmt.Errorf("%w: unknown tool %q", ErrFormat, tool)
	}
	f, err := d.read(r)
	if err == nil && f.Benchmarks == 0 {
		f.Benchmark, f.Benchmarks = 1, 1
	}
	return f, err
}

// ReadAll reads every benchmark of a result file, as Read reads one: a
// GuideLLM file written by a sweep holds several, each a File of its own
// in file order (File.Benchmark); every other tool's file holds one.
func ReadAll(r io.Reader, tool Tool) ([]*File, error) {
	if tool == "" {
		var head []byte
		r, head = Peek(r)
		tool, _ = Detect(head) // Read says why when it is not found
	}
	if d := toolOf(tool); d != nil && d.readAll != nil {
		return d.readAll(r)
	}
	f, err := Read(r, tool)
	if err != nil {
		return nil, err
	}
	return []*File{f}, nil
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
	if d := toolOf(tool); d != nil && d.summary != nil {
		return d.summary.read(r)
	}
	return nil, fmt.Errorf("%w: %s writes its summary inside its result file", ErrFormat, tool)
}
