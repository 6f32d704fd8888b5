package observe

import (
	"fmt"
	"strings"
)

// API is the wire format of a streaming endpoint.
type API uint8

const (
	// Chat is OpenAI's chat completions (/v1/chat/completions), as served
	// by vLLM, SGLang, llama.cpp, TGI's chat route, OpenRouter, Groq,
	// DeepSeek, Azure and others: SSE events of chat.completion.chunk.
	Chat API = iota
	// Completions is OpenAI's legacy completions (/v1/completions).
	Completions
	// Responses is OpenAI's Responses API (/v1/responses): typed SSE events.
	Responses
	// Ollama is Ollama's native NDJSON streams (/api/chat, /api/generate).
	Ollama
	// TGI is Hugging Face text-generation-inference's /generate_stream.
	TGI
)

var apiNames = [...]string{"chat", "completions", "responses", "ollama", "tgi"}

// String returns the API's name as ParseAPI reads it.
func (a API) String() string {
	if int(a) < len(apiNames) {
		return apiNames[a]
	}
	return fmt.Sprintf("API(%d)", uint8(a))
}

// ParseAPI returns the API of a name: chat, completions, responses, ollama
// or tgi.
func ParseAPI(name string) (API, error) {
	for i, n := range apiNames {
		if n == name {
			return API(i), nil
		}
	}
	return 0, fmt.Errorf("observe: unknown API %q (want %s)", name, strings.Join(apiNames[:], ", "))
}

// APIOf tells the API of an endpoint from its URL path, for the
// RoundTripper: …/chat/completions, …/completions, …/responses,
// /api/chat and /api/generate (Ollama), …/generate_stream (TGI).
func APIOf(path string) (API, bool) {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return Chat, true
	case strings.HasSuffix(path, "/completions"):
		return Completions, true
	case strings.HasSuffix(path, "/responses"):
		return Responses, true
	case strings.HasSuffix(path, "/api/chat"), strings.HasSuffix(path, "/api/generate"):
		return Ollama, true
	case strings.HasSuffix(path, "/generate_stream"):
		return TGI, true
	}
	return 0, false
}
