package main

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Numeric flags: NaN, ±Inf, a negative value, zero where zero means
// nothing, a fraction or an exponent for a whole number, or a value that
// does not parse, is refused with status 2 and one line naming the flag and
// the value.
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
		{append(run, "--concurrency", "NaN"), "--concurrency NaN: not a whole number"},
		{append(run, "--concurrency", "2.5"), "--concurrency 2.5: not a whole number"},
		{append(run, "--requests", "99999999999999999999"), "--requests 99999999999999999999: out of range"},
		{append(run, "--seed", "-1"), "--seed -1: must not be negative"},
		{append(run, "--max-tokens", "128±0%"), `--max-tokens 128±0%: the spread "0%": want a percentage in (0, 100], such as 25%`},
		{append(run, "--max-tokens", "0±50%"), "--max-tokens 0±50%: a spread needs a count above zero, not 0"},
		{append(run, "--prompt-tokens", "x±25%"), `--prompt-tokens x±25%: the count "x": want a whole number, and a spread such as 512±25%`},
		{append(run, "--rate", "1e999"), "--rate 1e999: out of range"},
		{[]string{"report", "--benchmark", "0"}, "--benchmark 0: must be above zero"},
	} {
		code, _, errs := runCLI(t, "", c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Equal(t, "llmmetrics: "+c.msg+"\n", errs, c.args)
	}
}

// Every numeric flag of every command, found in the commands' own flag
// sets (a flag added later is tested at once; one of a type this test does
// not know fails it), given NaN, 1e3, -1, 0, Inf and "": refused with
// status 2 and one line naming the flag and the value, or accepted by the
// flag (the command may refuse it after); never the flag package's error
// and the usage.
func TestEveryNumericFlag(t *testing.T) {
	const notDuration = "not a duration: want a number with a unit, such as 30s, 500ms or 2m"
	// What each kind of flag says of each value, by hand; "" where the
	// flag takes it. Zero is refused apart, where it means nothing.
	want := map[string]map[string]string{
		"whole": {"NaN": "NaN: not a whole number", "1e3": "1e3: want a whole number in digits, such as 1000",
			"-1": "-1: must not be negative", "0": "", "Inf": "Inf: not a whole number", "": `"": not a whole number`},
		"real": {"NaN": "NaN: not a finite number", "1e3": "", "-1": "-1: must not be negative", "0": "",
			"Inf": "+Inf: not a finite number", "": `"": not a number`},
		"duration": {"NaN": "NaN: " + notDuration, "1e3": "1e3: " + notDuration, "-1": "-1: " + notDuration, "0": "",
			"Inf": "Inf: " + notDuration, "": `"": ` + notDuration},
	}
	zero := map[string]string{"whole": "0: must be above zero", "real": "0: must be above zero", "duration": "0s: must be above zero"}
	texts := map[string]bool{"header": true, "env": true, "fail-if": true, "label": true, "level": true} // lists of text
	seen := map[string]bool{}
	for _, c := range commands {
		c.flags().VisitAll(func(f *flag.Flag) {
			var kind string
			g, ok := f.Value.(flag.Getter)
			switch {
			case !ok && texts[f.Name]:
				return
			case !ok:
				t.Errorf("%s --%s: a %T: say in this test whether it is numeric", c.name, f.Name, f.Value)
				return
			}
			switch g.Get().(type) {
			case string, bool:
				return
			case int, int64, uint, uint64:
				kind = "whole"
			case float64:
				kind = "real"
			case time.Duration:
				kind = "duration"
			default:
				t.Errorf("%s --%s: a %T: say in this test whether it is numeric", c.name, f.Name, g.Get())
				return
			}
			seen[kind] = true
			for value, msg := range want[kind] {
				if value == "0" && positiveFlags[f.Name] {
					msg = zero[kind]
				}
				code, _, errs := runCLI(t, "", c.name, "--"+f.Name, value)
				assert.NotContains(t, errs, "invalid value", "%s --%s %q", c.name, f.Name, value)
				if msg == "" {
					assert.False(t, strings.HasPrefix(errs, "llmmetrics: --"+f.Name+" "+value+": "), "%s --%s %q: %s", c.name, f.Name, value, errs)
					continue
				}
				assert.Equal(t, 2, code, "%s --%s %q", c.name, f.Name, value)
				assert.Equal(t, "llmmetrics: --"+f.Name+" "+msg+"\n", errs, "%s --%s %q", c.name, f.Name, value)
			}
		})
	}
	assert.Len(t, seen, 3, "whole, real and duration flags were found")
}

// A usage mistake prints that command's usage alone, with the nearest
// flag for a mistyped one.
func TestCommandUsage(t *testing.T) {
	code, _, errs := runCLI(t, "", "run", "--rte", "3")
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(errs, "llmmetrics: run: unknown flag --rte; did you mean --rate?\nusage: llmmetrics run "), errs)
	assert.NotContains(t, errs, "llmmetrics report")
	assert.Contains(t, errs, "Run 'llmmetrics help run'")
	// A one-letter flag is named as it was typed, with one dash.
	_, _, errs = runCLI(t, "", "run", "-o", "x")
	assert.Contains(t, errs, "unknown flag -o; did you mean --out?")

	code, _, errs = runCLI(t, "", "report", "--percentile", "50")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "did you mean --percentiles?")
	assert.NotContains(t, errs, "llmmetrics run ")

	code, _, errs = runCLI(t, "", "reprot")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown command "reprot"; did you mean report?`)
}
