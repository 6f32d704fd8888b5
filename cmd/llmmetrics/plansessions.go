package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics/drive"
)

// planSessions is the shape of a plan's multi-turn sessions, report
// --json's "sessions" of a plan.
type planSessions struct {
	Sessions       int     `json:"sessions"`
	Turns          int     `json:"turns"` // of the longest session
	ThinkTimeS     float64 `json:"think_time_s"`
	WarmupSessions int     `json:"warmup_sessions,omitempty"`
	// AtStart counts the measured requests due at the measured part's
	// start (each session's first turn), AfterAnswer those sent the
	// think time after an answer ends, whose time the plan cannot know.
	AtStart     int `json:"due_at_start"`
	AfterAnswer int `json:"after_an_answer"`

	think time.Duration
}

// sessionsUnscheduled is why a plan of sessions gives no arrival rate or
// gaps.
const sessionsUnscheduled = "each later turn of a session is sent its think time after the previous turn's answer ends, so when depends on the server's answers: the plan gives no arrival rate or gaps"

// sessionsOf returns the shape of a plan's sessions, nil when its
// requests have none.
func sessionsOf(reqs []drive.Request) *planSessions {
	measured, warm := map[string]bool{}, map[string]bool{}
	ps := &planSessions{}
	for _, q := range reqs {
		switch {
		case q.Session == "":
			continue
		case q.Warmup:
			warm[q.Session] = true
		default:
			measured[q.Session] = true
			if q.HasSchedule {
				ps.AtStart++
			} else {
				ps.AfterAnswer++
			}
		}
		ps.Turns = max(ps.Turns, q.Turn)
		if q.AfterTurn > 0 {
			ps.think = q.ThinkTime
		}
	}
	if len(measured)+len(warm) == 0 {
		return nil
	}
	ps.Sessions, ps.WarmupSessions, ps.ThinkTimeS = len(measured), len(warm), ps.think.Seconds()
	return ps
}

// describeSessions prints the sessions of a plan and when their turns
// are sent.
func describeSessions(b *strings.Builder, ps *planSessions) {
	fmt.Fprintf(b, "  %-18s %d of %d turns, think time %v", "sessions", ps.Sessions, ps.Turns, ps.think)
	if ps.WarmupSessions > 0 {
		fmt.Fprintf(b, ", after %d warm-up sessions", ps.WarmupSessions)
	}
	fmt.Fprintln(b)
	fmt.Fprintf(b, "  %-18s %d first turns at 0s from the measured part's start; %d later turns each %v after the answer before them\n",
		"schedule", ps.AtStart, ps.AfterAnswer, ps.think)
	fmt.Fprintf(b, "  %-18s absent: %s\n", "arrival rate", sessionsUnscheduled)
}

// refusePlanReplay refuses a dry run's plan given to --replay, in one
// line: a plan is not a trace (and a plan of sessions cannot be one: its
// later turns wait for the server's answers); it is run again with the
// flags it was planned with, which the line gives.
func refusePlanReplay(name string) error {
	file, err := os.Open(name)
	if err != nil {
		return nil // trace.Read says it
	}
	defer file.Close()
	head := make([]byte, len(drive.PlanPrefix)+3)
	n, _ := file.Read(head)
	if !isPlan(head[:n]) {
		return nil
	}
	if _, err := file.Seek(0, 0); err != nil {
		return err
	}
	h, reqs, err := drive.ReadPlan(file)
	if err != nil {
		return valueError(fmt.Sprintf("--replay %s: %s", name, strings.TrimPrefix(err.Error(), "drive: ")))
	}
	what := "a dry run's plan, not a trace"
	if ps := sessionsOf(reqs); ps != nil {
		what = fmt.Sprintf("a dry run's plan of %d sessions of %d turns, not a trace: its later turns wait for the server's answers, so their times cannot be replayed", ps.Sessions, ps.Turns)
	}
	return valueError(fmt.Sprintf("--replay %s: %s; send it with the flags it was planned with: llmmetrics run %s", name, what, plannedWith(h)))
}

// plannedWith returns the flags a plan was made with, but the dry run's
// own, as a command line's.
func plannedWith(h *drive.PlanHeader) string {
	var args []string
	for _, k := range sortedKeys(h.Flags) {
		switch v := h.Flags[k]; {
		case k == "dry-run" || k == "out" || k == "force":
		case v == "true":
			args = append(args, "--"+k)
		default:
			args = append(args, "--"+k+" "+v)
		}
	}
	if _, ok := h.Flags["url"]; !ok {
		args = append(args, "--url URL")
	}
	return strings.Join(args, " ")
}
