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
// chunks. A response without usage has n unknown (Result.UsageKnown false)
// and Run sets it aside with that reason. Where the server reports usage on
// every chunk (vLLM's continuous_usage_stats), the growth of completion
// tokens per text-bearing chunk fills Record.ChunkTokens, so the
// token-or-chunk verdict rests on the server's word. A success whose usage
// reports tokens but whose stream showed no text-bearing event has no first
// token to time, and is recorded as an error saying so.
//
// # Outcomes
//
// An HTTP status other than 200, an error object or error event in the
// stream (even after HTTP 200), or a stream that ends without its finish
// (finish_reason or [DONE]; response.completed; Ollama's done; TGI's
// generated_text) is StatusError with the message; a deadline is
// StatusTimeout; a cancelled context StatusCancelled.
//
// # Formats
//
// Chat and legacy completions SSE, the Responses API's typed events,
// Ollama's NDJSON (/api/chat, /api/generate) and TGI's /generate_stream
// (see API). The SSE reader is written here rather than taken from a
// library: it reads events in place from a buffer it reuses, tolerates what
// real servers send ("data:" without a space, comment lines, CRLF, events
// split across reads, no [DONE]), and costs no allocation per event, which
// a reader that hands out each event as new strings cannot; the benchmark
// BenchmarkStream measures it.
package observe
