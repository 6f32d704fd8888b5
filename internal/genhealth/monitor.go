// Package genhealth measures a load generator's own health while it
// sends a load: how late a ticker wakes, the Go runtime's scheduling
// latency and the process's CPU time (a Monitor, into an
// llmmetrics.ClientHealth); how the chunks of the records it wrote share
// their timestamps (Gaps); and whether the client read its chunks late
// (Warnings).
package genhealth

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// Tick is the ticker's period a run uses.
const Tick = 10 * time.Millisecond

// schedName is the runtime's histogram of scheduling latencies.
const schedName = "/sched/latencies:seconds"

// A Monitor measures the process from Start to Stop.
type Monitor struct {
	start  time.Time
	cpu0   time.Duration
	cpuErr error
	sched0 *metrics.Float64Histogram

	stop, done chan struct{}
	once       sync.Once
	t          ticker
	health     *llmmetrics.ClientHealth
}

// Start begins measuring: a goroutine wakes every tick and notes how
// late it woke, and the CPU time and the runtime's scheduling latencies
// are read now, to be read again at Stop.
func Start(tick time.Duration) *Monitor {
	m := &Monitor{stop: make(chan struct{}), done: make(chan struct{})}
	m.sched0 = readSched()
	m.cpu0, m.cpuErr = cpuTime()
	m.start = time.Now()
	m.t = ticker{tick: tick, due: m.start.Add(tick)}
	go m.run()
	return m
}

// run is the ticker: it sleeps to each deadline and notes its wake.
func (m *Monitor) run() {
	defer close(m.done)
	timer := time.NewTimer(m.t.tick)
	defer timer.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-timer.C:
		}
		now := time.Now()
		m.t.wake(now)
		timer.Reset(m.t.due.Sub(now))
	}
}

// Stop ends the measuring and returns the figures; a second call returns
// the same.
func (m *Monitor) Stop() *llmmetrics.ClientHealth {
	m.once.Do(func() {
		close(m.stop)
		<-m.done
		// The deadlines passed and not yet met waited until now at
		// least: they count, so that a ticker starved to the end is
		// not a ticker that never ticked.
		m.t.wake(time.Now())
		h := &llmmetrics.ClientHealth{Window: time.Since(m.start), Procs: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU(), Tick: m.t.tick}
		absent := map[string]string{}
		cpu1, err := cpuTime()
		if err == nil {
			err = m.cpuErr
		}
		if err != nil {
			absent["cpu"] = "the process's CPU time could not be read: " + err.Error()
		} else {
			h.CPU = cpu1 - m.cpu0
		}
		h.Ticks, h.TickP50, h.TickP90, h.TickP99, h.TickMax = m.t.figures()
		if h.Ticks == 0 {
			absent["ticker"] = "the load ended before the ticker's first deadline"
		}
		s := schedOf(m.sched0, readSched())
		if s.n == 0 {
			absent["sched"] = "the runtime sampled no scheduling latency (" + schedName + ")"
		}
		h.Sched, h.SchedP50, h.SchedP99, h.SchedMax = s.n, s.p50, s.p99, s.max
		if len(absent) > 0 {
			h.Absent = absent
		}
		m.health = h
	})
	return m.health
}
