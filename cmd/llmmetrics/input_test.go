package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// --lenient is suggested only for an error it would set aside: a record
// that cannot be read. It is not suggested when it was given, nor for
// text after the run's end line, nor for a header that cannot be read,
// which a lenient read refuses too; plain text after the end line names
// the end line rather than the JSON the text is not.
func TestLenientHintOnlyWhereItHelps(t *testing.T) {
	head := `{"llmmetrics_run":{"tool":"t","start":"2026-01-01T00:00:00Z","ends":true}}` + "\n"
	rec := `{"id":"1","status":"ok","sent_ns":0,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n"
	end := `{"llmmetrics_end":{"state":"completed","planned":1,"written":1}}` + "\n"
	const hint = "--lenient counts invalid records as rejected instead"
	for _, c := range []struct {
		name, in, msg string
		hint          bool
	}{
		{"a bad record", rec + `{"id":"2","sent_ns":"x"}` + "\n", "line 2", true},
		{"a record after the end line", head + rec + end + rec, "line 4: syntax error: text after the run's end line (line 3), which must be the file's last", false},
		{"plain text after the end line", head + rec + end + "garbage text\n", "line 4: syntax error: text after the run's end line (line 3), which must be the file's last", false},
		{"a header cut short", `{"llmmetrics_run":{"tool":"t"` + "\n" + rec, "line 1: field llmmetrics_run: syntax error", false},
	} {
		for _, lenient := range []bool{false, true} {
			args := []string{"report"}
			if lenient {
				if c.hint {
					continue // leniently, the bad record is set aside: no error
				}
				args = append(args, "--lenient")
			}
			code, _, errs := runCLI(t, c.in, args...)
			assert.Equal(t, 1, code, "%s, lenient %v: %s", c.name, lenient, errs)
			assert.Contains(t, errs, c.msg, "%s, lenient %v", c.name, lenient)
			assert.Equal(t, c.hint, strings.Contains(errs, hint), "%s, lenient %v: %s", c.name, lenient, errs)
			assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %q", errs)
		}
	}
}
