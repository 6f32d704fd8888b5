package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// A turnRow is the TTFT of one turn of a run's multi-turn sessions, over
// its measured ok requests: a warm prefix (the conversation so far, in
// the server's cache) should make later turns faster. A turn none of
// whose requests ended ok still has its row: its TTFT and prompt length
// are absent, with Absent saying why.
type turnRow struct {
	Turn     int `json:"turn"`
	Measured int `json:"measured"` // the turn's measured requests, failed ones included
	N        int `json:"n"`        // of which ok with a TTFT
	// TTFTp50MS and TTFTp90MS are in milliseconds, as every latency of
	// the report's JSON.
	TTFTp50MS *float64 `json:"ttft_p50_ms,omitempty"`
	TTFTp90MS *float64 `json:"ttft_p90_ms,omitempty"`
	// PromptTokensP50 is the median prompt length the server counted,
	// which grows with the conversation.
	PromptTokensP50 *int   `json:"prompt_tokens_p50,omitempty"`
	Absent          string `json:"absent,omitempty"`
}

// noOKTurn is the reason a turn's figures are absent.
const noOKTurn = "no request of this turn ended ok"

// byTurn returns the TTFT by turn of the measured records that carry
// turns, nil when none does. Percentiles are nearest-rank.
func byTurn(recs []llmmetrics.Record) []turnRow {
	measured, ttfts, prompts := map[int]int{}, map[int][]time.Duration{}, map[int][]int{}
	for i := range recs {
		r := &recs[i]
		if r.Client == nil || r.Client.Turn == 0 || r.Category() == llmmetrics.CategoryWarmup {
			continue
		}
		k := r.Client.Turn
		measured[k]++
		if ttft, err := r.TTFT(); err == nil && r.Category() == llmmetrics.CategoryOK {
			ttfts[k], prompts[k] = append(ttfts[k], ttft), append(prompts[k], r.PromptTokens)
		}
	}
	var rows []turnRow
	for k, n := range measured {
		rows = append(rows, turnOf(k, n, ttfts[k], prompts[k]))
	}
	slices.SortFunc(rows, func(a, b turnRow) int { return a.Turn - b.Turn })
	return rows
}

// turnOf returns the row of turn k, of its measured requests and its ok
// requests' TTFTs and prompt lengths.
func turnOf(k, measured int, ttfts []time.Duration, prompts []int) turnRow {
	row := turnRow{Turn: k, Measured: measured, Absent: noOKTurn}
	p50, p90 := llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(90)
	d, err := llmmetrics.Describe(ttfts, llmmetrics.NearestRank, p50, p90)
	if err != nil {
		return row
	}
	lo, hi := ms(d.Points[0].Value), ms(d.Points[1].Value)
	ps := slices.Sorted(slices.Values(prompts))
	mid := ps[(len(ps)+1)/2-1] // nearest rank: ⌈0.5·n⌉
	row.N, row.TTFTp50MS, row.TTFTp90MS, row.PromptTokensP50, row.Absent = d.N, &lo, &hi, &mid, ""
	return row
}

// writeTurns writes the TTFT by turn as a table, nothing when rows is
// empty.
func writeTurns(w io.Writer, rows []turnRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nTTFT by turn (multi-turn sessions; measured requests, TTFT of the ok ones, nearest rank):\n")
	fmt.Fprintf(w, "  %4s  %8s  %5s  %12s  %12s  %17s\n", "turn", "measured", "ok", "TTFT p50", "TTFT p90", "prompt tokens p50")
	for _, r := range rows {
		if r.TTFTp50MS == nil {
			fmt.Fprintf(w, "  %4d  %8d  %5d  absent: %s\n", r.Turn, r.Measured, r.N, r.Absent)
			continue
		}
		fmt.Fprintf(w, "  %4d  %8d  %5d  %12s  %12s  %17d\n", r.Turn, r.Measured, r.N, fmt.Sprintf("%.3f ms", *r.TTFTp50MS), fmt.Sprintf("%.3f ms", *r.TTFTp90MS), *r.PromptTokensP50)
	}
}
