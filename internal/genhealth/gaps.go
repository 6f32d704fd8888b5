package genhealth

import (
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// Gaps is how the chunks of a run's measured streams share their
// timestamps: the symptom of a client that read late. A client stamps
// the chunks of one read with the time of that read, so a gap of exactly
// 0 is two chunks read at once: sent together, or waiting for a client
// that read late.
//
// It counts the measured (neither warm-up nor preflight) ok records of
// two chunks or more.
type Gaps struct {
	Streams int `json:"streams"`
	// OneStamp counts the streams whose chunks all share one timestamp.
	OneStamp int `json:"one_timestamp_streams"`
	// OneToken counts the streams whose chunks each carried one token,
	// as the server counts them: as many chunks as output tokens.
	OneToken int `json:"one_token_per_chunk_streams"`
	Gaps     int `json:"gaps"`
	Zero     int `json:"zero_gaps"`
	// Median is the median gap (nearest rank), zeros included; 0 with
	// no gap.
	Median time.Duration `json:"median_gap_ns"`
}

// GapsOf returns the gaps of the measured streams of recs. It does not
// modify recs.
func GapsOf(recs []llmmetrics.Record) Gaps {
	var g Gaps
	var all []time.Duration
	for i := range recs {
		r := &recs[i]
		c := r.Chunks
		if r.Warmup || r.Preflight || r.Status != llmmetrics.StatusOK || len(c) < 2 {
			continue
		}
		g.Streams++
		if c[0] == c[len(c)-1] {
			g.OneStamp++
		}
		if !r.NoUsage && r.CompletionTokens == len(c) {
			g.OneToken++
		}
		for k := 1; k < len(c); k++ {
			d := c[k] - c[k-1]
			all = append(all, d)
			if d == 0 {
				g.Zero++
			}
		}
	}
	g.Gaps = len(all)
	if len(all) > 0 {
		slices.Sort(all)
		g.Median = all[rank(len(all), 50)-1]
	}
	return g
}

// ZeroShare is the share of the gaps that are exactly 0; 0 with none.
func (g Gaps) ZeroShare() float64 {
	if g.Gaps == 0 {
		return 0
	}
	return float64(g.Zero) / float64(g.Gaps)
}

// OneStampShare is the share of the streams whose chunks share one
// timestamp; 0 with none.
func (g Gaps) OneStampShare() float64 {
	if g.Streams == 0 {
		return 0
	}
	return float64(g.OneStamp) / float64(g.Streams)
}
