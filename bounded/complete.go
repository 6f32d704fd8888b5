package bounded

import (
	"fmt"
	"maps"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// Reasons for a completeness count that is absent, in the root's words.
const (
	noEndWritten  = "no end line was read: it counts the records written"
	noEndPlanned  = "no end line was read: it says how many requests were planned"
	plannedUnsaid = "the end line does not say"
)

// completeness returns what a run's header, end line and cut say of a
// file of read records, as the root's completeness does (Run.Completeness
// counts the records it holds, which a bounded summary does not hold).
func completeness(h *llmmetrics.RunHeader, e *llmmetrics.RunEnd, cut *llmmetrics.Cut, read int) *llmmetrics.Completeness {
	promised := h != nil && h.Ends
	if e == nil && cut == nil && !promised {
		return nil
	}
	c := &llmmetrics.Completeness{Read: read, Cut: cut, Absent: map[string]string{}}
	if e != nil {
		c.By, c.Planned, c.Written = e.By, e.Planned, e.Written
		maps.Copy(c.Absent, e.Absent)
		if _, said := c.Absent["planned"]; e.Planned == 0 && !said {
			c.Absent["planned"] = plannedUnsaid
		}
	} else {
		c.Absent["planned"], c.Absent["written"] = noEndPlanned, noEndWritten
	}
	if len(c.Absent) == 0 {
		c.Absent = nil
	}
	c.State, c.Reason = state(promised, e, cut, read)
	return c
}

// state returns the state of a file of read records (at least one) and
// why, as the root's completeness says them.
func state(promised bool, e *llmmetrics.RunEnd, cut *llmmetrics.Cut, read int) (string, string) {
	switch {
	case cut != nil:
		where := fmt.Sprintf("the file ends inside line %d (%d bytes of an unfinished %s after record %d)", cut.Line, cut.Bytes, cut.Of, cut.After)
		switch {
		case cut.Of == "end line":
			return "truncated", "TRUNCATED: " + where + "; every record is whole, but how the run ended is not known"
		case promised && e == nil:
			return "truncated", "TRUNCATED: " + where + ", before the end line its header promised; the writer stopped before the run ended, and the figures cover only the whole records written"
		}
		return "truncated", "TRUNCATED: " + where + "; the writer stopped in the middle of a record, and the figures cover only the whole records before it"
	case e == nil:
		return "truncated", fmt.Sprintf("TRUNCATED: the file stops before the end line its header promised (records read: %d); the writer stopped before the run ended, and the figures cover only what was written", read)
	case e.Written > read:
		return "truncated", fmt.Sprintf("TRUNCATED: the end line counts %s written but the file holds %d", plural.Of(e.Written, "record"), read)
	}
	reason := ""
	if e.State == "interrupted" {
		planned := ""
		if e.Planned > 0 {
			planned = fmt.Sprintf(" of %d planned", e.Planned)
		}
		reason = fmt.Sprintf("INTERRUPTED by %s: %s%s written; the figures cover only these", e.By, plural.Of(e.Written, "request"), planned)
	}
	return e.State, reason
}
