package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// starve leaves the process one processor and n goroutines that never
// yield of their own, until the returned function is called (or 30 s
// pass): a goroutine woken meanwhile waits for the runtime to preempt the
// one running, about 10 ms after it got the processor.
func starve(n int) (stop func()) {
	prev := runtime.GOMAXPROCS(1)
	done := make(chan struct{})
	deadline := time.Now().Add(30 * time.Second)
	var wg sync.WaitGroup
	wg.Add(n)
	for range n {
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	return func() {
		close(done)
		wg.Wait()
		runtime.GOMAXPROCS(prev)
	}
}

// endLine returns the end line of a run's file.
func endLine(t *testing.T, path string) *llmmetrics.RunEnd {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	run, err := llmmetrics.ReadJSONL(strings.NewReader(string(b)))
	require.NoError(t, err)
	require.NotNil(t, run.End)
	return run.End
}

// A CPU-starved client says it read late, with the figure (issue #30,
// point 9: on a busy machine 18% of gaps were exactly 0 and nothing
// warned). The run's own process is starved: one processor and a
// goroutine that never yields, so that every wake of the run's 10 ms
// ticker waits for the hog's 10 ms slice to end, about 5 ms on average,
// far above the 2 ms limit (the fake answers in bursts: the median gap is
// about 0). A slower or busier machine only starves it more. report
// reads the same figures from the end line and says the same.
func TestRunStarvedClient(t *testing.T) {
	if testing.Short() {
		t.Skip("starves the process for a run")
	}
	srv, _ := fakeLlama(t)
	out := filepath.Join(t.TempDir(), "starved.jsonl")
	stop := starve(1)
	// 80 requests of about 40 ms, two at a time: over a second of load,
	// so a hundred ticker deadlines or more, whose p90 is judged (fewer
	// are judged at their p50, which a short starved run can pass). A
	// slower machine only makes the load longer.
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
		"--requests", "80", "--concurrency", "2", "--prompts", promptsFile(t), "--max-tokens", "8", "--out", out)
	stop()
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "WARNING: the client read late: a ticker of 10ms woke ")
	assert.Contains(t, stdout, "the gaps are the client's, not the server's; run the client on a quieter machine or with fewer concurrent requests\n")
	assert.Contains(t, stdout, "\nclient health (the generator's own, over ")
	e := endLine(t, out)
	require.NotNil(t, e.Client)
	assert.Positive(t, e.Client.Ticks)
	assert.GreaterOrEqual(t, e.Client.TickP99, time.Millisecond)

	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	warning := func(s string) string {
		i := strings.Index(s, "WARNING: the client read late")
		require.GreaterOrEqual(t, i, 0, s)
		line, _, _ := strings.Cut(s[i:], "\n")
		return line
	}
	assert.Equal(t, warning(stdout), warning(rep), "report says what run said")
	_, runHealth, _ := strings.Cut(stdout, "\nclient health")
	_, repHealth, _ := strings.Cut(rep, "\nclient health")
	runHealth, _, _ = strings.Cut(runHealth, "\nerror set")
	repHealth, _, _ = strings.Cut(repHealth, "\nerror set")
	assert.Equal(t, runHealth, repHealth)
}

// Every run records its health in its end line and prints it; whether it
// warns depends on the machine, so this test does not ask (the verdict
// is genhealth's TestWarnings', on injected figures). A file whose end
// line has none reports none.
func TestRunRecordsClientHealth(t *testing.T) {
	srv, _ := fakeLlama(t)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
		"--requests", "4", "--concurrency", "2", "--prompts", promptsFile(t), "--max-tokens", "8", "--out", out, "--json")
	require.Equal(t, 0, code, errs)
	var got struct {
		Load struct {
			Client struct {
				Window int64 `json:"window_ns"`
				Procs  int   `json:"gomaxprocs"`
				Tick   int64 `json:"tick_ns"`
				Gaps   struct {
					Streams, Gaps int
				} `json:"chunk_gaps"`
			} `json:"client_health"`
		} `json:"load_check"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	c := got.Load.Client
	assert.Positive(t, c.Window)
	assert.Equal(t, runtime.GOMAXPROCS(0), c.Procs)
	assert.Equal(t, int64(10*time.Millisecond), c.Tick)
	// 4 measured streams of 8 chunks: 28 gaps.
	assert.Equal(t, 4, c.Gaps.Streams)
	assert.Equal(t, 28, c.Gaps.Gaps)
	e := endLine(t, out)
	require.NotNil(t, e.Client)
	assert.Equal(t, c.Window, int64(e.Client.Window))

	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, rep, "\nclient health (the generator's own, over ")
	assert.Contains(t, rep, "  chunk gaps: ")
	assert.Contains(t, rep, " of 28 exactly 0 (")

	// The same file without the figures: an end line of before.
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	e.Client = nil
	var end strings.Builder
	require.NoError(t, e.WriteLine(&end))
	lines[len(lines)-1] = strings.TrimSuffix(end.String(), "\n")
	old := filepath.Join(t.TempDir(), "old.jsonl")
	require.NoError(t, os.WriteFile(old, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	code, rep, errs = runCLI(t, "", "report", old)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, rep, "client health")
	assert.NotContains(t, rep, "chunk gaps")
}
