package main

// This file holds run's shards: --shard i/N sends the i-th share of a plan
// that one machine cannot send alone, --shard auto takes i from a
// Kubernetes Indexed Job, and --start-at makes the shards start together;
// report --merge joins their files into one run (see merge.go).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
)

// shardFlags are run's --shard, --shards and --start-at.
type shardFlags struct {
	shard, startAt *string
	shards         *int
}

// The variables of --shard auto: Kubernetes sets indexVar in each pod of
// an Indexed Job (completionMode: Indexed), from 0 to completions-1, but
// no variable for the completions themselves, which the Job's manifest
// repeats in shardsVar (or the command in --shards).
const (
	indexVar  = "JOB_COMPLETION_INDEX"
	shardsVar = "LLMMETRICS_SHARDS"
)

func (s *shardFlags) define(fs *flag.FlagSet) {
	s.shard = fs.String("shard", "", "send share `i/N` of the plan (rate, concurrency and requests divided by N, ids prefixed, one plan id), for report --merge to join; auto: i is $"+indexVar+" + 1, as a Kubernetes Indexed Job sets it, and N is --shards or $"+shardsVar)
	s.shards = fs.Int("shards", 0, "with --shard auto: the number of shards `N`, the Indexed Job's completions (default $"+shardsVar+")")
	s.startAt = fs.String("start-at", "", "wait until this wall-clock `time` (RFC 3339, e.g. 2026-12-01T15:00:00Z) before sending, so that shards start together; up to 30 s late starts at once, later is refused")
}

// A share is what a shard sends of its plan.
type share struct {
	i, n    int
	plan    string    // the plan's id, the same in every shard
	startAt time.Time // zero: at once
	// empty says the share holds no request: the plan has fewer requests
	// than shards, and this shard comes after the last that takes one.
	empty bool
}

// apply cuts p down to the shard's share and returns it; the zero share
// (and p unchanged) without --shard. The plan id is taken from the flags
// that define the load (see planID), before the cut, so that every shard
// of one plan has the same. Concurrency and requests are divided as
// evenly as whole numbers allow (the first shards take the remainder),
// the rate exactly; a duration and a warm-up are each shard's own; each
// shard's arrivals and prompts are seeded apart.
//
// An uneven split is decided from the plan alone, so that every shard
// decides it the same way: a concurrency below N is refused by every
// shard (each needs a request in flight); requests below N leave the
// last shards an empty share, which sends nothing and writes a header
// and a completed end line, so that report --merge finds all N files.
func (s *shardFlags) apply(fs *flag.FlagSet, p *drive.Plan) (share, error) {
	var sh share
	if *s.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, *s.startAt)
		if err != nil {
			return sh, valueError(fmt.Sprintf("--start-at %q: want an RFC 3339 time, e.g. 2026-12-01T15:00:00Z", *s.startAt))
		}
		sh.startAt = t
		if err := sh.late(); err != nil { // before any request is sent or file written
			return sh, err
		}
	}
	if flagSet(fs, "shards") && *s.shard != "auto" {
		return sh, valueError(fmt.Sprintf("--shards %d belongs to --shard auto (with --shard i/N, N is in i/N)", *s.shards))
	}
	if *s.shard == "" {
		return sh, nil
	}
	name := *s.shard
	i, n, ok := parseShard(*s.shard)
	if *s.shard == "auto" {
		var err error
		if i, n, err = autoShard(*s.shards, flagSet(fs, "shards"), os.LookupEnv); err != nil {
			return sh, err
		}
		name, ok = fmt.Sprintf("auto (%d/%d)", i, n), true
	}
	if !ok {
		return sh, fmt.Errorf("%w: --shard %q: want i/N with 1 ≤ i ≤ N, or auto", errUsage, *s.shard)
	}
	sh.i, sh.n = i, n
	sh.plan = planID(fs, *p, n)
	if c := p.Concurrency; c > 0 && c < n {
		return sh, fmt.Errorf("%w: --shard %s: --concurrency %d cannot be shared by %d shards, each of which needs a request in flight: give --concurrency %d or more, or fewer shards", errUsage, name, c, n, n)
	}
	divide := func(total int) int {
		part := total / n
		if i <= total%n {
			part++
		}
		return part
	}
	sh.empty = p.Requests > 0 && divide(p.Requests) == 0
	p.Concurrency, p.Requests = divide(p.Concurrency), divide(p.Requests)
	p.Rate /= float64(n)
	p.Seed += uint64(i-1) * 1_000_003
	return sh, nil
}

// parseShard reads a shard's "i/N".
func parseShard(v string) (i, n int, ok bool) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, false
	}
	return i, n, true
}

// autoShard is --shard auto's i/N: i is indexVar + 1 (the index is
// 0-based), N is --shards when given, else shardsVar; both given must
// agree. Each mistake is one line that names the variable.
func autoShard(shards int, given bool, lookup func(string) (string, bool)) (i, n int, err error) {
	v, ok := lookup(indexVar)
	if !ok || v == "" {
		return 0, 0, valueError("--shard auto: " + indexVar + " is not set: Kubernetes sets it in each pod of an Indexed Job (completionMode: Indexed); elsewhere give --shard i/N")
	}
	index, err := strconv.Atoi(v)
	if err != nil || index < 0 {
		return 0, 0, valueError(fmt.Sprintf("--shard auto: %s %q: want a whole number from 0, the pod's completion index", indexVar, v))
	}
	env, set := lookup(shardsVar)
	set = set && env != ""
	from := "--shards"
	switch {
	case set:
		m, err := strconv.Atoi(env)
		if err != nil || m < 1 {
			return 0, 0, valueError(fmt.Sprintf("--shard auto: %s %q: want the number of shards, a whole number from 1 (the Job's completions)", shardsVar, env))
		}
		if given && m != shards {
			return 0, 0, valueError(fmt.Sprintf("--shard auto: --shards %d and %s=%d differ: give the number of shards once", shards, shardsVar, m))
		}
		n, from = m, shardsVar
	case given:
		n = shards
	default:
		return 0, 0, valueError("--shard auto: the number of shards is not given: give --shards N or set " + shardsVar + " to the Indexed Job's completions (Kubernetes sets no variable for them)")
	}
	if n < 1 {
		return 0, 0, valueError(fmt.Sprintf("--shard auto: --shards %d: want the number of shards, a whole number from 1 (the Job's completions)", n))
	}
	if index >= n {
		return 0, 0, valueError(fmt.Sprintf("--shard auto: %s %d is outside 0…%d, the indexes of %d shards (%s): give the Job's completions and %s the same number", indexVar, index, n-1, n, from, from))
	}
	return index + 1, n, nil
}

// planFlags are the flags that define a plan's load, whose values its id
// hashes: what is sent, to where, how fast, how many and for how long.
// Where the output goes (--out, --timings, --force, --scrape, --json,
// --env), how the report judges it (--slo, --fail-if, --max-error-rate,
// percentiles) and the request headers (which may hold a machine's own
// key) are left out, so that shards given different ones still merge.
var planFlags = []string{
	"url", "api", "model", "requests", "duration", "concurrency", "rate", "burstiness", "seed",
	"warmup", "prompt-tokens", "max-tokens", "body", "timeout", "stall", "keep-alive",
}

// planID is a short hash of the plan's load: the planFlags' values, set
// or not, the prompts of --prompts (their text, not the file's name, which
// may differ between machines) and the number of shards n.
func planID(fs *flag.FlagSet, p drive.Plan, n int) string {
	h := sha256.New()
	for _, name := range planFlags {
		fmt.Fprintf(h, "%s=%s\n", name, fs.Lookup(name).Value.String())
	}
	if fs.Lookup("prompts").Value.String() != "" {
		for _, pr := range p.Prompts {
			fmt.Fprintf(h, "prompt=%q\n", pr)
		}
		fmt.Fprintf(h, "max_tokens_each=%v\n", p.MaxTokensEach)
	}
	fmt.Fprintf(h, "shards=%d\n", n)
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// lateStart is how far past its start time a shard may begin and still
// start at once: a process (a pod) that started a little late joins the
// others, and the merge compares the measured loads' starts anyway. A
// start further past is an error, since it is a mistake (yesterday's
// time), not a late process.
const lateStart = 30 * time.Second

// wait waits until the share's start time, or returns the context's
// error; a start more than lateStart past is an error.
func (sh share) wait(ctx context.Context) error {
	if sh.startAt.IsZero() {
		return nil
	}
	if err := sh.late(); err != nil {
		return err
	}
	d := time.Until(sh.startAt)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// late returns the error of a start time more than lateStart past.
func (sh share) late() error {
	if d := time.Since(sh.startAt); d > lateStart {
		return valueError(fmt.Sprintf("--start-at %s is %v in the past, more than the %v a late start may be", sh.startAt.Format(time.RFC3339Nano), d.Round(time.Millisecond), lateStart))
	}
	return nil
}

// record prefixes a result's id with the shard ("s2-17"), before the
// result is written.
func (sh share) record(r *observe.Result) {
	if sh.n > 0 {
		r.Record.ID = fmt.Sprintf("s%d-%s", sh.i, r.Record.ID)
	}
}

// describe writes the shard and the plan id into the header's load.
func (sh share) describe(load map[string]string) {
	if sh.n > 0 {
		load["shard"] = fmt.Sprintf("%d/%d", sh.i, sh.n)
		load["plan"] = sh.plan
	}
}

// runEmpty runs an empty share: it sends nothing, not even a test
// request, and writes its file's header (the shard, the plan id, and 0
// requests) and a completed end line of 0 planned, 0 written; it prints
// why in place of a report.
func (f *runFlags) runEmpty(fs *flag.FlagSet, p drive.Plan, sh share, stdout io.Writer) error {
	w, _, err := outputs{out: *f.out, timings: *f.timings}.check(f.inputs(), *f.force)
	if err != nil {
		return err
	}
	note := fmt.Sprintf("Shard %d/%d sent nothing: the plan's %d requests are fewer than its %d shards, and the first %d take one each.",
		sh.i, sh.n, *f.requests, sh.n, *f.requests)
	load := f.load(p)
	delete(load, "duration")
	load["requests"] = "0"
	h := f.headerOnly(fs, p, time.Now(), load)
	sh.describe(h.Load)
	if err := w.header(h); err != nil {
		w.finish(&llmmetrics.RunEnd{State: "interrupted"})
		return err
	}
	if err := w.finish(&llmmetrics.RunEnd{State: "completed", Notes: []string{note}}); err != nil {
		return err
	}
	if *f.json {
		b, err := json.Marshal(map[string]any{"shard": fmt.Sprintf("%d/%d", sh.i, sh.n), "requests": 0, "notes": []string{note}})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	_, err = fmt.Fprintln(stdout, note)
	return err
}
