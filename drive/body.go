package drive

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/llmmetrics/llmmetrics/observe"
)

// body returns the JSON body of a request for api, a streaming one asking
// the server for usage where the API has a way to (stream_options.
// include_usage for chat and completions), with the caller's extra fields
// merged over it (an extra field replaces a default one of the same
// name). Unstreamed, it leaves out "stream" and stream_options (a reply
// in one JSON body, which carries its usage), but for Ollama's, which
// says "stream": false (its API streams by default); TGI's body is the
// same either way, its route says which (see requestURL).
func body(api observe.API, path, model, prompt string, maxTokens int, unstreamed bool, extra map[string]json.RawMessage) ([]byte, error) {
	m := map[string]any{}
	switch api {
	case observe.Chat:
		m["model"] = model
		m["messages"] = []map[string]string{{"role": "user", "content": prompt}}
		m["stream"] = true
		m["stream_options"] = map[string]bool{"include_usage": true}
		if maxTokens > 0 {
			m["max_tokens"] = maxTokens
		}
	case observe.Completions:
		m["model"] = model
		m["prompt"] = prompt
		m["stream"] = true
		m["stream_options"] = map[string]bool{"include_usage": true}
		if maxTokens > 0 {
			m["max_tokens"] = maxTokens
		}
	case observe.Responses:
		m["model"] = model
		m["input"] = prompt
		m["stream"] = true
		if maxTokens > 0 {
			m["max_output_tokens"] = maxTokens
		}
	case observe.Ollama:
		m["model"] = model
		m["stream"] = true
		if strings.HasSuffix(path, "/api/chat") {
			m["messages"] = []map[string]string{{"role": "user", "content": prompt}}
		} else {
			m["prompt"] = prompt
		}
		if maxTokens > 0 {
			m["options"] = map[string]int{"num_predict": maxTokens}
		}
	case observe.TGI:
		m["inputs"] = prompt
		params := map[string]any{"details": true}
		if maxTokens > 0 {
			params["max_new_tokens"] = maxTokens
		}
		m["parameters"] = params
	default:
		return nil, fmt.Errorf("drive: unknown API %v", api)
	}
	if unstreamed {
		delete(m, "stream")
		delete(m, "stream_options")
		if api == observe.Ollama {
			m["stream"] = false
		}
	}
	out := make(map[string]json.RawMessage, len(m)+len(extra))
	for k, v := range m {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[k] = b
	}
	maps.Copy(out, extra)
	return json.Marshal(out)
}
