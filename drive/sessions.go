package drive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/plural"
	"github.com/llmmetrics/llmmetrics/observe"
)

// Multi-turn sessions (Plan.Sessions): each session is a conversation of
// Plan.Turns requests sent one after another, turn k once turn k−1's
// answer has ended and Plan.ThinkTime has passed, with the whole
// conversation so far as its context, the real answers included: chat
// sends it as messages (user, assistant, user, …), completions as one
// text, each message after the last. The sessions run at once, so that
// at most Sessions requests are in flight: a closed loop, whose records
// have no schedule. A session whose turn fails ends there: the next turn
// has no answer to follow.
//
// The warm-up of a session run has the same shape: Warmup.Requests whole
// sessions of Turns turns (w1, w2, …), their records marked warm-up, at
// most Sessions of them at once; a warm-up session beyond the first
// Sessions takes the place of the one Sessions before it, ThinkTime after
// that one ends. Request n's prompt and lengths (n from 1) are those of
// its place in the plan, not of its send order: session k's turn t (k from
// 1, the warm-up's sessions first) is request (k−1)·Turns + t, whatever
// the server's speed, so that a session's turns are as Schedule lists
// them; and its record's ID is that n, its row of Schedule's list, not
// its place in send order (a later turn of one session may be sent
// before an earlier session's first).

// checkSessions checks a plan's sessions, when it has any.
func checkSessions(p Plan) error {
	switch {
	case p.Sessions == 0 && p.Turns == 0 && p.ThinkTime == 0:
		return nil
	case p.Sessions <= 0 || p.Turns <= 0:
		return fmt.Errorf("drive: sessions %d of %d turns: want a positive number of sessions and of turns", p.Sessions, p.Turns)
	case p.ThinkTime < 0:
		return fmt.Errorf("drive: a negative think time %v", p.ThinkTime)
	case p.API != observe.Chat && p.API != observe.Completions:
		return fmt.Errorf("drive: sessions need the chat or completions API, not %v", p.API)
	case p.Requests > 0 || p.Duration > 0 || p.Rate > 0 || p.Concurrency > 0 || len(p.Replay) > 0:
		return errors.New("drive: sessions are a load of their own: give no number of requests, duration, rate, concurrency or replay with them")
	case p.Warmup.Duration > 0 || p.Warmup.Auto:
		return errors.New("drive: the warm-up of sessions is a number of whole sessions, not a duration or auto")
	}
	return nil
}

// sessions sends the measured part as the plan's sessions, each on a
// goroutine of wg, and returns once they are all dispatched.
func (r *runner) sessions(ctx context.Context, wg *sync.WaitGroup) {
	w := r.p.Warmup.Requests
	for s := range r.p.Sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.session(ctx, "s"+strconv.Itoa(s+1), (w+s)*r.p.Turns, false)
		}()
	}
}

// warmSessions sends the warm-up's sessions, at most Sessions at once,
// and waits for them; it says how the warm-up ended.
func (r *runner) warmSessions(ctx context.Context) string {
	n, at, turns := r.p.Warmup.Requests, r.p.Sessions, r.p.Turns
	if n == 0 {
		return "no warm-up"
	}
	var wg sync.WaitGroup
	for j := range min(n, at) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := j; k < n && ctx.Err() == nil; k += at {
				if k >= at && !sleepFor(ctx, r.p.ThinkTime) {
					return
				}
				r.session(ctx, "w"+strconv.Itoa(k+1), k*turns, true)
			}
		}()
	}
	wg.Wait()
	planned := fmt.Sprintf("%s of %d turns", plural.Of(n, "session"), turns)
	if ctx.Err() != nil {
		return fmt.Sprintf("the run was interrupted during the warm-up, after sending %d warm-up requests of a fixed %s", r.warmSent(), planned)
	}
	return fmt.Sprintf("a fixed warm-up of %s (%d requests sent), at most %s at once", planned, r.warmSent(), plural.Of(min(n, at), "session"))
}

// warmSent returns the warm-up requests finished.
func (r *runner) warmSent() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.warmDone
}

// A message is one message of a conversation.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// session sends the turns of the session named name, until they are all
// sent, one fails, or ctx ends: turn t is request base+t, marked warm-up
// when warm.
func (r *runner) session(ctx context.Context, name string, base int, warm bool) {
	var history []message
	for turn := 1; turn <= r.p.Turns; turn++ {
		if turn > 1 && !sleepFor(ctx, r.p.ThinkTime) || ctx.Err() != nil {
			return
		}
		res := r.reserveAs(base + turn) // its id is its row of the plan
		id := res.Record.ID
		prompt, maxTokens := r.p.request(base + turn)
		history = append(history, message{"user", prompt})
		p, text, err := r.p.turn(history)
		if err != nil {
			res.Record = llmmetrics.Record{ID: id, Status: llmmetrics.StatusError, Message: err.Error(), Warmup: warm,
				Sent: time.Since(r.obs.Epoch), MaxTokens: maxTokens, Client: &llmmetrics.ClientSide{NoWait: true}}
		} else {
			*res = *send(r.hard, r.obs, p, r.path, text, maxTokens, id, warm)
		}
		rec := &res.Record
		rec.Client.Session, rec.Client.Turn = name, turn
		answer := res.Text
		res.Text = "" // kept for the next turn alone
		r.done(res, warm)
		if r.p.OnResult != nil {
			r.emit.Lock()
			r.p.OnResult(res)
			r.emit.Unlock()
		}
		if rec.Status != llmmetrics.StatusOK {
			return
		}
		history = append(history, message{"assistant", answer})
	}
}

// turn returns the plan and the prompt that send a conversation: chat's
// messages in the plan's extra fields, completions' text joined.
func (p Plan) turn(history []message) (Plan, string, error) {
	if p.API == observe.Completions {
		var b strings.Builder
		for _, m := range history {
			b.WriteString(m.Content)
		}
		return p, b.String(), nil
	}
	msgs, err := json.Marshal(history)
	if err != nil {
		return p, "", err
	}
	p.Extra = maps.Clone(p.Extra)
	if p.Extra == nil {
		p.Extra = map[string]json.RawMessage{}
	}
	p.Extra["messages"] = msgs
	return p, history[len(history)-1].Content, nil
}

// sleepFor waits d, or until ctx ends (false).
func sleepFor(ctx context.Context, d time.Duration) bool {
	return sleepUntil(ctx, time.Now().Add(d))
}

// load returns the plan with its sessions' size as a closed loop's: the
// requests they send at most, with as many in flight as sessions (the
// warm-up's, unless Concurrency is given).
func (p Plan) load() Plan {
	if p.Sessions > 0 {
		p.Requests = p.Sessions * p.Turns
		if p.Concurrency == 0 {
			p.Concurrency = p.Sessions
		}
	}
	return p
}
