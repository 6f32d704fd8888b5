// Package parquet reads and writes llmmetrics' per-request records as
// Apache Parquet, for notebooks and for runs too large for JSONL: a run of
// 10⁶ requests of 128 chunks is a third of its JSONL or less, and pandas,
// Polars, DuckDB and Spark read it without a line of parsing.
//
// It is a module of its own, so that the library (the module
// github.com/llmmetrics/llmmetrics) keeps the standard library and gonum
// only; it writes with github.com/parquet-go/parquet-go, chosen by
// measurement (docs/scale.md).
//
// # Schema
//
// One row a request; the columns are the JSONL keys (see the package
// documentation of github.com/llmmetrics/llmmetrics), in their order, with
// the same names and units:
//
//	id                 required string     the request's id
//	status             required string     ok, error, timeout or cancelled
//	message            optional string     a failed request's error text; null when none
//	sent_ns            required int64      send time, from the run's epoch
//	first_text_ns      optional int64      first text-bearing chunk, from sent_ns
//	last_text_ns       optional int64      last text-bearing chunk, from sent_ns
//	chunk_arrivals_ns  list of int64       every text-bearing chunk, from sent_ns; empty when not recorded
//	chunk_tokens       list of int32       tokens of each chunk, where the server said; empty otherwise
//	prompt_tokens      optional int64      from usage; null when unknown
//	completion_tokens  optional int64      n from usage; null when the server gave none (never 0 for unknown)
//	max_tokens         optional int64      the requested max_tokens; null when none was asked
//	warmup             required boolean    sent during the warm-up (or preflight)
//	preflight          required boolean    sent before the load, to check the endpoint or size the prompts
//	scheduled_ns       optional int64      when the request was due, from the run's epoch (open loop)
//	wait_ns            optional int64      the client's own wait before the request was written
//	first_answer_ns    optional int64      the first non-reasoning text chunk, from sent_ns
//	reasoning_tokens   optional int64      reasoning tokens among the completion tokens
//	cached_prompt_tokens optional int64    prompt tokens the server took from its prefix cache
//	session            optional byte_array the multi-turn conversation the request belongs to
//	turn               optional int64      the request's turn in its session, from 1
//	one_body           required boolean    the reply came as one body, not a stream (false when missing)
//	unfinished         required boolean    still in flight when the load generator ended its run
//
// A count that is not known is null, never 0: absent is not 0. The client's
// facts (scheduled_ns to turn) are null for a record without
// them; wait_ns is set whenever any is. Lists are Parquet's three-level LIST
// (the group list, the field element), as Arrow and Spark write them.
//
// Then the columns derived per request, so that a notebook needs no
// arithmetic; each is null where the figure does not exist (a failed
// request has no TTFT, a request of one token no TPOT):
//
//	ttft_ns     optional int64   time to first token
//	e2e_ns      optional int64   end-to-end latency, to the last text
//	tpot_ns     optional int64   (last text − first text) / (n − 1), to the nearest nanosecond
//	max_gap_ns  optional int64   the request's largest gap between text chunks
//	outcome     required string  ok, zero_token, failed or warmup (preflight and unfinished included)
//	sent_unix_ns optional int64  the send on the wall clock: the run header's start (Unix ns) + sent_ns
//
// They are computed by the library's Record methods (TTFT, E2E, TPOT,
// MaxGap, Category), as a report computes them, and are not read back: a
// reader takes the records from the other columns. sent_unix_ns is null
// when the run has no header with a start or no real send times; it puts
// the rows of shards that started apart on one clock, as
// llmmetrics.MergeRuns does. A file without it (written before it, or by
// another tool) is read as well.
//
// The file's key-value metadata holds the rest of the run:
// llmmetrics_schema (the schema's version, 1), llmmetrics_run (the run
// header as JSON, as the JSONL header line holds it), llmmetrics_end (the
// run's end line), llmmetrics_cut (where the JSONL it came from ended
// inside a line), llmmetrics_window_ns and llmmetrics_no_send_times (what
// another tool's file declared).
//
// NewSource reads a file a batch of rows at a time, once a pass, for
// bounded.SummarizeSources: the summary of a run too large to read
// whole, in bounded memory.
//
// Write writes only valid records, so that every row can be trusted, and
// Read validates every row: a file of another tool that breaks a rule is
// an error naming the row and the column.
package parquet
