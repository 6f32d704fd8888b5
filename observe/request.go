package observe

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// describe fills what the conventions' attributes need from the request:
// operation, provider (the given one, or the wire API's), the server's
// address and port, and what its body said (the model asked for, the
// output limit, whether it asked for a stream).
func (r *Result) describe(req *http.Request, api API, provider string, f requestFacts) {
	r.Operation = operationOf(api, req.URL.Path)
	r.Provider = provider
	if r.Provider == "" {
		r.Provider = providerOf(api)
	}
	r.ServerAddress = req.URL.Hostname()
	if p, err := strconv.Atoi(req.URL.Port()); err == nil {
		r.ServerPort = p
	} else if req.URL.Scheme == "https" {
		r.ServerPort = 443
	} else {
		r.ServerPort = 80
	}
	r.RequestModel = f.model
	r.Record.MaxTokens = f.maxTokens
	r.RequestStream, r.StreamKnown = f.stream, f.streamKnown
}

// operationOf returns the gen_ai.operation.name of a call.
func operationOf(api API, path string) string {
	switch api {
	case Chat, Responses:
		return "chat"
	case Ollama:
		if strings.HasSuffix(path, "/api/chat") {
			return "chat"
		}
	}
	return "text_completion"
}

// providerOf returns the gen_ai.provider.name of a wire API, for a
// Transport that was not told its provider: openai for OpenAI's APIs as
// any compatible server serves them.
func providerOf(api API) string {
	switch api {
	case Ollama:
		return "ollama"
	case TGI:
		return "tgi"
	}
	return "openai"
}

// maxPeek bounds the request body the Transport reads for its model and
// stream options: a longer body passes on unread.
const maxPeek = 8 << 20

// peekBody reads a request body of at most maxPeek bytes, closes it, and
// returns its bytes; ok is false for a longer body, which is then
// returned whole in rest (what was read, then the unread remainder).
func peekBody(body io.ReadCloser) (b []byte, rest io.ReadCloser, ok bool, err error) {
	b, err = io.ReadAll(io.LimitReader(body, maxPeek+1))
	if err != nil {
		body.Close()
		return nil, nil, false, err
	}
	if len(b) > maxPeek {
		return nil, struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), body), body}, false, nil
	}
	return b, nil, true, body.Close()
}

// requestFacts are what a request says of itself that the record and the
// conventions' attributes take: the model, the output limit (0 when not
// given) and whether it asked for a stream (streamKnown false when its
// body was not read).
type requestFacts struct {
	model               string
	maxTokens           int
	stream, streamKnown bool
}

// factsOf reads a call's JSON request body (nil when it was not read):
// its "model"; its output limit, "max_tokens", or
// "max_completion_tokens" (chat), "max_output_tokens" (Responses),
// options.num_predict (Ollama), parameters.max_new_tokens (TGI); and its
// "stream", which Ollama takes as true when absent. TGI's
// /generate_stream always streams.
func factsOf(api API, body []byte) requestFacts {
	var f requestFacts
	if api == TGI {
		f.stream, f.streamKnown = true, true
	}
	if body == nil {
		return f
	}
	f.model = modelOf(body)
	limit := func(v []byte) {
		if n, ok := wholeNumber(v); ok && n > 0 && f.maxTokens == 0 {
			f.maxTokens = int(min(n, llmmetrics.MaxCount))
		}
	}
	switch api {
	case Chat, Completions:
		limit(field(body, "max_completion_tokens"))
		limit(field(body, "max_tokens"))
	case Responses:
		limit(field(body, "max_output_tokens"))
	case Ollama:
		limit(field(field(body, "options"), "num_predict"))
	case TGI:
		limit(field(field(body, "parameters"), "max_new_tokens"))
		return f
	}
	switch s := string(field(body, "stream")); {
	case s == "true":
		f.stream, f.streamKnown = true, true
	case s == "false":
		f.streamKnown = true
	case api == Ollama && s == "":
		f.stream, f.streamKnown = true, true // Ollama streams unless told not to
	case len(body) > 0 && body[0] == '{':
		f.streamKnown = true // no "stream": not streamed
	}
	return f
}

// modelOf returns the "model" of a JSON request body, or "".
func modelOf(body []byte) string {
	v := field(body, "model")
	if m, ok := stringValue(v); ok {
		return m
	}
	var m string
	if json.Unmarshal(v, &m) == nil {
		return m
	}
	return ""
}

// requestFacts returns what a request whose body can be read again
// (GetBody, as http.NewRequest sets for in-memory bodies) says of itself,
// without consuming the body that will be sent.
func requestFactsOf(req *http.Request, api API) requestFacts {
	if req.GetBody == nil {
		return factsOf(api, nil)
	}
	rc, err := req.GetBody()
	if err != nil {
		return factsOf(api, nil)
	}
	b, _, ok, err := peekBody(rc)
	if !ok || err != nil {
		return factsOf(api, nil)
	}
	return factsOf(api, b)
}

// decoded returns the body of a response as text, undoing a gzip or
// deflate Content-Encoding that the HTTP client left in place (it does
// when the caller asked for an encoding itself), and the encoding undone.
func decoded(resp *http.Response) (io.Reader, string) {
	enc := contentEncoding(resp)
	if enc == "" {
		return resp.Body, ""
	}
	return &lazyDecoder{enc: enc, r: resp.Body}, enc
}

// contentEncoding returns gzip or deflate when the response's body is so
// encoded still, and "" otherwise.
func contentEncoding(resp *http.Response) string {
	if resp.Uncompressed {
		return ""
	}
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc {
	case "gzip", "x-gzip":
		return "gzip"
	case "deflate":
		return "deflate"
	}
	return ""
}

// lazyDecoder decodes a compressed body, reading its header at the first
// Read rather than when it is made.
type lazyDecoder struct {
	enc string
	r   io.Reader
	d   io.Reader
}

func (l *lazyDecoder) Read(p []byte) (int, error) {
	if l.d == nil {
		d, err := newDecoder(l.enc, l.r)
		if err != nil {
			return 0, err
		}
		l.d = d
	}
	return l.d.Read(p)
}

// newDecoder returns a reader of r's decoded bytes. HTTP's deflate is the
// zlib format; some servers send raw deflate, which is told apart by the
// zlib header's check bits.
func newDecoder(enc string, r io.Reader) (io.Reader, error) {
	if enc == "gzip" {
		return gzip.NewReader(r)
	}
	br := bufio.NewReader(r)
	h, err := br.Peek(2)
	if err != nil {
		return nil, err
	}
	if h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

// isTransportError reports whether err came from the connection rather
// than from decoding: a deadline, a cancellation, a network error.
func isTransportError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) && !isDecodeError(err)
}

func isDecodeError(err error) bool {
	var ce flate.CorruptInputError
	return errors.As(err, &ce) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, zlib.ErrHeader) || errors.Is(err, zlib.ErrChecksum)
}

// withUsage returns a streaming request body with
// stream_options.include_usage set to true, when it is not set at all; any
// other body is returned as it is.
func withUsage(body []byte) []byte {
	if string(field(body, "stream")) != "true" {
		return body
	}
	opts := field(body, "stream_options")
	if field(opts, "include_usage") != nil {
		return body // the client said, either way
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	o := map[string]json.RawMessage{}
	if !isNull(opts) && json.Unmarshal(opts, &o) != nil {
		return body
	}
	o["include_usage"] = json.RawMessage("true")
	ob, err := json.Marshal(o)
	if err != nil {
		return body
	}
	m["stream_options"] = ob
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}
