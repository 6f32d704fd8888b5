package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exportedCase is a case as a tool in another language reads it from
// cases.json: plain JSON, times in ns.
type exportedCase struct {
	ID      string `json:"id"`
	Options struct {
		WarmupRequests int `json:"warmup_requests"`
		SLO            *struct {
			TTFT   int64 `json:"ttft_ns"`
			TPOT   int64 `json:"tpot_ns"`
			E2E    int64 `json:"e2e_ns"`
			MaxGap int64 `json:"max_gap_ns"`
			Strict bool  `json:"strict"`
		} `json:"slo"`
	} `json:"options"`
	Requests []struct {
		ID               string `json:"id"`
		Status           string `json:"status"`
		Warmup           bool   `json:"warmup"`
		Sent             int64  `json:"sent_ns"`
		CompletionTokens *int   `json:"completion_tokens"`
		Events           []struct {
			At   int64  `json:"t_ns"`
			Kind string `json:"kind"`
		} `json:"events"`
	} `json:"requests"`
}

// The deliberate mistakes answerCases can make.
const (
	rightTool       = ""
	nNotGaps        = "n"        // TPOT and User TPS divide by n, not n − 1
	chunksForTokens = "chunks"   // n is the number of text chunks
	failuresLeftOut = "failures" // attainment over the ok requests only
)

// answerCases is a small tool written against the exported files only, as
// a tool in another language would be: per request, TTFT at the first text
// event, TPOT and User TPS from the n − 1 gaps; under an SLO, the
// attainment. With bug set it makes that mistake. It writes one answer
// line per case.
func answerCases(t *testing.T, dir string, bug string) string {
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
		// The first WarmupRequests in send order are warm-up (no case
		// has a tie there).
		sends := []int64{}
		for _, r := range c.Requests {
			sends = append(sends, r.Sent)
		}
		slices.Sort(sends)
		good, judged := 0, 0
		for _, r := range c.Requests {
			if w := c.Options.WarmupRequests; r.Warmup || w > 0 && r.Sent < sends[min(w, len(sends)-1)] {
				continue
			}
			var text []int64
			for _, e := range r.Events {
				if e.Kind == "text" {
					text = append(text, e.At)
				}
			}
			if r.Status == "ok" || bug != failuresLeftOut {
				judged++
			}
			ttft, tpot, tps := any(nil), any(nil), any(nil)
			if r.Status == "ok" && len(text) > 0 {
				first, last := text[0]-r.Sent, text[len(text)-1]-r.Sent
				ttft = float64(first) / 1e6
				n := r.CompletionTokens
				if bug == chunksForTokens {
					n = new(int)
					*n = len(text)
				}
				ok := true
				if n != nil && *n >= len(text) && *n >= 2 {
					gaps := float64(*n - 1)
					if bug == nNotGaps {
						gaps = float64(*n)
					}
					decode := time.Duration(last - first)
					tpot = float64(decode) / 1e6 / gaps
					if decode > 0 {
						tps = gaps / decode.Seconds()
					}
					if slo := c.Options.SLO; slo != nil {
						ok = within(float64(decode)/gaps, slo.TPOT, slo.Strict)
					}
				}
				if slo := c.Options.SLO; slo != nil {
					most := int64(0)
					for k := 1; k < len(text); k++ {
						most = max(most, text[k]-text[k-1])
					}
					if ok && within(float64(first), slo.TTFT, slo.Strict) && within(float64(last), slo.E2E, slo.Strict) &&
						within(float64(most), slo.MaxGap, slo.Strict) {
						good++
					}
				}
			}
			if n := r.CompletionTokens; r.Status == "ok" && len(text) == 1 && n != nil && *n >= 2 && bug != chunksForTokens {
				ttft, tpot = nil, nil // its text came at once: not streamed (version 3)
			}
			figures["request."+r.ID+".ttft_ms"] = ttft
			figures["request."+r.ID+".tpot_ms"] = tpot
			figures["request."+r.ID+".user_tps"] = tps
		}
		if c.Options.SLO != nil && judged > 0 {
			figures["goodput.attainment"] = float64(good) / float64(judged)
		}
		line, err := json.Marshal(map[string]any{"case": c.ID, "figures": figures})
		require.NoError(t, err)
		fmt.Fprintf(&out, "%s\n", line)
	}
	return out.String()
}

// within says whether x (ns) meets limit (ns; 0 is no limit).
func within(x float64, limit int64, strict bool) bool {
	switch {
	case limit == 0:
		return true
	case strict:
		return x < float64(limit)
	}
	return x <= float64(limit)
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
	require.NoError(t, os.WriteFile(answers, []byte(answerCases(t, dir, rightTool)), 0o644))
	code, out, errs = runCLI(t, "", "conformance", "check", answers)
	assert.Equal(t, 0, code, errs+out)
	assert.Contains(t, out, "agree         trap-user-tps-n\n")
	assert.Contains(t, out, "agree         seed-opening-trace (3 of 16 figures given)\n")
	assert.Contains(t, out, "not compared  method-linear (none of its 3 figures given)\n")
	assert.NotContains(t, out, "\ndiffer ")

	// The same from standard input.
	code, _, errs = runCLI(t, answerCases(t, dir, rightTool), "conformance", "check", "-")
	assert.Equal(t, 0, code, errs)

	// With --all, the cases it does not answer, or answers with none of
	// their figures, fail the check.
	lines := strings.SplitAfter(answerCases(t, dir, rightTool), "\n")
	code, out, errs = runCLI(t, strings.Join(lines[1:], ""), "conformance", "check", "--all", "-")
	assert.Equal(t, 3, code, out)
	assert.Contains(t, out, "not answered  seed-opening-trace\n")
	assert.Contains(t, errs, "not answered or compared (--all)")

	// Deliberately wrong tools: each exits 3, and the case of its trap is
	// named with the figure, the trap and the section.
	for _, tc := range []struct {
		bug, want string
	}{
		{nNotGaps, "differ        trap-user-tps-n\n    request.u1.user_tps: got 50, want 40\n"},
		{nNotGaps, "differ        trap-tpot-n\n    request.t.tpot_ms: got 40, want 50\n"},
		{nNotGaps, "    trap: Per-request token rate dividing n tokens (or n over E2E) instead of the n − 1 gaps by the decode time.\n" +
			"    specification: Serving Workloads §2.4"},
		{chunksForTokens, "differ        trap-chunks-for-tokens\n    request.multi.tpot_ms: got 40, want 20\n" +
			"    request.multi.user_tps: got 25, want 50\n    trap: The number of text chunks taken for the number of tokens"},
		{failuresLeftOut, "differ        trap-failures-out-of-attainment\n    goodput.attainment: got 1, want 0.8\n" +
			"    trap: Failed and timed-out requests left out of the attainment denominator"},
	} {
		code, out, errs := runCLI(t, answerCases(t, dir, tc.bug), "conformance", "check", "-")
		assert.Equal(t, 3, code, tc.bug)
		assert.Contains(t, errs, "cases differ or were refused", tc.bug)
		assert.Contains(t, out, tc.want, tc.bug)
	}
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
		{[]string{"conformance", "check", "--nope", "x"}, "", 2, "unknown flag --nope"},
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
