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
// the server's cache) should make later turns faster.
type turnRow struct {
	Turn    int           `json:"turn"`
	N       int           `json:"n"`
	TTFTp50 time.Duration `json:"ttft_p50_ns"`
	TTFTp90 time.Duration `json:"ttft_p90_ns"`
	// PromptTokensP50 is the median prompt length the server counted,
	// which grows with the conversation.
	PromptTokensP50 int `json:"prompt_tokens_p50"`
}

// byTurn returns the TTFT by turn of the records that carry turns, nil
// when none does. Percentiles are nearest-rank.
func byTurn(recs []llmmetrics.Record) []turnRow {
	ttfts, prompts := map[int][]time.Duration{}, map[int][]int{}
	for i := range recs {
		r := &recs[i]
		if r.Client == nil || r.Client.Turn == 0 || r.Category() != llmmetrics.CategoryOK {
			continue
		}
		ttft, err := r.TTFT()
		if err != nil {
			continue
		}
		k := r.Client.Turn
		ttfts[k], prompts[k] = append(ttfts[k], ttft), append(prompts[k], r.PromptTokens)
	}
	var rows []turnRow
	p50, p90 := llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(90)
	for k, xs := range ttfts {
		d, err := llmmetrics.Describe(xs, llmmetrics.NearestRank, p50, p90)
		if err != nil {
			continue
		}
		row := turnRow{Turn: k, N: d.N, TTFTp50: d.Points[0].Value, TTFTp90: d.Points[1].Value}
		ps := slices.Sorted(slices.Values(prompts[k]))
		row.PromptTokensP50 = ps[(len(ps)+1)/2-1] // nearest rank: ⌈0.5·n⌉
		rows = append(rows, row)
	}
	slices.SortFunc(rows, func(a, b turnRow) int { return a.Turn - b.Turn })
	return rows
}

// writeTurns writes the TTFT by turn as a table, nothing when rows is
// empty.
func writeTurns(w io.Writer, rows []turnRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nTTFT by turn (multi-turn sessions; ok requests, nearest rank):\n")
	fmt.Fprintf(w, "  %4s  %5s  %12s  %12s  %17s\n", "turn", "n", "TTFT p50", "TTFT p90", "prompt tokens p50")
	for _, r := range rows {
		fmt.Fprintf(w, "  %4d  %5d  %12s  %12s  %17d\n", r.Turn, r.N, fmt.Sprintf("%.3f ms", ms(r.TTFTp50)), fmt.Sprintf("%.3f ms", ms(r.TTFTp90)), r.PromptTokensP50)
	}
}
