package drive

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two sessions of three turns: each turn is sent after the previous
// answer's end plus the think time, with the conversation so far (the
// real answers, "t0t1" from the fake server, included); at most two
// requests are in flight; the records name their session and turn.
func TestSessions(t *testing.T) {
	f := newFake(t, func(int64) time.Duration { return time.Millisecond }, time.Millisecond)
	think := 20 * time.Millisecond
	out, err := Run(context.Background(), Plan{URL: f.URL + "/v1/chat/completions", API: observe.Chat, Model: "m",
		MaxTokens: 2, Prompts: []string{"a", "b", "c"}, Sessions: 2, Turns: 3, ThinkTime: think})
	require.NoError(t, err)
	require.Len(t, out.Results, 6)
	assert.LessOrEqual(t, f.peak.Load(), int64(2))
	last := map[string]llmmetrics.Record{}
	for _, res := range out.Results {
		rec := res.Record
		require.Equal(t, llmmetrics.StatusOK, rec.Status, rec.Message)
		c := rec.Client
		assert.False(t, c.HasSchedule)
		prev, ok := last[c.Session]
		if !ok {
			assert.Equal(t, 1, c.Turn, c.Session)
		} else {
			assert.Equal(t, prev.Client.Turn+1, c.Turn, c.Session)
			// Sent after the previous answer's last chunk and the think time.
			assert.GreaterOrEqual(t, rec.Sent, prev.Sent+prev.Chunks[len(prev.Chunks)-1]+think)
		}
		last[c.Session] = rec
		assert.Empty(t, res.Text)
	}
	assert.Len(t, last, 2)
	for _, rec := range last {
		assert.Equal(t, 3, rec.Client.Turn)
	}
	// Every body is a conversation: user, assistant (the answer), user, …
	lengths := map[int]int{}
	for _, body := range f.bodies {
		msgs := body["messages"].([]any)
		lengths[len(msgs)]++
		for i, m := range msgs {
			m := m.(map[string]any)
			if i%2 == 1 {
				assert.Equal(t, map[string]any{"role": "assistant", "content": "t0t1"}, m)
			} else {
				assert.Equal(t, "user", m["role"])
			}
		}
	}
	assert.Equal(t, map[int]int{1: 2, 3: 2, 5: 2}, lengths)
}

// A completions session sends the conversation as one text.
func TestSessionCompletionsText(t *testing.T) {
	p, text, err := Plan{API: observe.Completions}.turn([]message{{"user", "Q1 "}, {"assistant", "A1"}, {"user", " Q2"}})
	require.NoError(t, err)
	assert.Equal(t, "Q1 A1 Q2", text)
	assert.Nil(t, p.Extra)
}

// Sessions refuse what they cannot run, before anything is sent.
func TestSessionsCheck(t *testing.T) {
	base := Plan{URL: "http://x/v1/chat/completions", API: observe.Chat, Prompts: []string{"a"}, Sessions: 2, Turns: 2}
	require.NoError(t, Check(base))
	for name, edit := range map[string]func(*Plan){
		"turns without sessions": func(p *Plan) { p.Sessions = 0 },
		"zero turns":             func(p *Plan) { p.Turns = 0 },
		"negative sessions":      func(p *Plan) { p.Sessions = -1 },
		"negative think time":    func(p *Plan) { p.ThinkTime = -time.Second },
		"with requests":          func(p *Plan) { p.Requests = 5 },
		"with a rate":            func(p *Plan) { p.Rate = 1 },
		"responses API":          func(p *Plan) { p.API = observe.Responses },
		"with a concurrency":     func(p *Plan) { p.Concurrency = 2 },
		"a warm-up of a time":    func(p *Plan) { p.Warmup.Duration = time.Second },
		"an automatic warm-up":   func(p *Plan) { p.Warmup.Auto = true },
	} {
		p := base
		edit(&p)
		assert.Error(t, Check(p), name)
	}
}

// The warm-up of a session run is whole sessions of the same turns, at
// most Sessions at once, marked warm-up, and drained before the measured
// sessions begin; session k's turn t (the warm-up's first) sends prompt
// (k−1)·Turns + t, whatever the order the server answers in.
func TestSessionsWarmup(t *testing.T) {
	f := newFake(t, func(int64) time.Duration { return time.Millisecond }, 0)
	prompts := []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10"}
	out, err := Run(context.Background(), Plan{URL: f.URL + "/v1/chat/completions", API: observe.Chat, Model: "m",
		MaxTokens: 1, Prompts: prompts, Sessions: 2, Turns: 2, Warmup: Warmup{Requests: 3}})
	require.NoError(t, err)
	require.Len(t, out.Results, 10) // (3 warm-up + 2 measured sessions) × 2 turns
	assert.LessOrEqual(t, f.peak.Load(), int64(2))
	assert.Equal(t, "a fixed warm-up of 3 sessions of 2 turns (6 requests sent), at most 2 sessions at once", out.Warmup)
	var lastWarmEnd, firstMeasured time.Duration = 0, 1 << 62
	got := map[string]bool{}
	for _, res := range out.Results {
		rec := res.Record
		require.Equal(t, llmmetrics.StatusOK, rec.Status, rec.Message)
		c := rec.Client
		got[fmt.Sprintf("%s/%d/%v", c.Session, c.Turn, rec.Warmup)] = true
		if rec.Warmup {
			lastWarmEnd = max(lastWarmEnd, rec.Sent+rec.Chunks[len(rec.Chunks)-1])
		} else {
			firstMeasured = min(firstMeasured, rec.Sent)
		}
	}
	assert.Equal(t, map[string]bool{"w1/1/true": true, "w1/2/true": true, "w2/1/true": true, "w2/2/true": true, "w3/1/true": true,
		"w3/2/true": true, "s1/1/false": true, "s1/2/false": true, "s2/1/false": true, "s2/2/false": true}, got)
	assert.LessOrEqual(t, lastWarmEnd, firstMeasured, "the warm-up drains before the measured sessions")
	// Each conversation's user messages are its own prompts, in turn:
	// w1 p1 p2, w2 p3 p4, w3 p5 p6, s1 p7 p8, s2 p9 p10.
	convs := map[string]bool{}
	for _, body := range f.bodies {
		var users []string
		for _, m := range body["messages"].([]any) {
			if m := m.(map[string]any); m["role"] == "user" {
				users = append(users, m["content"].(string))
			}
		}
		convs[strings.Join(users, " ")] = true
	}
	assert.Equal(t, map[string]bool{"p1": true, "p1 p2": true, "p3": true, "p3 p4": true, "p5": true, "p5 p6": true,
		"p7": true, "p7 p8": true, "p9": true, "p9 p10": true}, convs)
}

// The plan of sessions lists every turn of every session, the warm-up's
// first: the turns that begin a session at once at 0, the others after
// the answer they wait for and the think time; lengths as request
// (k−1)·Turns + t draws them.
func TestSessionSchedule(t *testing.T) {
	p := Plan{URL: "http://x/v1/chat/completions", API: observe.Chat, PromptTokensEach: []int{11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25},
		MaxTokens: 4, Sessions: 2, Turns: 3, ThinkTime: time.Second, Warmup: Warmup{Requests: 3}}
	reqs, note, err := Schedule(p)
	require.NoError(t, err)
	assert.Empty(t, note)
	type row struct {
		warm          bool
		session       string
		turn          int
		at            bool
		after         string
		afterTurn     int
		prompt, think int
	}
	var got []row
	for _, r := range reqs {
		assert.Equal(t, 4, r.MaxTokens)
		assert.Zero(t, r.Scheduled)
		got = append(got, row{r.Warmup, r.Session, r.Turn, r.HasSchedule, r.AfterSession, r.AfterTurn, r.PromptTokens, int(r.ThinkTime / time.Second)})
	}
	assert.Equal(t, []row{
		{true, "w1", 1, true, "", 0, 11, 0}, {true, "w1", 2, false, "w1", 1, 12, 1}, {true, "w1", 3, false, "w1", 2, 13, 1},
		{true, "w2", 1, true, "", 0, 14, 0}, {true, "w2", 2, false, "w2", 1, 15, 1}, {true, "w2", 3, false, "w2", 2, 16, 1},
		// w3 takes w1's place: 2 sessions at once.
		{true, "w3", 1, false, "w1", 3, 17, 1}, {true, "w3", 2, false, "w3", 1, 18, 1}, {true, "w3", 3, false, "w3", 2, 19, 1},
		{false, "s1", 1, true, "", 0, 20, 0}, {false, "s1", 2, false, "s1", 1, 21, 1}, {false, "s1", 3, false, "s1", 2, 22, 1},
		{false, "s2", 1, true, "", 0, 23, 0}, {false, "s2", 2, false, "s2", 1, 24, 1}, {false, "s2", 3, false, "s2", 2, 25, 1},
	}, got)
	// The plan file keeps it all.
	var b bytes.Buffer
	require.NoError(t, WritePlan(&b, &PlanHeader{}, reqs))
	assert.Contains(t, b.String(), `{"id":"8","warmup":true,"prompt_tokens":18,"max_tokens":4,"session":"w3","turn":2,"after_session":"w3","after_turn":1,"think_time_ns":1000000000}`)
	_, back, err := ReadPlan(&b)
	require.NoError(t, err)
	assert.Equal(t, reqs, back)
}
