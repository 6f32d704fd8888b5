package gpu

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// A Summary describes one GPU over a window: how many samples fell in it,
// and of the known values the mean and maximum utilisation, the largest
// memory in use (with the total) and the mean and maximum power. Each
// quantity's N says over how many samples it was known; with N 0 its
// figures are 0 and mean nothing.
type Summary struct {
	Index   int `json:"index"`
	Samples int `json:"samples"`

	UtilizationN       int     `json:"utilization_n"`
	UtilizationMeanPct float64 `json:"utilization_mean_pct"`
	UtilizationMaxPct  float64 `json:"utilization_max_pct"`

	MemoryN          int     `json:"memory_n"`
	MemoryMaxUsedMiB float64 `json:"memory_max_used_mib"`
	MemoryTotalMiB   float64 `json:"memory_total_mib"`

	PowerN     int     `json:"power_n"`
	PowerMeanW float64 `json:"power_mean_w"`
	PowerMaxW  float64 `json:"power_max_w"`
}

// String describes the summary in one line, leaving out what was not
// known.
func (g Summary) String() string {
	s := fmt.Sprintf("GPU %d: %d samples", g.Index, g.Samples)
	if g.UtilizationN > 0 {
		s += fmt.Sprintf(", utilisation mean %.1f%% (max %.0f%%)", g.UtilizationMeanPct, g.UtilizationMaxPct)
	}
	if g.MemoryN > 0 {
		s += fmt.Sprintf(", memory up to %.0f of %.0f MiB", g.MemoryMaxUsedMiB, g.MemoryTotalMiB)
	}
	if g.PowerN > 0 {
		s += fmt.Sprintf(", power mean %.1f W (max %.1f W)", g.PowerMeanW, g.PowerMaxW)
	}
	return s
}

// Summarize summarizes the samples taken in [from, to], one Summary a GPU
// in index order. Samples outside the window are left out; a window with
// no samples gives no summaries.
func Summarize(samples []Sample, from, to time.Time) []Summary {
	by := map[int]*Summary{}
	for _, s := range samples {
		if s.At.Before(from) || s.At.After(to) {
			continue
		}
		g := by[s.Index]
		if g == nil {
			g = &Summary{Index: s.Index}
			by[s.Index] = g
		}
		g.Samples++
		if s.HasUtilization {
			g.UtilizationN++
			g.UtilizationMeanPct += s.UtilizationPct
			g.UtilizationMaxPct = max(g.UtilizationMaxPct, s.UtilizationPct)
		}
		if s.HasMemory {
			g.MemoryN++
			g.MemoryMaxUsedMiB = max(g.MemoryMaxUsedMiB, s.MemoryUsedMiB)
			g.MemoryTotalMiB = max(g.MemoryTotalMiB, s.MemoryTotalMiB)
		}
		if s.HasPower {
			g.PowerN++
			g.PowerMeanW += s.PowerW
			g.PowerMaxW = max(g.PowerMaxW, s.PowerW)
		}
	}
	var out []Summary
	for _, idx := range slices.Sorted(maps.Keys(by)) {
		g := by[idx]
		if g.UtilizationN > 0 {
			g.UtilizationMeanPct /= float64(g.UtilizationN)
		}
		if g.PowerN > 0 {
			g.PowerMeanW /= float64(g.PowerN)
		}
		out = append(out, *g)
	}
	return out
}
