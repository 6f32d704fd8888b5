package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every numeric flag of every command: NaN, ±Inf, a negative value, or
// zero where zero means nothing is refused with status 2 and one line
// naming the flag and the value.
func TestNumericFlags(t *testing.T) {
	run := []string{"run", "--url", "http://127.0.0.1:1/v1/chat/completions", "--model", "m", "--requests", "3", "--concurrency", "1", "--prompt-tokens", "8"}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{append(run, "--rate", "NaN"), "--rate NaN: not a finite number"},
		{append(run, "--rate", "Inf"), "--rate +Inf: not a finite number"},
		{append(run, "--rate", "-Inf"), "--rate -Inf: not a finite number"},
		{append(run, "--rate", "0"), "--rate 0: must be above zero"},
		{append(run, "--burstiness", "-1"), "--burstiness -1: must not be negative"},
		{append(run, "--timeout", "-1s"), "--timeout -1s: must not be negative"},
		{append(run, "--grace", "-1s"), "--grace -1s: must not be negative"},
		{append(run, "--stall", "-5ms"), "--stall -5ms: must not be negative"},
		{append(run, "--max-tokens", "-3"), "--max-tokens -3: must not be negative"},
		{[]string{"run", "--url", "http://h/v1/chat/completions", "--requests", "-1"}, "--requests -1: must not be negative"},
		{[]string{"run", "--url", "http://h/v1/chat/completions", "--duration", "0s"}, "--duration 0s: must be above zero"},
		{[]string{"report", "--fail-below", "NaN"}, "--fail-below NaN: not a finite number"},
		{[]string{"report", "--window", "-2s"}, "--window -2s: must not be negative"},
		{[]string{"server", "--elapsed", "0s"}, "--elapsed 0s: must be above zero"},
		{[]string{"diff", "--alpha", "NaN", "a", "b"}, "--alpha NaN: not a finite number"},
		{[]string{"sweep", "--target", "Inf", "a"}, "--target +Inf: not a finite number"},
	} {
		code, _, errs := runCLI(t, "", c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Equal(t, "llmmetrics: "+c.msg+"\n", errs, c.args)
	}
}

// A usage mistake prints that command's usage alone, with the nearest
// flag for a mistyped one.
func TestCommandUsage(t *testing.T) {
	code, _, errs := runCLI(t, "", "run", "--rte", "3")
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(errs, "llmmetrics: run: unknown flag --rte; did you mean --rate?\nusage: llmmetrics run "), errs)
	assert.NotContains(t, errs, "llmmetrics report")
	assert.Contains(t, errs, "Run 'llmmetrics help run'")

	code, _, errs = runCLI(t, "", "report", "--percentile", "50")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "did you mean --percentiles?")
	assert.NotContains(t, errs, "llmmetrics run ")

	code, _, errs = runCLI(t, "", "reprot")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown command "reprot"; did you mean report?`)
}
