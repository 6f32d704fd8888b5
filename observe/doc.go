// Package observe takes the measurement the llmmetrics package judges: it
// sends streaming requests to OpenAI-compatible and other LLM endpoints and
// records, for each, the llmmetrics.Record the specification asks for.
//
// # Boundaries
//
// The send time is stamped when the request has been written to the
// connection (net/http/httptrace's WroteRequest), not when the call began:
// the client's own waiting — a connection from the pool, a dial, a TLS
// handshake, a semaphore the caller held — is kept apart in the record's
// ClientSide.Wait (and Result.ConnWait), never inside TTFT. Each event of the stream is stamped
// when the read that delivered its last byte returned, before any JSON is
// decoded.
//
// # Text-bearing events
//
// An event is text-bearing when it carries generated output: answer content,
// reasoning content (reasoning_content, reasoning, the Responses API's
// reasoning deltas, Ollama's thinking) or a tool call's name or argument
// fragment. Role-only and empty deltas, usage-only chunks, content-filter
// chunks, keep-alive comments and [DONE] are not. Record.Chunks holds the
// arrivals of the text-bearing events; Record.Client.FirstAnswer the first that is
// not reasoning, so that time to first answer can be reported beside TTFT.
//
// # Token counts
//
// n comes from the server's usage only — the usage chunk (choices: []), the
// finish chunk, a non-empty chunk, the Responses API's response.completed,
// Ollama's final line (eval_count) or TGI's details — never from a count of
// chunks. A response without usage has n unknown (Result.UsageKnown false,
// Record.NoUsage set when text came): llmmetrics keeps its TTFT, E2E and
// chunk gaps and leaves it out of TPOT and the token rates, counted apart
// (llmmetrics.CountState). Most OpenAI clients do not ask for usage; the
// Transport's IncludeUsage asks for them. Where the server reports usage on
// every chunk (vLLM's continuous_usage_stats), the growth of completion
// tokens per text-bearing chunk fills Record.ChunkTokens, so the
// token-or-chunk verdict rests on the server's word. A success whose usage
// reports tokens but whose stream showed no text-bearing event has no first
// token to time, and is recorded as an error saying so.
//
// # Outcomes
//
// An HTTP status other than 200 is StatusError with the server's message,
// and its error type and code (Result.ErrorType, ErrorCode) where its body
// gave them. So is an error inside a stream after HTTP 200, in each
// server's shape: llama.cpp's "error: {...}" line (then [DONE]), OpenAI's,
// vLLM's and SGLang's data: {"error": {...}}, vLLM's older {"object":
// "error"}, an "event: error", the Responses API's response.failed, TGI's
// {"error", "error_type"} and Ollama's {"error"} line; its message says
// so, as "HTTP 200, error in stream: server_error: out of memory" (the
// status, the server's error type where it gave one, its words). A chat
// or completions event that is not a JSON object fails the request too,
// its text in the message ("malformed stream event …"): what it carried
// is lost. A stream cut off (the connection dropped before the body's end) is
// StatusError saying so; a deadline is StatusTimeout; a cancelled context
// StatusCancelled. A stream read to its end is ok, and Result.End says
// how it ended: a finish (a finish reason, response.completed, Ollama's
// done, TGI's generated_text), [DONE] alone, or a clean close with
// neither.
//
// # Formats
//
// Chat and legacy completions SSE, the Responses API's typed events,
// Ollama's NDJSON (/api/chat, /api/generate) and TGI's /generate_stream
// (see API), and the non-streaming reply of each, one JSON body
// (Result.Streamed false: its one chunk is the body's end, so its TTFT is
// its E2E). A response is framed by its content, not its Content-Type: a
// body that opens with a JSON object or array is read as JSON values (an
// indented body, or NDJSON), any other as SSE; lines end at LF, CR or
// CRLF, as the SSE specification allows; a data line that opens an object
// after one that held a whole object starts a new event (servers that end
// events with one newline); a gzip or deflate body the caller asked for
// is decoded. The SSE reader is written here rather than taken from a
// library: it reads events in place from buffers it reuses, tolerates what
// real servers send ("data:" without a space, comment lines, events split
// across reads, no [DONE]), and costs no allocation per event, which a
// reader that hands out each event as new strings cannot; the benchmark
// BenchmarkStream measures it.
//
// # Attributes
//
// Every Result carries what the OpenTelemetry GenAI conventions' metric
// attributes need, so that the live package labels it with no glue: the
// request's model (read from its JSON body), the response's model, the
// operation, the provider, the server's address and port, the HTTP status
// and whether usage came; and what the conventions' inference span adds:
// the response's id and finish reason, the request's output limit
// (Record.MaxTokens) and whether it asked for a stream.
//
// # Traces
//
// A Transport with a Tracer traces every call it observes: the Tracer
// starts a span as the call begins, adds its context to the headers of
// the request sent (a W3C traceparent, so that the server's own spans
// join the trace) and ends it with the finished Result. observe defines
// the hook and depends on the standard library alone; the live module's
// NewTracer is the OpenTelemetry Tracer, with every attribute of the
// GenAI conventions' inference span. A traced call costs nothing more a
// chunk: the span is built once, from the Result.
package observe
