package drive

import (
	"errors"
	"strconv"
	"time"
)

// Schedule returns the requests Run would send for p, in order, without
// sending anything: each one's due time (an open loop's, drawn from the
// same seeded process as Run draws it, from the start of its part of the
// run), the prompt length it targets and its max_tokens. A warm-up of a
// count or of a duration is in it, marked; an automatic warm-up ends when
// the server's answers settle, so it is left out and note says so. A plan
// needs no prompts here (the lengths targeted are PromptTokensEach, or a
// Replay's), and no server. A closed loop of a Duration sends as many
// requests as the server answers: it has no schedule to list. Sessions
// are listed turn by turn (sessionSchedule).
func Schedule(p Plan) (reqs []Request, note string, err error) {
	probe := p
	switch {
	case len(probe.Prompts) > 0 || probe.Sizing != nil:
	case len(probe.PromptTokensEach) > 0 || len(probe.Replay) > 0:
		probe.Sizing = &Sizing{} // the lengths are the plan's: their prompts are made when sent
	default:
		probe.Prompts = []string{""}
	}
	if err := Check(probe); err != nil {
		return nil, "", err
	}
	if p.Sessions > 0 {
		return sessionSchedule(p), "", nil
	}
	if p.Rate == 0 && p.Duration > 0 || p.Rate == 0 && p.Warmup.Duration > 0 {
		return nil, "", errors.New("drive: a closed loop of a duration sends as many requests as the server answers: give a number of requests to plan it")
	}
	if len(p.Replay) > 0 {
		return append([]Request(nil), p.Replay...), "", nil
	}
	var g gaps
	if p.Rate > 0 {
		if g, err = newGaps(p); err != nil {
			return nil, "", err
		}
	}
	n := 0
	part := func(count int, dur time.Duration, warm bool) {
		if g != nil {
			g.restart()
		}
		var at time.Duration
		for i := 0; count == 0 || i < count; i++ {
			r := Request{Warmup: warm}
			if g != nil {
				at += g.next()
				if dur > 0 && at > dur {
					break
				}
				r.Scheduled, r.HasSchedule = at, true
			}
			n++
			reqs = append(reqs, p.planned(r, n))
		}
	}
	switch w := p.Warmup; {
	case w.Auto:
		note = "the automatic warm-up ends when the server's answers settle: it is not in the plan, and the measured arrivals, drawn after its own, come later in the seeded draw than planned here"
	case w.Requests > 0 || w.Duration > 0:
		part(w.Requests, w.Duration, true)
	}
	part(p.Requests, p.Duration, false)
	return reqs, note, nil
}

// planned returns r with the lengths and the prefix of request n.
func (p Plan) planned(r Request, n int) Request {
	r.PromptTokens, r.MaxTokens = p.lengths(n)
	if p.PrefixGroups > 0 {
		g := group(p.Seed, n, p.PrefixGroups)
		r.PrefixBlocks, r.Group = []int{g}, strconv.Itoa(g)
	}
	return r
}

// sessionSchedule is Schedule of a plan's sessions: the warm-up's
// sessions, then the measured part's, each one's turns in order. Only
// the turns that begin a session at once have a time (0: the start of
// their part of the run); any other is sent ThinkTime after an answer
// ends (AfterSession, AfterTurn), which the plan cannot know.
func sessionSchedule(p Plan) []Request {
	var reqs []Request
	w := p.Warmup.Requests
	for k := range w + p.Sessions {
		name, i := "s"+strconv.Itoa(k-w+1), k-w // i: its place in its part, from 0
		if k < w {
			name, i = "w"+strconv.Itoa(k+1), k
		}
		for turn := 1; turn <= p.Turns; turn++ {
			r := Request{Warmup: k < w, Session: name, Turn: turn}
			switch {
			case turn > 1:
				r.AfterSession, r.AfterTurn, r.ThinkTime = name, turn-1, p.ThinkTime
			case i < p.Sessions:
				r.HasSchedule = true
			default: // a warm-up session that waits for a place
				r.AfterSession, r.AfterTurn, r.ThinkTime = "w"+strconv.Itoa(i-p.Sessions+1), p.Turns, p.ThinkTime
			}
			reqs = append(reqs, p.planned(r, k*p.Turns+turn))
		}
	}
	return reqs
}
