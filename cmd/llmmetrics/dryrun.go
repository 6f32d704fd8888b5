package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics/drive"
)

// dryRunURL stands for a dry run's endpoint when --url is not given: a
// plan needs none, and nothing is sent.
const dryRunURL = "http://dry-run.invalid/v1/chat/completions"

// runDryRun is run --dry-run: the load planned as the run would send it,
// written to --out and described, or written alone to standard output (a
// description there would corrupt the plan), with nothing sent.
func runDryRun(fs *flag.FlagSet, f *runFlags, stdout io.Writer) error {
	if flagSet(fs, "shard") || flagSet(fs, "start-at") {
		return fmt.Errorf("%w: --dry-run plans the whole run: leave out --shard and --start-at", errUsage)
	}
	noURL := *f.url == ""
	if noURL {
		*f.url = dryRunURL
	}
	p, _, err := f.plan(fs)
	if err != nil {
		return err
	}
	p.PromptTokensEach = f.plannedPromptLengths(p) // replay.go
	reqs, note, err := drive.Schedule(p)
	if err != nil {
		return fmt.Errorf("%w: --dry-run: %s", errUsage, trimPrefix(errors.New(strings.TrimPrefix(err.Error(), "drive: "))))
	}
	h := &drive.PlanHeader{Tool: version(), API: p.API.String(), Model: p.Model, Load: f.load(p), Flags: map[string]string{}}
	delete(h.Load, promptSaltKey) // the plan's rows carry no text: the salt is its run's
	if !noURL {
		h.Target = p.URL
	}
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name != "header" && fl.Name != "prompt-salt" {
			h.Flags[fl.Name] = fl.Value.String()
		}
	})
	if f.endpointNote != "" && !noURL {
		h.Notes = append(h.Notes, f.endpointNote+".")
	}
	h.Notes = append(h.Notes, f.replayNotes()...)
	if note != "" {
		h.Notes = append(h.Notes, "The plan leaves out the warm-up: "+note+".")
	}
	if *f.promptTokens > 0 || len(p.Replay) > 0 {
		h.Notes = append(h.Notes, "Prompt tokens are the lengths targeted: the prompts are made, and sized by the server's count, when the run is sent.")
	}
	if p.Sessions > 0 {
		h.Notes = append(h.Notes, "A session's prompt_tokens are its turn's new message alone: the turn sends the conversation so far before it, the server's real answers included, which a plan cannot know.")
	}
	if *f.out == "" {
		return drive.WritePlan(stdout, h, reqs)
	}
	if st, err := os.Stat(*f.out); err == nil && !*f.force && st.Mode().IsRegular() {
		return valueError(fmt.Sprintf("--out %s exists; --force overwrites it", *f.out))
	}
	file, err := os.Create(*f.out)
	if err != nil {
		return err
	}
	if err := drive.WritePlan(file, h, reqs); err != nil {
		file.Close()
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	return describePlan(stdout, *f.out, h, reqs)
}

// isPlan says whether a file's first bytes begin a plan file.
func isPlan(head []byte) bool {
	return bytes.HasPrefix(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), []byte(drive.PlanPrefix))
}

// reportPlan is report of a plan file: it is described, as JSON when
// asJSON.
func reportPlan(w io.Writer, in io.Reader, name string, asJSON bool) error {
	h, reqs, err := drive.ReadPlan(in)
	if err != nil {
		return fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "drive: "))
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(summarizePlan(name, h, reqs))
	}
	return describePlan(w, name, h, reqs)
}

// A planSummary is what a plan would send, report --json's form of a
// plan: nothing in it was measured.
type planSummary struct {
	Plan        string            `json:"plan"`
	NothingSent bool              `json:"nothing_sent"` // always true: a plan is not a run
	Requests    int               `json:"requests"`     // measured, after the warm-up
	Warmup      int               `json:"warmup_requests"`
	Load        map[string]string `json:"load,omitempty"`
	Target      string            `json:"target,omitempty"`
	API         string            `json:"api,omitempty"`
	Model       string            `json:"model,omitempty"`
	// Schedule is absent for a closed loop, which sends each request as
	// one ends, and for sessions (Absent says why).
	Schedule     *planSchedule `json:"schedule,omitempty"`
	Sessions     *planSessions `json:"sessions,omitempty"` // plansessions.go
	PromptTokens *planLengths  `json:"prompt_tokens,omitempty"`
	MaxTokens    *planLengths  `json:"max_tokens,omitempty"`
	GivenPrompts int           `json:"given_prompts,omitempty"` // requests whose prompt is text (--prompts), not a length
	PrefixBlocks int           `json:"prefix_blocks,omitempty"`
	Distinct     int           `json:"distinct_prefix_blocks,omitempty"`
	Notes        []string      `json:"notes,omitempty"`
	// Absent gives the reason of a figure left out: "schedule" for
	// sessions.
	Absent map[string]string `json:"absent,omitempty"`

	sched, gaps []time.Duration
}

// planSchedule is when a plan's measured requests are due, from the
// measured part's start.
type planSchedule struct {
	FirstS   float64 `json:"first_s"`
	LastS    float64 `json:"last_s"`
	RatePerS float64 `json:"rate_per_s,omitempty"` // absent when they are all due at once
	GapP50S  float64 `json:"gap_p50_s,omitempty"`
	GapP90S  float64 `json:"gap_p90_s,omitempty"`
	GapP99S  float64 `json:"gap_p99_s,omitempty"`
	GapLongS float64 `json:"gap_longest_s,omitempty"`
}

// planLengths are the lengths of a plan's requests, nearest-rank
// percentiles.
type planLengths struct {
	Min      int     `json:"min"`
	P50      int     `json:"p50"`
	Mean     float64 `json:"mean"`
	P99      int     `json:"p99"`
	Max      int     `json:"max"`
	Requests int     `json:"requests"`
}

// summarizePlan sums up what a plan would send.
func summarizePlan(name string, h *drive.PlanHeader, reqs []drive.Request) *planSummary {
	s := &planSummary{Plan: name, NothingSent: true, Load: h.Load, Target: h.Target, Notes: h.Notes}
	if h.Target != "" {
		s.API, s.Model = h.API, h.Model
	}
	var prompts, outs []int
	distinct := map[int]bool{}
	for i, q := range reqs {
		if q.Warmup {
			s.Warmup++
			continue
		}
		if q.HasSchedule {
			s.sched = append(s.sched, q.Scheduled)
			if i > 0 && reqs[i-1].HasSchedule && !reqs[i-1].Warmup {
				s.gaps = append(s.gaps, q.Scheduled-reqs[i-1].Scheduled)
			}
		}
		if q.PromptTokens > 0 {
			prompts = append(prompts, q.PromptTokens)
		}
		if q.MaxTokens > 0 {
			outs = append(outs, q.MaxTokens)
		}
		s.PrefixBlocks += len(q.PrefixBlocks)
		for _, id := range q.PrefixBlocks {
			distinct[id] = true
		}
	}
	s.Requests, s.Distinct = len(reqs)-s.Warmup, len(distinct)
	s.GivenPrompts = s.Requests - len(prompts)
	if s.Sessions = sessionsOf(reqs); s.Sessions != nil {
		s.sched, s.gaps = nil, nil
		s.Absent = map[string]string{"schedule": sessionsUnscheduled}
	}
	if len(s.sched) > 0 {
		sc := &planSchedule{FirstS: s.sched[0].Seconds(), LastS: s.sched[len(s.sched)-1].Seconds()}
		if span := s.sched[len(s.sched)-1] - s.sched[0]; span > 0 {
			sc.RatePerS = float64(len(s.sched)-1) / span.Seconds()
		}
		if len(s.gaps) > 0 {
			slices.Sort(s.gaps)
			sc.GapP50S, sc.GapP90S, sc.GapP99S = nearest(s.gaps, 50).Seconds(), nearest(s.gaps, 90).Seconds(), nearest(s.gaps, 99).Seconds()
			sc.GapLongS = s.gaps[len(s.gaps)-1].Seconds()
		}
		s.Schedule = sc
	}
	s.PromptTokens, s.MaxTokens = lengthsOf(prompts), lengthsOf(outs)
	return s
}

// lengthsOf sums up xs, sorting it; nil for none.
func lengthsOf(xs []int) *planLengths {
	if len(xs) == 0 {
		return nil
	}
	slices.Sort(xs)
	sum := 0
	for _, x := range xs {
		sum += x
	}
	return &planLengths{Min: xs[0], P50: nearest(xs, 50), Mean: float64(sum) / float64(len(xs)), P99: nearest(xs, 99), Max: xs[len(xs)-1], Requests: len(xs)}
}

// describePlan prints what a plan would send: how many requests, when,
// and of what lengths.
func describePlan(w io.Writer, name string, h *drive.PlanHeader, reqs []drive.Request) error {
	b := &strings.Builder{}
	s := summarizePlan(name, h, reqs)
	fmt.Fprintf(b, "PLAN %s (nothing sent): %d requests", name, s.Requests)
	if s.Warmup > 0 {
		fmt.Fprintf(b, " after %d warm-up", s.Warmup)
	}
	fmt.Fprintln(b)
	for _, k := range []string{"loop", "arrivals", "rate_per_s", "burstiness", "concurrency", "max_in_flight", "seed", "replay", "replay_format", "replay_window", "speed", "scale_tokens", "cap_prompt_tokens", "cap_output_tokens", "output_length", "prefix_groups", "prefix_block_tokens", "prefix_sharing"} {
		if v, ok := h.Load[k]; ok {
			fmt.Fprintf(b, "  %-18s %s\n", k, v)
		}
	}
	if h.Target != "" {
		fmt.Fprintf(b, "  %-18s %s (%s, model %q)\n", "target", h.Target, h.API, h.Model)
	}
	if s.Sessions != nil {
		describeSessions(b, s.Sessions) // plansessions.go
	} else if sched, gaps := s.sched, s.gaps; len(sched) > 0 {
		span := sched[len(sched)-1] - sched[0]
		fmt.Fprintf(b, "  schedule           %v to %v from the measured part's start", sched[0], sched[len(sched)-1])
		if span > 0 {
			fmt.Fprintf(b, ", %.4g requests/s", float64(len(sched)-1)/span.Seconds())
		}
		fmt.Fprintln(b)
		if len(gaps) > 0 {
			fmt.Fprintf(b, "  gaps               p50 %v, p90 %v, p99 %v, longest %v\n", nearest(gaps, 50), nearest(gaps, 90), nearest(gaps, 99), gaps[len(gaps)-1])
		}
	} else if s.Requests > 0 {
		fmt.Fprintln(b, "  schedule           none: a closed loop sends each request as one ends")
	}
	for _, l := range []struct {
		what string
		l    *planLengths
	}{{"prompt tokens", s.PromptTokens}, {"max tokens", s.MaxTokens}} {
		if l.l == nil {
			continue
		}
		fmt.Fprintf(b, "  %-18s min %d, p50 %d, mean %.1f, p99 %d, max %d (%d requests)\n", l.what, l.l.Min, l.l.P50, l.l.Mean, l.l.P99, l.l.Max, l.l.Requests)
	}
	if s.GivenPrompts > 0 {
		fmt.Fprintf(b, "  %-18s %d requests' prompts are given text (--prompts), not a length\n", "", s.GivenPrompts)
	}
	if s.PrefixBlocks > 0 {
		fmt.Fprintf(b, "  prefix blocks      %d, %d distinct (%.1f%% repeats)\n", s.PrefixBlocks, s.Distinct, 100*float64(s.PrefixBlocks-s.Distinct)/float64(s.PrefixBlocks))
	}
	for _, n := range h.Notes {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// nearest returns the nearest-rank p-th percentile of sorted xs.
func nearest[T any](xs []T, p int) T {
	k := (p*len(xs) + 99) / 100
	return xs[max(k, 1)-1]
}
