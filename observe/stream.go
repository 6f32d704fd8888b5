package observe

import (
	"encoding/json"
	"strings"
	"time"
)

// stream is what is known of one response as its events arrive. Its
// per-event work allocates nothing but the growth of chunks.
type stream struct {
	api  API
	sent time.Time

	chunks      []time.Duration // arrival of each text-bearing event, from sent
	chunkTokens []int32         // tokens each carried, from cumulative usage on every chunk
	tokensOK    bool            // every text-bearing event carried cumulative usage so far
	cumulative  int64           // completion tokens by the last usage seen
	firstAnswer time.Duration   // the first text-bearing event that is not reasoning
	hasAnswer   bool

	usage              bool // the server reported the completion tokens
	prompt, completion int64
	reasoning          int64
	hasReasoning       bool
	finished, done     bool // a finish was seen; the stream's end marker ([DONE]) was seen
	finish             string
	errMsg             string // an error the stream reported
	errType, errCode   string // the server's type and code of that error
	model              string // the model the response named
	id                 string // the id the response gave itself
	events             int    // events framed
	timings            []byte // the server's timings object, copied
	timingsSource      string
	cached             int64 // prompt tokens the server took from its cache
	hasCached          bool
	// kept, when not nil, gathers the answer's text (Observer.KeepText):
	// chat and completions only.
	kept *strings.Builder
}

func newStream(api API, sent time.Time) *stream {
	return &stream{api: api, sent: sent, tokensOK: true, chunks: make([]time.Duration, 0, 64)}
}

// event interprets one event that arrived at at.
func (s *stream) event(e event) {
	s.events++
	if s.errMsg != "" {
		return // nothing after an error counts
	}
	switch s.api {
	case Chat, Completions:
		s.openAI(e)
	case Responses:
		s.responses(e)
	case Ollama:
		s.ollama(e)
	case TGI:
		s.tgi(e)
	}
}

// text records a text-bearing event: answer false for reasoning.
func (s *stream) text(at time.Time, answer bool) {
	d := at.Sub(s.sent)
	s.chunks = append(s.chunks, d)
	if answer && !s.hasAnswer {
		s.firstAnswer, s.hasAnswer = d, true
	}
}

// openAI reads a chat or completions chunk. Text-bearing: a choice whose
// delta has non-empty content, reasoning_content or reasoning, or a tool
// call with a non-empty name or argument fragment (all generated tokens);
// for completions, non-empty text. Role-only and empty deltas, usage-only
// chunks, filter chunks and [DONE] are not.
func (s *stream) openAI(e event) {
	if string(e.data) == "[DONE]" {
		s.done = true
		return
	}
	if string(e.typ) == "error" {
		s.fail(e.data)
		return
	}
	text, answer := false, false
	var usage []byte
	// The choices are walked in one pass (object, array), not skipped and
	// then read again: they are most of the cost of a chunk. An event that
	// is not a JSON object fails the request, with its text: what it
	// carried is lost, and the answer with it.
	end := object(e.data, func(k, rest []byte) int {
		if string(k) == "choices" {
			return walked(array(rest, func(c []byte) int {
				n, t, a := s.openAIChoice(c)
				text, answer = text || t, answer || a
				return n
			}))
		}
		v, n := valueAt(rest)
		if string(k) != "usage" {
			s.openAIMember(e.data, k, v)
		} else if !isNull(v) {
			usage = v
		}
		return n
	})
	if s.malformed(e.data, end); s.errMsg != "" {
		return
	}
	if text {
		s.text(e.at, answer)
	}
	s.openAIUsage(usage, text)
}

// malformed fails the stream on an event, data, that object could not
// read (end < 0), unless it failed already.
func (s *stream) malformed(data []byte, end int) {
	if end < 0 && s.errMsg == "" {
		const most = 200
		s.errMsg = "malformed stream event (not a JSON object): " + string(data[:min(len(data), most)])
	}
}

// openAIChoice reads one choice of a chunk, from its start: it returns
// where the choice ends, whether it bears text and whether that text is
// the answer (not reasoning), and records its finish reason.
func (s *stream) openAIChoice(c []byte) (end int, text, answer bool) {
	end = walked(object(c, func(k, rest []byte) int {
		switch string(k) {
		case "delta", "message":
			n, t, a := openAIDelta(rest, s.kept)
			text, answer = text || t, answer || a
			return n
		case "text":
			v, n := valueAt(rest)
			if nonEmptyString(v) {
				text, answer = true, true
				keep(s.kept, v)
			}
			return n
		case "finish_reason":
			v, n := valueAt(rest)
			if !isNull(v) {
				s.finished = true
				if r, ok := stringValue(v); ok && s.finish == "" {
					s.finish = r
				}
			}
			return n
		}
		return 0
	}))
	return end, text, answer
}

// openAIDelta reads a choice's delta or message, from its start: it
// returns where the object ends, whether it bears text and whether that
// text is the answer, adding its content to kept when kept is not nil.
func openAIDelta(d []byte, kept *strings.Builder) (end int, text, answer bool) {
	end = walked(object(d, func(k, rest []byte) int {
		v, n := valueAt(rest)
		switch string(k) {
		case "content":
			if nonEmptyString(v) {
				text, answer = true, true
				keep(kept, v)
			}
		case "reasoning_content", "reasoning":
			if nonEmptyString(v) {
				text = true
			}
		case "tool_calls":
			if toolText(v) {
				text, answer = true, true
			}
		}
		return n
	}))
	return end, text, answer
}

// openAIMember reads a member of a chunk other than its choices and
// usage: the model, an in-stream error (data is the whole chunk) and the
// server's timings.
func (s *stream) openAIMember(data, k, v []byte) {
	switch string(k) {
	case "model":
		s.setModel(v)
	case "id":
		s.setID(v)
	case "error":
		if !isNull(v) {
			s.fail(data)
		}
	case "object":
		if string(v) == `"error"` { // vLLM's older in-stream error: the object is the error
			s.fail(data)
		}
	case "timings":
		s.setTimings("llama.cpp", v)
		if n, ok := wholeNumber(field(v, "cache_n")); ok {
			s.cached, s.hasCached = n, true
		}
	case "metrics":
		if len(v) > 0 && v[0] == '{' {
			s.setTimings("vllm", v)
		}
	case "x_groq":
		if u := field(v, "usage"); !isNull(u) {
			s.setTimings("groq", u)
		}
	}
}

// toolText reports whether a tool_calls delta carries a name or an
// argument fragment.
func toolText(v []byte) bool {
	found := false
	elements(v, func(call []byte) bool {
		if fn := field(call, "function"); fn != nil {
			found = nonEmptyString(field(fn, "arguments")) || nonEmptyString(field(fn, "name"))
		}
		return !found
	})
	return found
}

// openAIUsage reads a usage object. Usage on a chunk that also carries text
// is cumulative (vLLM's continuous_usage_stats): the chunk's tokens are the
// growth of completion_tokens since the last usage.
func (s *stream) openAIUsage(u []byte, text bool) {
	if u == nil {
		if text {
			s.tokensOK = false
		}
		return
	}
	var completion int64
	found := false
	members(u, func(k, v []byte) bool {
		switch string(k) {
		case "prompt_tokens":
			s.prompt, _ = wholeNumber(v)
		case "completion_tokens":
			completion, found = wholeNumber(v)
		case "completion_tokens_details":
			if r, ok := wholeNumber(field(v, "reasoning_tokens")); ok {
				s.reasoning, s.hasReasoning = r, true
			}
		case "prompt_tokens_details":
			if n, ok := wholeNumber(field(v, "cached_tokens")); ok {
				s.cached, s.hasCached = n, true
			}
		}
		return true
	})
	if !found {
		return
	}
	if text {
		if s.tokensOK && completion >= s.cumulative && len(s.chunkTokens) == len(s.chunks)-1 {
			s.chunkTokens = append(s.chunkTokens, int32(completion-s.cumulative))
		} else {
			s.tokensOK = false
		}
	}
	s.cumulative = completion
	s.completion, s.usage = completion, true
}

// responses reads an event of the Responses API, typed by its event line
// or its data's "type".
func (s *stream) responses(e event) {
	typ := string(e.typ)
	if typ == "" {
		if t, ok := stringValue(field(e.data, "type")); ok {
			typ = t
		}
	}
	switch typ {
	case "response.output_text.delta", "response.refusal.delta", "response.function_call_arguments.delta":
		if nonEmptyString(field(e.data, "delta")) {
			s.text(e.at, true)
		}
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		if nonEmptyString(field(e.data, "delta")) {
			s.text(e.at, false)
		}
	case "response.created", "response.in_progress":
		resp := field(e.data, "response")
		s.setModel(field(resp, "model"))
		s.setID(field(resp, "id"))
	case "response.completed", "response.incomplete":
		s.finished, s.finish = true, strings.TrimPrefix(typ, "response.")
		s.response(field(e.data, "response"))
	case "response.failed":
		s.responseFailed(field(e.data, "response"), e.data)
	case "error":
		s.fail(e.data)
	case "":
		if string(field(e.data, "object")) == `"response"` {
			s.responseBody(e)
		}
	}
}

// response reads a Responses API response object, the last event's or a
// whole body's: its model, id, usage and vLLM's metrics.
func (s *stream) response(resp []byte) {
	s.setModel(field(resp, "model"))
	s.setID(field(resp, "id"))
	if u := field(resp, "usage"); !isNull(u) {
		if n, ok := wholeNumber(field(u, "output_tokens")); ok {
			s.completion, s.usage = n, true
		}
		s.prompt, _ = wholeNumber(field(u, "input_tokens"))
		if r, ok := wholeNumber(field(field(u, "output_tokens_details"), "reasoning_tokens")); ok {
			s.reasoning, s.hasReasoning = r, true
		}
		if n, ok := wholeNumber(field(field(u, "input_tokens_details"), "cached_tokens")); ok {
			s.cached, s.hasCached = n, true
		}
	}
	if m := field(resp, "metrics"); len(m) > 0 && m[0] == '{' {
		s.setTimings("vllm", m)
	}
}

// responseFailed records a failed response: its error where it gave one,
// else whole, the event or body that holds it.
func (s *stream) responseFailed(resp, whole []byte) {
	if msg := field(resp, "error"); !isNull(msg) {
		s.fail(msg)
	} else {
		s.fail(whole)
	}
}

// responseBody reads a whole Responses API body (a call not streamed: one
// JSON object, "object": "response") as its stream's events would be
// read: its output's text is one chunk, at the body's end; its status
// "completed" or "incomplete" is the finish, as response.completed or
// response.incomplete ends a stream, and "failed" is the error
// response.failed carries.
func (s *stream) responseBody(e event) {
	status, _ := stringValue(field(e.data, "status"))
	if status == "failed" {
		s.responseFailed(e.data, e.data)
		return
	}
	if status == "completed" || status == "incomplete" {
		s.finished, s.finish = true, status
	}
	text, answer := false, false
	elements(field(e.data, "output"), func(item []byte) bool {
		t, a := outputText(item)
		text, answer = text || t, answer || a
		return true
	})
	if text {
		s.text(e.at, answer)
	}
	s.response(e.data)
}

// outputText reports whether an item of a Responses body's output bears
// text and whether that text is the answer: a message's non-empty
// output_text or refusal, a function call's arguments (answer), a
// reasoning item's summary or content text (not the answer).
func outputText(item []byte) (text, answer bool) {
	parts := func(v []byte, kinds ...string) (found bool) {
		elements(v, func(p []byte) bool {
			for _, k := range kinds {
				found = found || nonEmptyString(field(p, k))
			}
			return !found
		})
		return found
	}
	switch t, _ := stringValue(field(item, "type")); t {
	case "message":
		text = parts(field(item, "content"), "text", "refusal")
		return text, text
	case "function_call", "custom_tool_call":
		text = nonEmptyString(field(item, "arguments")) || nonEmptyString(field(item, "input"))
		return text, text
	case "reasoning":
		return parts(field(item, "summary"), "text") || parts(field(item, "content"), "text"), false
	}
	return false, false
}

// ollama reads one NDJSON line of /api/chat (message.content,
// message.thinking) or /api/generate (response, thinking); the last line,
// done:true, carries eval_count, prompt_eval_count and the durations.
func (s *stream) ollama(e event) {
	text, answer, done := false, false, false
	members(e.data, func(k, v []byte) bool {
		switch string(k) {
		case "message":
			if nonEmptyString(field(v, "content")) {
				text, answer = true, true
			}
			if nonEmptyString(field(v, "thinking")) {
				text = true
			}
		case "response":
			if nonEmptyString(v) {
				text, answer = true, true
			}
		case "thinking":
			if nonEmptyString(v) {
				text = true
			}
		case "done":
			done = string(v) == "true"
		case "eval_count":
			s.completion, s.usage = wholeNumberOr(v, s.completion, s.usage)
		case "prompt_eval_count":
			s.prompt, _ = wholeNumber(v)
		case "done_reason":
			if r, ok := stringValue(v); ok {
				s.finish = r
			}
		case "model":
			s.setModel(v)
		case "error":
			s.fail(e.data)
		}
		return true
	})
	if text {
		s.text(e.at, answer)
	}
	if done {
		s.finished = true
		s.setTimings("ollama", e.data)
	}
}

// tgi reads one event of text-generation-inference's /generate_stream:
// token.text (not a special token) is generated text; the last event adds
// generated_text and details.generated_tokens.
func (s *stream) tgi(e event) {
	tok := field(e.data, "token")
	if tok != nil && nonEmptyString(field(tok, "text")) && string(field(tok, "special")) != "true" {
		s.text(e.at, true)
	}
	if string(e.typ) == "error" || !isNull(field(e.data, "error")) {
		s.fail(e.data)
		return
	}
	if g := field(e.data, "generated_text"); !isNull(g) {
		s.finished = true
		if tok == nil && nonEmptyString(g) {
			s.text(e.at, true) // /generate: the whole text at once
		}
	}
	if d := field(e.data, "details"); !isNull(d) {
		if n, ok := wholeNumber(field(d, "generated_tokens")); ok {
			s.completion, s.usage = n, true
		}
		if r, ok := stringValue(field(d, "finish_reason")); ok {
			s.finish = r
		}
	}
}

func wholeNumberOr(v []byte, n int64, had bool) (int64, bool) {
	if x, ok := wholeNumber(v); ok {
		return x, true
	}
	return n, had
}

// fail records an error the stream reported, with the server's message,
// type and code (see errorOf).
func (s *stream) fail(v []byte) {
	if s.errMsg != "" {
		return
	}
	f := errorOf(v)
	s.errMsg, s.errType, s.errCode = f.msg, f.typ, f.code
	if s.errMsg == "" {
		s.errMsg = "the stream reported an error"
	}
}

// setModel keeps the first model the response named.
func (s *stream) setModel(v []byte) {
	if s.model == "" {
		if m, ok := stringValue(v); ok {
			s.model = m
		}
	}
}

// setID keeps the first id the response gave itself.
func (s *stream) setID(v []byte) {
	if s.id == "" {
		if id, ok := stringValue(v); ok {
			s.id = id
		}
	}
}

// setTimings keeps a copy of the server's timings object.
func (s *stream) setTimings(source string, v []byte) {
	if isNull(v) {
		return
	}
	s.timings = append(s.timings[:0], v...)
	s.timingsSource = source
}

// keep adds the JSON string v to kept, when kept is not nil: as it is when
// it has no escape, decoded otherwise.
func keep(kept *strings.Builder, v []byte) {
	if kept == nil {
		return
	}
	if t, ok := stringValue(v); ok {
		kept.WriteString(t)
		return
	}
	var t string
	if json.Unmarshal(v, &t) == nil {
		kept.WriteString(t)
	}
}
