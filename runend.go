package llmmetrics

import (
	"fmt"
	"io"
	"maps"

	"github.com/llmmetrics/llmmetrics/internal/jsonline"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// A RunEnd is the last line of a run's JSONL file, {"llmmetrics_end":
// {...}}: whether the run completed or was interrupted (and by what), how
// many requests it planned and how many records were written before it. A
// load generator that writes records as they end writes it last, and says
// so in its header (RunHeader.Ends): a file whose header promises an end
// line it lacks was cut short, and its report says TRUNCATED.
//
// Written counts every record before the end line, of every kind
// (preflight, warm-up, measured), as Planned counts every request the run
// planned to send, preflight and warm-up included: a completed run wrote
// exactly the requests it planned, and an interrupted one fewer. A run
// that plans a time rather than a number of requests has no Planned, and
// Absent["planned"] says so.
type RunEnd struct {
	State   string `json:"state"`             // "completed" or "interrupted"
	By      string `json:"by,omitempty"`      // what interrupted it: a signal's name, a flag
	Planned int    `json:"planned,omitempty"` // requests planned, preflight and warm-up included; 0 when absent
	Written int    `json:"written"`           // records written before the end line
	// Load holds facts of the load known only at its end (the time between
	// the scrapes of the measured part); a reader adds them to the
	// header's Load.
	Load map[string]string `json:"load,omitempty"`
	// Absent says why a count is absent, by its key: "planned" for a run
	// of a duration.
	Absent map[string]string `json:"absent,omitempty"`
	// Notes are what the generator learnt as the run went and its report
	// says (how the prompts were sized, how the warm-up ended); a reader
	// adds them to the summary's notes.
	Notes []string `json:"notes,omitempty"`
	// Client is how well the generator kept up with its own work during
	// the load (its scheduling delay and CPU); nil when it did not say.
	Client *ClientHealth `json:"client,omitempty"`
}

// endKey is the one key of a run's end line.
const endKey = `"llmmetrics_end"`

// isEnd reports whether a JSONL line is a run's end line.
func isEnd(t []byte) bool { return jsonline.Keyed(t, endKey) }

// readEnd reads a run's end line into run, once.
func readEnd(run *Run, t []byte, line int) *RecordError {
	if run.End != nil {
		return lineError(line, "llmmetrics_end", "a run has one end line")
	}
	e, err := jsonline.DecodeKeyed[RunEnd](t, "llmmetrics_end")
	if err != nil {
		return lineError(line, "llmmetrics_end", "%v", err)
	}
	if e.State != "completed" && e.State != "interrupted" {
		return lineError(line, "llmmetrics_end", "want a state of completed or interrupted")
	}
	run.End = e
	if h := run.Header; h != nil && len(e.Load) > 0 {
		if h.Load == nil {
			h.Load = map[string]string{}
		}
		maps.Copy(h.Load, e.Load)
	}
	return nil
}

// WriteLine writes e as the last line of a JSONL file.
func (e *RunEnd) WriteLine(w io.Writer) error { return jsonline.WriteKeyed(w, "llmmetrics_end", e) }

// A Completeness says whether a run's file holds the whole run: State is
// "completed", "interrupted" or "truncated" (the file stops before the end
// line its header promised, ends inside a line, or holds fewer records
// than the end line counts). Reason says it in a sentence.
//
// A count the file does not give is 0 and has its reason in Absent, by
// its key: "planned" (a run of a duration, or no end line) and "written"
// (no end line); By is empty unless an end line says what interrupted
// the run.
type Completeness struct {
	State   string
	By      string
	Planned int               // requests the end line says were planned; 0 when absent
	Written int               // records the end line counts; 0 when absent
	Read    int               // records the file holds
	Cut     *Cut              // where the file ends inside a line
	Absent  map[string]string // why Planned or Written is absent (with RunEnd.Absent)
	Reason  string
}

// Reasons for a completeness count that is absent.
const (
	noEndWritten  = "no end line was read: it counts the records written"
	noEndPlanned  = "no end line was read: it says how many requests were planned"
	plannedUnsaid = "the end line does not say"
)

// completeness returns what a run's header, end line and cut say of a
// file of read records, or nil when they say nothing (no end line
// promised, none found, and the file ends with a whole line).
func completeness(h *RunHeader, e *RunEnd, cut *Cut, read int) *Completeness {
	promised := h != nil && h.Ends
	if e == nil && cut == nil && !promised {
		return nil
	}
	c := &Completeness{Read: read, Cut: cut, Absent: map[string]string{}}
	if e != nil {
		c.By, c.Planned, c.Written = e.By, e.Planned, e.Written
		maps.Copy(c.Absent, e.Absent) // e's own map is left as it is
		if _, said := c.Absent["planned"]; e.Planned == 0 && !said {
			c.Absent["planned"] = plannedUnsaid
		}
	} else {
		c.Absent["planned"], c.Absent["written"] = noEndPlanned, noEndWritten
	}
	if len(c.Absent) == 0 {
		c.Absent = nil
	}
	switch {
	case cut != nil && read == 0 && cut.Of != "end line":
		c.State = "truncated"
		c.Reason = fmt.Sprintf("TRUNCATED: the file ends inside line %d (%d bytes of an unfinished %s), before any whole record: the writer stopped before it wrote a request, and there is nothing to measure", cut.Line, cut.Bytes, cut.Of)
		return c
	case cut == nil && e == nil && read == 0:
		c.State = "truncated"
		c.Reason = "TRUNCATED: the file stops after its header, before any record and before the end line its header promised: the writer stopped before it wrote a request, and there is nothing to measure"
		return c
	case cut != nil:
		c.State = "truncated"
		where := fmt.Sprintf("the file ends inside line %d (%d bytes of an unfinished %s after record %d)", cut.Line, cut.Bytes, cut.Of, cut.After)
		switch {
		case cut.Of == "end line":
			c.Reason = "TRUNCATED: " + where + "; every record is whole, but how the run ended is not known"
		case promised && e == nil:
			c.Reason = "TRUNCATED: " + where + ", before the end line its header promised; the writer stopped before the run ended, and the figures cover only the whole records written"
		default:
			c.Reason = "TRUNCATED: " + where + "; the writer stopped in the middle of a record, and the figures cover only the whole records before it"
		}
		return c
	case e == nil:
		c.State = "truncated"
		c.Reason = fmt.Sprintf("TRUNCATED: the file stops before the end line its header promised (records read: %d); the writer stopped before the run ended, and the figures cover only what was written", read)
		return c
	case e.Written > read:
		c.State = "truncated"
		c.Reason = fmt.Sprintf("TRUNCATED: the end line counts %s written but the file holds %d", plural.Of(e.Written, "record"), read)
		return c
	}
	c.State = e.State
	if e.State == "interrupted" {
		planned := ""
		if e.Planned > 0 {
			planned = fmt.Sprintf(" of %d planned", e.Planned)
		}
		c.Reason = fmt.Sprintf("INTERRUPTED by %s: %s%s written; the figures cover only these", e.By, plural.Of(e.Written, "request"), planned)
	}
	return c
}

// Completeness returns what the run's header, end line and cut say of
// its file, as Run.Summarize puts it in the Summary, or nil when they say
// nothing. It can be asked of a run with no record, which Summarize
// refuses: a file cut before its first whole record is truncated.
func (run *Run) Completeness() *Completeness {
	read := len(run.Records) + run.RejectedCount()
	if run.tab != nil {
		read = run.tab.Len() + run.RejectedCount()
	}
	return completeness(run.Header, run.End, run.Cut, read)
}

// truncatedError is Run.Summarize's error for a truncated file with no
// record: no figure can be computed, and the file's completeness says
// why. It wraps ErrNoRecords.
type truncatedError struct{ reason string }

func (e *truncatedError) Error() string { return "llmmetrics: " + e.reason }
func (e *truncatedError) Unwrap() error { return ErrNoRecords }
