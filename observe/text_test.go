package observe

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With KeepText the answer's text is kept, escapes decoded, reasoning
// left out; without it nothing is.
func TestKeepText(t *testing.T) {
	chat := `data: {"choices":[{"delta":{"role":"assistant"}}]}

data: {"choices":[{"delta":{"reasoning_content":"hmm"}}]}

data: {"choices":[{"delta":{"content":"Hello"}}]}

data: {"choices":[{"delta":{"content":", \"w\u00e9rld\"\n"}}]}

data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3}}

data: [DONE]

`
	completions := `data: {"choices":[{"text":"one"}]}

data: {"choices":[{"text":" two","finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}

data: [DONE]

`
	for _, c := range []struct {
		api        API
		path, body string
		want       string
	}{
		{Chat, "/v1/chat/completions", chat, "Hello, \"wérld\"\n"},
		{Completions, "/v1/completions", completions, "one two"},
	} {
		for _, keepText := range []bool{true, false} {
			srv := replay(t, exchange{path: c.path, status: 200, contentType: "text/event-stream", body: []byte(c.body)}, time.Millisecond)
			req, _ := http.NewRequest(http.MethodPost, srv.URL+c.path, nil)
			res, err := (&Observer{KeepText: keepText}).Do(req, c.api, "k")
			srv.Close()
			require.NoError(t, err)
			want := ""
			if keepText {
				want = c.want
			}
			assert.Equal(t, want, res.Text, "%v keep %v", c.api, keepText)
		}
	}
}
