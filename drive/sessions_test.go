package drive

import (
	"context"
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
	} {
		p := base
		edit(&p)
		assert.Error(t, Check(p), name)
	}
}
