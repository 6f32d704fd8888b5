package observe

import (
	"encoding/json"
	"strconv"
	"strings"
)

// serverError is what a server said of a failure: its message, and its
// error type and code where it gave them.
type serverError struct {
	msg, typ, code string
}

// errorOf reads a server's error, in any of the shapes servers send, in a
// body or inside a stream: OpenAI, vLLM, SGLang and llama.cpp's
// {"error": {"message", "type", "code"}} (or the inner object alone),
// vLLM's older {"object": "error", "message", "type", "code"}, TGI's
// {"error": "...", "error_type": "..."}, Ollama's {"error": "..."}, and
// FastAPI's {"detail": "..."}. Anything else is its own message.
func errorOf(v []byte) serverError {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		var str string
		if json.Unmarshal(v, &str) == nil {
			return serverError{msg: str}
		}
		return serverError{msg: strings.TrimSpace(string(v))}
	}
	var f serverError
	if inner := m["error"]; !isNull(inner) {
		f = errorOf(inner)
	}
	if f.msg == "" {
		f.msg = jsonText(m["message"])
	}
	if f.msg == "" {
		f.msg = jsonText(m["detail"])
	}
	if f.typ == "" {
		f.typ = jsonText(m["error_type"])
	}
	if t := jsonText(m["type"]); f.typ == "" && t != "error" && !strings.HasPrefix(t, "response.") {
		f.typ = t // not the type of a Responses API event
	}
	if f.code == "" {
		f.code = jsonText(m["code"])
	}
	if f.msg == "" {
		f.msg = strings.TrimSpace(string(v))
	}
	return f
}

// jsonText returns a JSON string's value or a number's digits; "" otherwise.
func jsonText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		if _, err := strconv.ParseFloat(n.String(), 64); err == nil {
			return n.String()
		}
	}
	return ""
}
