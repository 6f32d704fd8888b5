package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// "-" among several files (a merge, diff, sweep) panicked on a nil reader:
// standard input is read only as a command's one input, and is refused,
// status 2, with the reason.
func TestStdinAmongFiles(t *testing.T) {
	const a = "../../testdata/sample_run.jsonl"
	for _, args := range [][]string{
		{"report", "--merge", a, "-"},
		{"report", "--merge", "--max-memory", "1MiB", a, "-"},
		{"diff", a, "-"},
		{"diff", a, a + ",-"},
		{"sweep", "--level", a + "=1", "--level", "-=2", a, "-"},
	} {
		code, _, errs := runCLI(t, "", args...)
		assert.Equal(t, 2, code, "%v: %s", args, errs)
		assert.Contains(t, errs, "- (standard input) is read only as a command's one input", args)
	}
}
