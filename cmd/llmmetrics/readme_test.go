package main

import (
	"os"
	"strings"
	"testing"
)

// Every line of the README's command example is a line of what the command
// prints on the bundled sample run.
func TestReadmeCommandExample(t *testing.T) {
	text, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(text), "\n## The command in 10 lines\n")
	_, rest, ok2 := strings.Cut(rest, "\n```\n")
	block, _, ok3 := strings.Cut(rest, "\n```\n")
	if !ok || !ok2 || !ok3 {
		t.Fatal("the README has no example block under \"## The command in 10 lines\"")
	}
	lines := strings.Split(block, "\n")
	if len(lines) > 10 {
		t.Errorf("the command example has %d lines", len(lines))
	}
	cmd, ok := strings.CutPrefix(lines[0], "$ llmmetrics ")
	if !ok {
		t.Fatalf("the example's first line is not a command: %q", lines[0])
	}
	args := strings.Fields(strings.ReplaceAll(cmd, "testdata/", "../../testdata/"))
	code, out, errs := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("llmmetrics %s: status %d: %s", cmd, code, errs)
	}
	printed := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		printed[l] = true
	}
	for _, l := range lines[1:] {
		if !printed[l] {
			t.Errorf("the README shows a line the command does not print:\n%s", l)
		}
	}
}
