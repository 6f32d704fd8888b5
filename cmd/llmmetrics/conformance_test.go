package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exportedCase is a case as a tool in another language reads it from
// cases.json: plain JSON, times in ns.
type exportedCase struct {
	ID       string `json:"id"`
	Requests []struct {
		ID               string `json:"id"`
		Status           string `json:"status"`
		Sent             int64  `json:"sent_ns"`
		CompletionTokens *int   `json:"completion_tokens"`
		Events           []struct {
			At   int64  `json:"t_ns"`
			Kind string `json:"kind"`
		} `json:"events"`
	} `json:"requests"`
}

// answerCases is a small tool written against the exported files only, as
// a tool in another language would be: per request, TTFT at the first text
// event, TPOT and User TPS dividing by the n − 1 gaps, or, with nGaps
// false, by n (the trap). It writes one answer line per case.
func answerCases(t *testing.T, dir string, nGaps bool) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	require.NoError(t, err)
	var set struct {
		Version string         `json:"version"`
		Cases   []exportedCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &set))
	var out strings.Builder
	for _, c := range set.Cases {
		figures := map[string]any{}
		for _, r := range c.Requests {
			var text []int64
			for _, e := range r.Events {
				if e.Kind == "text" {
					text = append(text, e.At)
				}
			}
			ttft, tpot, tps := any(nil), any(nil), any(nil)
			if r.Status == "ok" && len(text) > 0 {
				ttft = float64(text[0]-r.Sent) / 1e6
				if n := r.CompletionTokens; n != nil && *n >= len(text) && *n >= 2 {
					gaps := float64(*n - 1)
					if !nGaps {
						gaps = float64(*n)
					}
					decode := time.Duration(text[len(text)-1] - text[0])
					tpot = float64(decode) / 1e6 / gaps
					if decode > 0 {
						tps = gaps / decode.Seconds()
					}
				}
			}
			figures["request."+r.ID+".ttft_ms"] = ttft
			figures["request."+r.ID+".tpot_ms"] = tpot
			figures["request."+r.ID+".user_tps"] = tps
		}
		line, err := json.Marshal(map[string]any{"case": c.ID, "figures": figures})
		require.NoError(t, err)
		fmt.Fprintf(&out, "%s\n", line)
	}
	return out.String()
}

func TestConformanceExportAndCheck(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, "", "conformance", "export", dir)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "cases written to")
	for _, name := range []string{"cases.json", "cases.csv", "requests.csv", "expected.csv", "jsonl/trap-user-tps-n.jsonl"} {
		assert.FileExists(t, filepath.Join(dir, name))
	}

	// The right tool: every case it answers agrees; exit 0.
	answers := filepath.Join(dir, "answers.jsonl")
	require.NoError(t, os.WriteFile(answers, []byte(answerCases(t, dir, true)), 0o644))
	code, out, errs = runCLI(t, "", "conformance", "check", answers)
	assert.Equal(t, 0, code, errs+out)
	assert.Contains(t, out, "agree         trap-user-tps-n\n")
	assert.Contains(t, out, "agree         seed-opening-trace (3 of 16 figures given)\n")
	assert.Contains(t, out, "not compared  method-linear (none of its 3 figures given)\n")
	assert.NotContains(t, out, "\ndiffer ")

	// The same from standard input.
	code, _, errs = runCLI(t, answerCases(t, dir, true), "conformance", "check", "-")
	assert.Equal(t, 0, code, errs)

	// With --all, the cases it does not answer, or answers with none of
	// their figures, fail the check.
	lines := strings.SplitAfter(answerCases(t, dir, true), "\n")
	code, out, errs = runCLI(t, strings.Join(lines[1:], ""), "conformance", "check", "--all", "-")
	assert.Equal(t, 3, code, out)
	assert.Contains(t, out, "not answered  seed-opening-trace\n")
	assert.Contains(t, errs, "not answered or compared (--all)")

	// A deliberately wrong tool, dividing by n rather than n − 1: exit 3,
	// and the trap cases are named with their trap and section.
	code, out, errs = runCLI(t, answerCases(t, dir, false), "conformance", "check", "-")
	assert.Equal(t, 3, code)
	assert.Contains(t, errs, "cases differ or were refused")
	assert.Contains(t, out, "differ        trap-user-tps-n\n    request.u1.user_tps: got 50, want 40\n")
	assert.Contains(t, out, "    trap: Per-request token rate dividing n tokens (or n over E2E) instead of the n − 1 gaps by the decode time.\n"+
		"    specification: Serving Workloads §2.4")
	assert.Contains(t, out, "differ        trap-tpot-n\n    request.t.tpot_ms: got 40, want 50\n")
}

func TestConformanceCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"case": "no-such-case", "figures": {}}`), 0o644))
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
		msg   string
	}{
		{[]string{"conformance"}, "", 2, "export DIR, check FILE or list"},
		{[]string{"conformance", "frobnicate"}, "", 2, "unknown subcommand"},
		{[]string{"conformance", "export"}, "", 2, "one directory"},
		{[]string{"conformance", "check"}, "", 2, "one file of answers"},
		{[]string{"conformance", "check", "--nope", "x"}, "", 2, "flag provided but not defined"},
		{[]string{"conformance", "check", filepath.Join(dir, "missing.jsonl")}, "", 1, "no such file"},
		{[]string{"conformance", "check", bad}, "", 1, `no case "no-such-case"`},
		{[]string{"conformance", "check", "-"}, "not json", 1, "answers, object 1"},
		{[]string{"conformance", "list", "x"}, "", 2, "takes no arguments"},
	} {
		code, _, errs := runCLI(t, tc.stdin, tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, errs)
		assert.Contains(t, errs, tc.msg, "%v", tc.args)
	}
	code, out, _ := runCLI(t, "", "conformance", "list")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "trap-chunks-for-tokens")
	code, out, _ = runCLI(t, "", "help", "conformance")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "check FILE")
}
