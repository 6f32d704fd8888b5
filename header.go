package llmmetrics

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/jsonline"
)

// A RunHeader describes how a run was taken. A load generator writes it as
// the first line of a JSONL file, {"llmmetrics_run": {...}}; ReadJSONL keeps
// it in Run.Header and Run.Summarize carries it into the Summary, so that a
// report states the workload and environment its numbers came from.
type RunHeader struct {
	Tool      string    `json:"tool"`                 // the program that took the run, with its version
	ID        string    `json:"id,omitempty"`         // random, given by that program: a copy of the file has the run's
	GoVersion string    `json:"go_version,omitempty"` // of that program
	Host      string    `json:"host,omitempty"`       // the machine that sent the requests
	Target    string    `json:"target,omitempty"`     // the endpoint's URL
	API       string    `json:"api,omitempty"`        // its wire format: chat, completions, responses, ollama, tgi
	Model     string    `json:"model,omitempty"`
	Start     time.Time `json:"start"` // the wall clock at the run's epoch, where Sent is 0
	// Load describes the load: its loop (closed or open), concurrency, rate,
	// arrival process, warm-up; as the generator's flags say it.
	Load map[string]string `json:"load,omitempty"`
	// Flags are every flag the generator was given (secrets left out).
	Flags map[string]string `json:"flags,omitempty"`
	// Env is the environment log the user gave (GPU, driver, server
	// version, precision, batch limits, KV-cache and prefix-cache settings).
	Env map[string]string `json:"env,omitempty"`
	// Server holds what the server said of itself, by the path that said
	// it (/version, /v1/models), as it said it.
	Server map[string]json.RawMessage `json:"server,omitempty"`
	// Ends says the file ends with a RunEnd line: a reader that finds none
	// knows the file was cut short.
	Ends bool `json:"ends,omitempty"`
}

// headerKey is the one key of a run header line.
const headerKey = `"llmmetrics_run"`

// isHeader reports whether a JSONL line is a run header (or a run's end
// line, which is read with it).
func isHeader(t []byte) bool { return isEnd(t) || jsonline.Keyed(t, headerKey) }

// readHeader reads a run header line into run: the first line of the file
// only, and once.
func readHeader(run *Run, t []byte, line int) *RecordError {
	if isEnd(t) {
		return readEnd(run, t, line)
	}
	if run.Header != nil || line != 1 { // the records' lines are gathered later
		return lineError(line, "llmmetrics_run", "a run header must be the file's first line")
	}
	h, err := jsonline.DecodeKeyed[RunHeader](t, "llmmetrics_run")
	if err != nil {
		return lineError(line, "llmmetrics_run", "%v", err)
	}
	run.Header = h
	return nil
}

// lineError is the syntax error of a run's header or end line, field its key.
func lineError(line int, field, format string, args ...any) *RecordError {
	return &RecordError{Index: -1, Line: line, Field: field, Err: fmt.Errorf("%w: %s", ErrSyntax, fmt.Sprintf(format, args...))}
}

// WriteLine writes h as the first line of a JSONL file.
func (h *RunHeader) WriteLine(w io.Writer) error { return jsonline.WriteKeyed(w, "llmmetrics_run", h) }
