package drive

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cacheServer is a chat server with a prefix cache. It counts a prompt's
// tokens as its words plus 3 for the template, reports the tokens taken
// from its cache (a prompt seen before, under the same cache_salt when it
// honours the field), and answers HTTP 500 "out of memory" to prompts of
// more than oomAbove tokens (0: never). It keeps every request body.
type cacheServer struct {
	*httptest.Server
	mu     sync.Mutex
	seen   map[string]bool
	bodies []map[string]any
}

const (
	honours = iota // the cache is keyed by cache_salt and prompt
	ignores        // the field is accepted and ignored
	rejects        // an unknown field is an HTTP 400
	silent         // honours, but reports no cached tokens
)

func newCacheServer(t *testing.T, salt, oomAbove int) *cacheServer {
	c := &cacheServer{seen: map[string]bool{}}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		msgs := body["messages"].([]any)
		prompt := msgs[0].(map[string]any)["content"].(string)
		cs, hasSalt := body["cache_salt"].(string)
		c.mu.Lock()
		c.bodies = append(c.bodies, body)
		key := prompt
		if salt != ignores {
			key = cs + "\x00" + prompt
		}
		hit := c.seen[key]
		c.seen[key] = true
		c.mu.Unlock()
		tokens := len(strings.Fields(prompt)) + 3
		switch {
		case salt == rejects && hasSalt:
			http.Error(w, `{"error":{"message":"unknown field cache_salt"}}`, http.StatusBadRequest)
			return
		case oomAbove > 0 && tokens > oomAbove:
			http.Error(w, `{"error":{"message":"CUDA out of memory"}}`, http.StatusInternalServerError)
			return
		}
		cached := 0
		if hit {
			cached = tokens
		}
		usage := fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":%d}}`, tokens, cached)
		if salt == silent {
			usage = fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":1}`, tokens)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"length\"}]}\n\ndata: {\"choices\":[],\"usage\":%s}\n\ndata: [DONE]\n\n", usage)
	}))
	t.Cleanup(c.Close)
	return c
}

func breakdownPlan(url string, lengths ...int) BreakdownPlan {
	return BreakdownPlan{Plan: Plan{URL: url, API: observe.Chat, Model: "m", MaxTokens: 1}, Lengths: lengths, Repeats: 3, Settle: time.Millisecond}
}

// accounted checks that every planned request was sent once or skipped.
func accounted(t *testing.T, p BreakdownPlan, out *BreakdownOutcome) {
	t.Helper()
	total, ids := 0, map[string]bool{}
	for _, l := range out.Lengths {
		total += len(l.Results) + l.Skipped
		for _, r := range l.Results {
			assert.False(t, ids[r.Record.ID], "id %s twice", r.Record.ID)
			ids[r.Record.ID] = true
			assert.False(t, r.Record.Warmup)
		}
	}
	assert.Equal(t, len(p.Lengths)*p.Repeats, total, "sent + skipped")
	for _, r := range out.Preflight {
		assert.True(t, r.Record.Warmup, r.Record.ID)
	}
}

func TestBreakdownSalt(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode int
		want Salt
		note string
	}{
		{"honours", honours, SaltField, "cache_salt field: a repeated prompt under a new salt had 0 of its"},
		{"ignores", ignores, SaltText, "text salt: the server ignores cache_salt"},
		{"rejects", rejects, SaltText, "text salt: a request with a cache_salt field did not succeed (error: HTTP 400"},
		{"silent", silent, SaltText, "text salt: the server does not report cached prompt tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newCacheServer(t, tc.mode, 0)
			p := breakdownPlan(srv.URL+"/v1/chat/completions", 512, 128)
			out, err := Breakdown(context.Background(), p)
			require.NoError(t, err)
			assert.Equal(t, tc.want, out.Salt)
			assert.Contains(t, out.SaltNote, tc.note)
			accounted(t, p, out)
			require.Len(t, out.Lengths, 2)
			// Shortest first; the preflight's two sizing requests found 1
			// token a word and 3 for the template and salt, so the prompts
			// are exactly the asked length as the server counts it.
			assert.Equal(t, 128, out.Lengths[0].Tokens)
			for _, l := range out.Lengths {
				require.Len(t, l.Results, 3)
				for _, r := range l.Results {
					assert.Equal(t, llmmetrics.StatusOK, r.Record.Status, r.Record.Message)
					assert.Equal(t, l.Tokens, r.Record.PromptTokens, r.Record.ID)
					if tc.mode != silent {
						assert.True(t, r.CacheKnown)
						assert.Zero(t, r.CachedTokens, "%s is cold", r.Record.ID)
					}
				}
			}
			// The measured requests: 4 preflight requests came first.
			measured := srv.bodies[4:]
			require.Len(t, measured, 6)
			salts, prompts := map[string]bool{}, map[string]bool{}
			for _, b := range measured {
				s, has := b["cache_salt"].(string)
				assert.Equal(t, tc.want == SaltField, has)
				salts[s] = true
				prompts[b["messages"].([]any)[0].(map[string]any)["content"].(string)] = true
			}
			if tc.want == SaltField {
				assert.Len(t, salts, 6, "a salt of its own for each request")
				assert.Len(t, prompts, 2, "one prompt text a length")
			} else {
				assert.Len(t, prompts, 6, "a prompt of its own for each request")
			}
		})
	}
}

// A failure at one length is recorded, and every later request skipped
// with the reason: here prompts above 300 tokens run out of memory.
func TestBreakdownStopsAfterFailure(t *testing.T) {
	srv := newCacheServer(t, honours, 300)
	p := breakdownPlan(srv.URL+"/v1/chat/completions", 128, 2048, 512)
	out, err := Breakdown(context.Background(), p)
	require.NoError(t, err)
	accounted(t, p, out)
	require.Len(t, out.Lengths, 3)
	l128, l512, l2048 := out.Lengths[0], out.Lengths[1], out.Lengths[2]
	assert.Len(t, l128.Results, 3)
	assert.True(t, l128.Begin.Before(l128.End))
	assert.False(t, l128.End.After(l512.Begin), "one length after the other")
	assert.True(t, l2048.Begin.IsZero(), "nothing sent")
	assert.Empty(t, l128.Failed)
	assert.Zero(t, l128.Skipped)

	require.Len(t, l512.Results, 1)
	assert.Equal(t, llmmetrics.StatusError, l512.Results[0].Record.Status)
	assert.Contains(t, l512.Failed, "request len512-1: error: HTTP 500")
	assert.Contains(t, l512.Failed, "CUDA out of memory")
	assert.Equal(t, 2, l512.Skipped)
	assert.Equal(t, "after the failure at 512 tokens", l512.SkipReason)

	assert.Empty(t, l2048.Results)
	assert.Equal(t, 3, l2048.Skipped)
	assert.Equal(t, "after the failure at 512 tokens", l2048.SkipReason)
	assert.False(t, out.Interrupted)
	assert.Len(t, out.Results(), 4+3+1)
}

// An interrupt cancels the request in flight, records it, and skips the
// rest.
func TestBreakdownInterrupt(t *testing.T) {
	srv := newCacheServer(t, honours, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := breakdownPlan(srv.URL+"/v1/chat/completions", 16, 32)
	p.Settle = 50 * time.Millisecond
	time.AfterFunc(120*time.Millisecond, cancel) // during the measured part's first requests
	out, err := Breakdown(ctx, p)
	require.NoError(t, err)
	assert.True(t, out.Interrupted)
	accounted(t, p, out)
	last := out.Lengths[len(out.Lengths)-1]
	assert.Equal(t, "the run was interrupted", last.SkipReason)
	assert.Positive(t, last.Skipped)
}

func TestBreakdownPlanErrors(t *testing.T) {
	ok := breakdownPlan("http://127.0.0.1:1/v1/chat/completions", 128)
	for _, tc := range []struct {
		name string
		edit func(*BreakdownPlan)
		want string
	}{
		{"no lengths", func(p *BreakdownPlan) { p.Lengths = nil }, "needs prompt lengths"},
		{"zero length", func(p *BreakdownPlan) { p.Lengths = []int{0} }, "prompt length 0"},
		{"twice", func(p *BreakdownPlan) { p.Lengths = []int{128, 128} }, "given twice"},
		{"no repeats", func(p *BreakdownPlan) { p.Repeats = 0 }, "at least one request per length"},
		{"negative settle", func(p *BreakdownPlan) { p.Settle = -1 }, "negative"},
		{"load", func(p *BreakdownPlan) { p.Concurrency = 2 }, "one at a time"},
		{"url", func(p *BreakdownPlan) { p.URL = "/v1" }, "not an absolute URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ok
			tc.edit(&p)
			_, err := Breakdown(context.Background(), p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	require.NoError(t, CheckBreakdown(ok))
}
