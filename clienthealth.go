package llmmetrics

import "time"

// A ClientHealth is how well a load generator kept up with its own work
// while it sent a run's load: whether it could read each chunk when it
// arrived. A client that reads late stamps several chunks with the time
// of one read, and its gaps (ITL) are then its own delays, not the
// server's. A generator measures it over the load (warm-up and drain
// included) and keeps it in its end line (RunEnd.Client).
//
// Three measures, each over Window:
//
//   - a ticker: a goroutine that sleeps to a deadline every Tick and notes
//     how late it woke (Ticks wakes; TickP50, TickP90, TickP99 and TickMax of
//     their lateness, by nearest rank). It is late when the process, or
//     the machine, left it waiting.
//   - the Go runtime's scheduling latency (runtime/metrics
//     /sched/latencies:seconds, sampled by the runtime): the time
//     goroutines spent runnable before they ran. The runtime keeps a
//     histogram, so each figure is the bucket [low, high) it falls in,
//     in nanoseconds; a high of 0 means the bucket has no upper bound.
//   - the process's CPU time, user and system, beside Procs (GOMAXPROCS)
//     and CPUs (the machine's).
//
// A figure that was not measured is zero, with its reason in Absent by
// its key ("ticker", "sched", "cpu").
type ClientHealth struct {
	Window time.Duration `json:"window_ns"`  // the time the figures cover
	Procs  int           `json:"gomaxprocs"` // GOMAXPROCS
	CPUs   int           `json:"cpus"`       // logical CPUs of the machine
	CPU    time.Duration `json:"cpu_ns"`     // the process's CPU time, user and system

	Tick    time.Duration `json:"tick_ns"` // the ticker's period
	Ticks   int           `json:"ticks"`   // wakes measured
	TickP50 time.Duration `json:"tick_late_p50_ns"`
	TickP90 time.Duration `json:"tick_late_p90_ns,omitempty"` // absent from files before it
	TickP99 time.Duration `json:"tick_late_p99_ns"`
	TickMax time.Duration `json:"tick_late_max_ns"`

	// Sched counts the scheduling latencies the runtime sampled;
	// SchedP50, SchedP99 and SchedMax are the buckets [low, high) of
	// their median, 99th percentile (nearest rank) and largest.
	Sched    uint64           `json:"sched_samples"`
	SchedP50 [2]time.Duration `json:"sched_latency_p50_ns"`
	SchedP99 [2]time.Duration `json:"sched_latency_p99_ns"`
	SchedMax [2]time.Duration `json:"sched_latency_max_ns"`

	Absent map[string]string `json:"absent,omitempty"`
}
