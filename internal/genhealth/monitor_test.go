package genhealth

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hog keeps n goroutines busy for d, none of them yielding of its own:
// with GOMAXPROCS 1, a goroutine woken meanwhile waits for the runtime to
// preempt the one running, about 10 ms (its forcePreemptNS) after it got
// the processor.
func hog(d time.Duration, n int) {
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	wg.Add(n)
	for range n {
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
			}
		}()
	}
	wg.Wait()
}

// A CPU-starved client is told it read late (issue #30, point 9). The
// test starves the monitor's own process: one processor, two goroutines
// that never yield for 400 ms. Each of the ~40 deadlines of the 10 ms
// ticker comes at a random point of a hog's 10 ms slice and waits for its
// end, about 5 ms on average: the p99 (by nearest rank, the largest or
// second largest of 40) is well above 2 ms (MinLate) on any machine, and a slower
// or busier machine only starves it more.
func TestStarvedClientWarns(t *testing.T) {
	if testing.Short() {
		t.Skip("starves the process for 400 ms")
	}
	m := Start(Tick)
	prev := runtime.GOMAXPROCS(1)
	hog(400*time.Millisecond, 2)
	runtime.GOMAXPROCS(prev)
	h := m.Stop()
	require.GreaterOrEqual(t, h.Ticks, 30, "400 ms of a 10 ms ticker: every deadline counts, met or not")
	assert.GreaterOrEqual(t, h.TickP99, MinLate, "%+v", h)
	ws := Warnings(h, Gaps{})
	require.Len(t, ws, 1, "%+v", h)
	assert.Contains(t, ws[0], "WARNING: the client read late: a ticker of 10ms woke ")
	assert.Contains(t, ws[0], "run the client on a quieter machine or with fewer concurrent requests")
	t.Log(ws[0])
}

// A monitor's figures are all there, whatever the machine's load: the
// verdict on them is TestWarnings', on injected figures.
func TestMonitorFigures(t *testing.T) {
	m := Start(5 * time.Millisecond)
	time.Sleep(30 * time.Millisecond)
	h := m.Stop()
	assert.Same(t, h, m.Stop(), "a second Stop returns the same")
	assert.GreaterOrEqual(t, h.Window, 30*time.Millisecond)
	assert.Equal(t, 5*time.Millisecond, h.Tick)
	// At least the 6 deadlines of 30 ms passed; met or not, each counts.
	assert.GreaterOrEqual(t, h.Ticks, 6)
	assert.LessOrEqual(t, h.TickP50, h.TickP99)
	assert.LessOrEqual(t, h.TickP99, h.TickMax)
	assert.Equal(t, runtime.GOMAXPROCS(0), h.Procs)
	assert.Equal(t, runtime.NumCPU(), h.CPUs)
	if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
		assert.NotContains(t, h.Absent, "cpu")
	}
	if h.Sched > 0 {
		assert.LessOrEqual(t, h.SchedP50[0], h.SchedP99[0])
		assert.LessOrEqual(t, h.SchedP99[0], h.SchedMax[0])
	} else {
		assert.Contains(t, h.Absent, "sched")
	}
}
