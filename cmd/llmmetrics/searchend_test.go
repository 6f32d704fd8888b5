package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// searchUntilHeld starts the built command's run --search against a fake
// that answers k requests (beside the test request) and holds the rest,
// and waits until it holds n: every request before them has ended.
func searchUntilHeld(t *testing.T, k, n int64, extra ...string) (*exec.Cmd, *bytes.Buffer, string) {
	t.Helper()
	srv, held := heldAfter(t, k)
	dir := t.TempDir()
	args := append([]string{"run", "--search", "concurrency", "--slo", "ttft=10s", "--search-max", "4", "--repeats", "1",
		"--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--requests", "6", "--prompts", promptsFile(t),
		"--max-tokens", "3", "--grace", "50ms", "--out", filepath.Join(dir, "probe.jsonl")}, extra...)
	cmd := exec.Command(binary(t), args...)
	var stdout bytes.Buffer
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill() })
	waitFor(t, "requests held", func() bool { return held.Load() == n })
	return cmd, &stdout, dir
}

// exitCode waits for the command and returns its exit status.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	waitExit(t, cmd)
	return cmd.ProcessState.ExitCode()
}

// An interrupted search does not present its partial probe as a verdict:
// the probe is marked INTERRUPTED, with no attainment and no verdict, and
// the bracket is read from the completed probes only. Here the first
// probe (concurrency 1, 6 requests, all answered at once: attainment 1)
// completes; the second (concurrency 2) has 3 answered when the fake holds
// the next two (both slots), and SIGTERM stops it. From the completed probe the capacity is
// at least concurrency 1. Something was measured: the status is 0, as run's
// after an interrupt.
func TestSearchInterruptedProbe(t *testing.T) {
	cmd, stdout, _ := searchUntilHeld(t, 6+3, 2)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, exitCode(t, cmd))
	out := stdout.String()
	assert.Contains(t, out, "   1. concurrency 1        attainment 1: meets the target\n")
	lines := strings.Split(out, "\n")
	var probe2 string
	for _, l := range lines {
		if strings.HasPrefix(l, "   2. ") {
			probe2 = l
		}
	}
	// Three answered, two held and cancelled after the grace, one unsent.
	assert.Contains(t, probe2, "concurrency 2        INTERRUPTED by SIGTERM after 5 of 6 requests")
	assert.Contains(t, probe2, "no verdict")
	assert.NotContains(t, probe2, "attainment 0")
	assert.NotContains(t, probe2, "meets")
	assert.NotContains(t, probe2, "misses")
	assert.Contains(t, out, "the search was INTERRUPTED by SIGTERM during probe 2, which gives no verdict; from the 1 completed probe: "+
		"the capacity is at least concurrency 1 (median attainment 1 over 1 run), the highest level probed that meets the target; no completed probe missed it")

	// The JSON says the same.
	cmd, stdout, _ = searchUntilHeld(t, 6+3, 2, "--json")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, exitCode(t, cmd))
	var got struct {
		Search struct {
			Probes []struct {
				Level       float64  `json:"level"`
				Attainment  *float64 `json:"attainment"`
				Pass        *bool    `json:"pass"`
				Interrupted bool     `json:"interrupted"`
			} `json:"probes"`
			Passing     *float64 `json:"passing"`
			Failing     *float64 `json:"failing"`
			Interrupted bool     `json:"interrupted"`
			Reason      string   `json:"reason"`
		} `json:"search"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), stdout.String())
	s := got.Search
	require.Len(t, s.Probes, 2)
	assert.Equal(t, 1.0, *s.Probes[0].Attainment)
	assert.True(t, *s.Probes[0].Pass)
	assert.False(t, s.Probes[0].Interrupted)
	assert.True(t, s.Probes[1].Interrupted)
	assert.Nil(t, s.Probes[1].Attainment, "no attainment of a partial probe")
	assert.Nil(t, s.Probes[1].Pass, "no verdict on a partial probe")
	assert.True(t, s.Interrupted)
	require.NotNil(t, s.Passing)
	assert.Equal(t, 1.0, *s.Passing)
	assert.Nil(t, s.Failing)
	assert.Contains(t, s.Reason, "during probe 2")
}

// Interrupted during its first probe, a search has no bracket, and says
// so rather than leaving the line out.
func TestSearchInterruptedFirstProbe(t *testing.T) {
	cmd, stdout, _ := searchUntilHeld(t, 3, 1)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	exitCode(t, cmd) // nothing completed: the status is another rule's (4 when nothing was measured)
	out := stdout.String()
	assert.Contains(t, out, "   1. concurrency 1        INTERRUPTED by SIGTERM")
	assert.Contains(t, out, "the search was INTERRUPTED by SIGTERM during probe 1, which gives no verdict; no probe before it completed, so there is no bracket")
	assert.NotContains(t, out, "meets the target")
}

// A search stopped by a probe that gives no verdict reports the probes
// before it and exits with status 1, not as a usage mistake: here no
// answer carries usage, so against a TPOT limit every request is unjudged
// and the first probe's attainment lies between 0 and 1.
func TestSearchNoVerdict(t *testing.T) {
	srv, _ := failingServer(t, func(int64) string { return "nousage" })
	code, stdout, errs := runCLI(t, "", "run", "--search", "concurrency", "--slo", "ttft=10s,tpot=1s", "--search-max", "4", "--repeats", "1",
		"--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "4", "--prompts", promptsFile(t), "--max-tokens", "3")
	assert.Equal(t, 1, code, errs)
	assert.Equal(t, 1, strings.Count(errs, "\n"), "one line, no usage text: %s", errs)
	assert.Contains(t, errs, "llmmetrics: run: no verdict: probe at concurrency 1: its attainment, between 0 and 1, may meet the target 0.9 or not: 4 ok requests")
	assert.Contains(t, stdout, "the search STOPPED at probe 1, which gives no verdict (probe at concurrency 1: its attainment, between 0 and 1")
	assert.Contains(t, stdout, "no probe before it completed, so there is no bracket")
}

// A probe whose attainment is a lower bound shows its range: here every
// other answer has no usage, so against a TPOT limit half the requests
// are unjudged and the attainment lies between 0.5 and 1, which meets a
// target of 0.5.
func TestSearchProbeRange(t *testing.T) {
	srv, _ := failingServer(t, func(k int64) string {
		if k%2 == 0 {
			return "nousage"
		}
		return "ok"
	})
	code, stdout, errs := runCLI(t, "", "run", "--search", "concurrency", "--slo", "ttft=10s,tpot=1s", "--target", "0.5", "--search-max", "1",
		"--repeats", "1", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "4", "--prompts", promptsFile(t), "--max-tokens", "3")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "attainment 0.5 to 1: meets the target")
	code, stdout, errs = runCLI(t, "", "run", "--search", "concurrency", "--slo", "ttft=10s,tpot=1s", "--target", "0.5", "--search-max", "1",
		"--repeats", "1", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "4", "--prompts", promptsFile(t), "--max-tokens", "3", "--json")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, `"attainment":0.5,"attainment_upper_bound":1,"pass":true`)
}
