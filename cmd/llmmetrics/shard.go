package main

// This file holds run's shards: --shard i/N sends the i-th share of a plan
// that one machine cannot send alone, and --start-at makes the shards start
// together; report --merge joins their files into one run (see merge.go).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
)

// shardFlags are run's --shard and --start-at.
type shardFlags struct {
	shard, startAt *string
}

func (s *shardFlags) define(fs *flag.FlagSet) {
	s.shard = fs.String("shard", "", "send share `i/N` of the plan (rate, concurrency and requests divided by N, ids prefixed, one plan id), for report --merge to join")
	s.startAt = fs.String("start-at", "", "wait until this wall-clock `time` (RFC 3339, e.g. 2026-12-01T15:00:00Z) before sending, so that shards start together")
}

// A share is what a shard sends of its plan.
type share struct {
	i, n    int
	plan    string    // the plan's id, the same in every shard
	startAt time.Time // zero: at once
}

// apply cuts p down to the shard's share and returns it; the zero share
// (and p unchanged) without --shard. The plan id is taken from the flags
// that define the plan, before the cut, so that every shard of one plan
// has the same. Concurrency and requests are divided as evenly as whole
// numbers allow (the first shards take the remainder), the rate exactly;
// a duration and a warm-up are each shard's own; each shard's arrivals
// and prompts are seeded apart.
func (s *shardFlags) apply(fs *flag.FlagSet, p *drive.Plan) (share, error) {
	var sh share
	if *s.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, *s.startAt)
		if err != nil {
			return sh, fmt.Errorf("%w: --start-at %q: want an RFC 3339 time, e.g. 2026-12-01T15:00:00Z", errUsage, *s.startAt)
		}
		sh.startAt = t
	}
	if *s.shard == "" {
		return sh, nil
	}
	a, b, ok := strings.Cut(*s.shard, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return sh, fmt.Errorf("%w: --shard %q: want i/N with 1 ≤ i ≤ N", errUsage, *s.shard)
	}
	sh.i, sh.n = i, n
	sh.plan = planID(fs)
	divide := func(what string, total int) (int, error) {
		part := total / n
		if i <= total%n {
			part++
		}
		if total > 0 && part == 0 {
			return 0, fmt.Errorf("%w: --shard %s: %d %s cannot be shared by %d shards", errUsage, *s.shard, total, what, n)
		}
		return part, nil
	}
	var err error
	if p.Concurrency, err = divide("concurrency", p.Concurrency); err != nil {
		return sh, err
	}
	if p.Requests, err = divide("requests", p.Requests); err != nil {
		return sh, err
	}
	p.Rate /= float64(n)
	p.Seed += uint64(i-1) * 1_000_003
	return sh, nil
}

// planID is a short hash of the flags that define the plan: every flag
// set except the shard, the start, and where the output goes.
func planID(fs *flag.FlagSet) string {
	h := sha256.New()
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "shard", "start-at", "out", "timings", "json", "env", "env-file", "scrape", "gpu-telemetry", "gpu-interval":
			return
		}
		fmt.Fprintf(h, "%s=%s\n", fl.Name, fl.Value.String())
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// wait waits until the share's start time, or returns the context's
// error; a start already past is an error, since the shards would not
// start together.
func (sh share) wait(ctx context.Context) error {
	if sh.startAt.IsZero() {
		return nil
	}
	d := time.Until(sh.startAt)
	if d < 0 {
		return fmt.Errorf("%w: --start-at %s is %v in the past", errUsage, sh.startAt.Format(time.RFC3339Nano), -d.Round(time.Millisecond))
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
