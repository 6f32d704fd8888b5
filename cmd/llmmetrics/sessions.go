package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// sessionFlags are run's flags of multi-turn sessions.
type sessionFlags struct {
	sessions, turns *int
	thinkTime       *time.Duration
}

func (s *sessionFlags) define(fs *flag.FlagSet) {
	s.sessions = fs.Int("sessions", 0, "multi-turn sessions: `S` conversations at once, each of --turns requests sent one after another, turn k after turn k−1's answer and --think-time, with the whole conversation so far (the real answers included) as its context; records carry their session and turn, and the report gives TTFT by turn; instead of --requests, --duration, --rate and --concurrency (chat and completions); --warmup N sends N whole warm-up sessions first; --dry-run lists every turn")
	s.turns = fs.Int("turns", 0, "with --sessions: each session's number of turns `T`")
	s.thinkTime = fs.Duration("think-time", 0, "with --sessions: the pause between an answer's end and the next turn's send")
}

// applySessions puts the sessions into p, refusing what does not go with
// them.
func (f *runFlags) applySessions(p *drive.Plan, fs *flag.FlagSet) error {
	s := f.sessionFlags
	if !flagSet(fs, "sessions") && !flagSet(fs, "turns") && !flagSet(fs, "think-time") {
		return nil
	}
	switch {
	case !flagSet(fs, "sessions") || !flagSet(fs, "turns"):
		return fmt.Errorf("%w: give --sessions and --turns together (--think-time with them)", errUsage)
	case *s.sessions <= 0 || *s.turns <= 0:
		return valueError(fmt.Sprintf("--sessions %d --turns %d: want positive numbers", *s.sessions, *s.turns))
	case *s.thinkTime < 0:
		return valueError(fmt.Sprintf("--think-time %v: want a duration not negative", *s.thinkTime))
	case f.replaying() || *f.ttftBreakdown || *f.search != "":
		return fmt.Errorf("%w: --sessions is a load of its own: leave out --replay, --ttft-breakdown and --search", errUsage)
	case p.Warmup.Duration > 0 || p.Warmup.Auto:
		return valueError(fmt.Sprintf("--warmup %s: with --sessions the warm-up is a number of whole sessions of --turns turns (--warmup 2: two warm-up sessions), not a duration or auto", *f.warmup))
	case flagSet(fs, "concurrency"):
		return fmt.Errorf("%w: --sessions S sets the requests in flight (at most S): leave out --concurrency", errUsage)
	}
	p.Sessions, p.Turns, p.ThinkTime = *s.sessions, *s.turns, *s.thinkTime
	return nil
}

// sessionsLoad adds the sessions to a header's load: a closed loop of
// as many conversations as sessions, and a warm-up of whole sessions.
func sessionsLoad(p drive.Plan, load map[string]string) {
	if p.Sessions == 0 {
		return
	}
	delete(load, "duration")
	load["sessions"], load["turns"], load["think_time"] = fmt.Sprint(p.Sessions), fmt.Sprint(p.Turns), p.ThinkTime.String()
	load["concurrency"] = fmt.Sprint(p.Sessions)
	if p.Warmup.Requests > 0 {
		load["warmup"] = plural.Of(p.Warmup.Requests, "session")
	}
}

// plannedCount is how many requests a run's prompt and length lists
// cover: the warm-up's and the measured part's, 1000 (cycled) when their
// number is not known ahead.
func plannedCount(p drive.Plan) int {
	switch {
	case p.Sessions > 0:
		return (p.Sessions + p.Warmup.Requests) * p.Turns
	case p.Requests > 0:
		return p.Requests + p.Warmup.Requests
	}
	return 1000
}
