package main

import (
	"bytes"
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
// written to --out (or standard output) and described, with nothing sent.
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
	if !noURL {
		h.Target = p.URL
	}
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name != "header" {
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
	if *f.out == "" {
		return drive.WritePlan(stdout, h, reqs)
	}
	if st, err := os.Stat(*f.out); err == nil && !*f.force && st.Mode().IsRegular() {
		return fmt.Errorf("%w: --out %s exists: give --force to overwrite it", errUsage, *f.out)
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

// reportPlan is report of a plan file: it is described.
func reportPlan(w io.Writer, in io.Reader, name string) error {
	h, reqs, err := drive.ReadPlan(in)
	if err != nil {
		return fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "drive: "))
	}
	return describePlan(w, name, h, reqs)
}

// describePlan prints what a plan would send: how many requests, when,
// and of what lengths.
func describePlan(w io.Writer, name string, h *drive.PlanHeader, reqs []drive.Request) error {
	b := &strings.Builder{}
	warm := 0
	var gaps []time.Duration
	var sched []time.Duration
	var prompts, outs []int
	blocks, distinct := 0, map[int]bool{}
	for i, q := range reqs {
		if q.Warmup {
			warm++
			continue
		}
		if q.HasSchedule {
			sched = append(sched, q.Scheduled)
			if i > 0 && reqs[i-1].HasSchedule && !reqs[i-1].Warmup {
				gaps = append(gaps, q.Scheduled-reqs[i-1].Scheduled)
			}
		}
		if q.PromptTokens > 0 {
			prompts = append(prompts, q.PromptTokens)
		}
		if q.MaxTokens > 0 {
			outs = append(outs, q.MaxTokens)
		}
		blocks += len(q.PrefixBlocks)
		for _, id := range q.PrefixBlocks {
			distinct[id] = true
		}
	}
	measured := len(reqs) - warm
	fmt.Fprintf(b, "PLAN %s (nothing sent): %d requests", name, measured)
	if warm > 0 {
		fmt.Fprintf(b, " after %d warm-up", warm)
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
	if len(sched) > 0 {
		span := sched[len(sched)-1] - sched[0]
		fmt.Fprintf(b, "  schedule           %v to %v from the measured part's start", sched[0], sched[len(sched)-1])
		if span > 0 {
			fmt.Fprintf(b, ", %.4g requests/s", float64(len(sched)-1)/span.Seconds())
		}
		fmt.Fprintln(b)
		if len(gaps) > 0 {
			slices.Sort(gaps)
			fmt.Fprintf(b, "  gaps               p50 %v, p90 %v, p99 %v, longest %v\n", nearest(gaps, 50), nearest(gaps, 90), nearest(gaps, 99), gaps[len(gaps)-1])
		}
	} else if measured > 0 {
		fmt.Fprintln(b, "  schedule           none: a closed loop sends each request as one ends")
	}
	for _, l := range []struct {
		what string
		xs   []int
	}{{"prompt tokens", prompts}, {"max tokens", outs}} {
		if len(l.xs) == 0 {
			continue
		}
		slices.Sort(l.xs)
		sum := 0
		for _, x := range l.xs {
			sum += x
		}
		fmt.Fprintf(b, "  %-18s min %d, p50 %d, mean %.1f, p99 %d, max %d (%d requests)\n", l.what, l.xs[0], nearest(l.xs, 50),
			float64(sum)/float64(len(l.xs)), nearest(l.xs, 99), l.xs[len(l.xs)-1], len(l.xs))
	}
	if len(prompts) < measured {
		fmt.Fprintf(b, "  %-18s %d requests' prompts are given text (--prompts), not a length\n", "", measured-len(prompts))
	}
	if blocks > 0 {
		fmt.Fprintf(b, "  prefix blocks      %d, %d distinct (%.1f%% repeats)\n", blocks, len(distinct), 100*float64(blocks-len(distinct))/float64(blocks))
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
