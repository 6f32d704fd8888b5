// Package live records the requests of a running Go service — a gateway,
// a model server — and exports llmmetrics' figures as Prometheus and
// OpenTelemetry metrics under the OpenTelemetry GenAI semantic
// conventions' names, correct when a fleet of replicas is summed.
//
// A Recorder takes finished records (from observe.Transport under the
// service's HTTP client, or built by the caller) and keeps, per label set
// (Key: operation, provider, model, endpoint), the accounting of every
// outcome, token and goodput counters, and the latency distributions in a
// mergeable form: DDSketches (github.com/DataDog/sketches-go) whose
// quantiles are within a relative accuracy (1 % by default) of a sample
// value of the right rank, and whose merge across replicas is exact; means
// are exact (the sums are kept beside the sketches). Figures are
// cumulative and over a sliding window (the last minute by default, moving
// by a sixth of it). With Options.KeepRecords it keeps the records too, and
// Summary gives llmmetrics' exact figures.
//
// # Wiring
//
// Recorder.Transport returns the observe.Transport for a service's HTTP
// client (or an httputil.ReverseProxy): every call to a known endpoint is
// recorded with RecordResult under the label set of its Result (KeyOf),
// with the calls in flight counted. Recorder.Record and RecordContext take
// records built otherwise.
//
// Keep-alive: rec.Transport(nil) shares http.DefaultTransport's kept-alive
// connections, and llama.cpp's server closes every connection after
// its streamed response (whatever its Keep-Alive header says); a POST sent on a connection the server has just
// closed fails with an EOF (error_type connection_closed), which net/http
// does not retry: 1 or 2 of 5 requests to llama-server failed so. Give
// such an upstream a base transport with DisableKeepAlives, as
// examples/gateway does (a connection per call):
//
//	base := http.DefaultTransport.(*http.Transport).Clone()
//	base.DisableKeepAlives = true
//	client := &http.Client{Transport: rec.Transport(base)}
//
// # Exported metrics
//
// A Collector (recommended: classic buckets, and native ones with
// Options.NativeHistograms, computed at scrape time from the recorder's
// own sharded state) or a PrometheusSink (adds native
// histograms and exemplars; its histograms are shared atomic counters)
// exports to Prometheus; an OTelSink records with OpenTelemetry
// instruments, whose Prometheus exporter writes the same names and the
// same labels. The SDK's Record costs about 250 ns a call, and the chunk
// gaps take one a chunk: with a ChunkProducer registered on the reader
// (OTelOptions.Chunks), the sink aggregates them itself, at a few ns a
// chunk, and the reader exports them at each collection. Histograms have the GenAI conventions' recommended buckets
// (DefaultBuckets), or each recorder's and sink's own (Buckets).
//
// Labels, the attributes' names with dots as underscores:
// gen_ai_operation_name, gen_ai_provider_name, gen_ai_request_model,
// gen_ai_response_model, server_address, server_port; and per metric
// error_type, gen_ai_token_type, llmmetrics_outcome, llmmetrics_basis,
// llmmetrics_reason.
//
//	Prometheus name (OpenTelemetry name)                    definition (llmmetrics doc.go)
//	gen_ai_client_operation_duration_seconds{error_type}    E2E of ok requests (send → last text-bearing chunk); for a
//	  (gen_ai.client.operation.duration)                    failed one, send → failure, with its error_type
//	gen_ai_client_operation_time_to_first_chunk_seconds     TTFT of ok streamed requests: send → first text-bearing chunk
//	  (gen_ai.client.operation.time_to_first_chunk)
//	gen_ai_client_operation_time_per_output_chunk_seconds   each gap between consecutive text-bearing chunks (ITL;
//	  (gen_ai.client.operation.time_per_output_chunk)       chunk gaps where chunks carry several tokens)
//	gen_ai_client_token_usage{gen_ai_token_type}            output (n) and prompt tokens per ok request, from usage
//	  (gen_ai.client.token.usage)
//	llmmetrics_time_per_output_token_seconds                per-request TPOT, (t_last − t_first)/(n − 1), n ≥ 2
//	llmmetrics_max_gap_seconds                              each ok request's largest chunk gap (stalls)
//	llmmetrics_requests_total{llmmetrics_outcome,           every offered request, by outcome (ok, no_count, zero_token,
//	  error_type}                                           failed, rejected, warmup): they sum to offered
//	llmmetrics_no_count_requests_total{llmmetrics_reason}   ok requests without a usable token count, by reason
//	llmmetrics_output_tokens_total, _prompt_tokens_total    Σ n and Σ prompt tokens of ok requests: never to be added
//	llmmetrics_goodput_good_total, _offered_total           attainment = good / offered (warm-up not judged)
//	llmmetrics_gap_basis_requests_total{llmmetrics_basis}   ok requests with ≥ 2 chunks, token- or chunk-basis
//	llmmetrics_label_set_overflow_total                     requests recorded under the _OTHER label set
//	llmmetrics_requests_in_flight                           calls through the Recorder's Transport not yet ended
//
// error_type follows the conventions: the HTTP status code ("429"),
// "timeout", "cancelled", the server's own type for an error inside a
// stream ("server_error"); for a call that failed without a status code,
// a name of its cause (ErrorTypeOf): connection_refused,
// connection_reset, connection_closed (closed before any response, as a
// kept-alive connection the server has just closed), unexpected_eof (a
// response cut off), dns_error, tls_error; and _OTHER otherwise; at most
// 32 distinct values a recorder, then _OTHER.
//
// A request without a usable token count (most OpenAI clients do not ask
// for usage; see observe.Transport.IncludeUsage) is counted as no_count:
// it is in the duration, time to first chunk and chunk-gap histograms,
// and not in the token usage or TPOT. A non-streaming reply is in the
// duration, not in the time to first chunk (streaming only, as the
// conventions say).
//
// # Limits
//
// Nothing a client sends can break the export: every label value is made
// valid UTF-8 (invalid bytes become U+FFFD) of at most MaxLabelLength
// bytes before any sink sees it, so /metrics always answers. A recorder
// keeps the label sets of at most Options.MaxLabelSets identities
// (DefaultMaxLabelSets, 100), an identity being a Key without its
// response model: what the client's request decides. The label sets of
// further identities go to the label set whose string values are all
// _OTHER (its port empty), and llmmetrics_label_set_overflow_total counts
// them. An identity kept
// keeps its failures' label set (a failed request has no response model)
// beside those of its successes, so that a model's failures are never
// counted apart from its successes once the limit is full; the response
// model comes from the server, and an identity keeps MaxResponseModels
// (4) of them, the next ones under the response model _OTHER (counted as
// overflows too). A label set is 186 series of the Collector, and 18 more
// for each error type beyond _OTHER, timeout and cancelled.
// Recorder.Remove forgets a label set; Recorder.Declare creates known
// ones ahead, so that their series exist at zero from the first scrape:
// their keys must be those KeyOf gives the requests' results (see
// Declare).
//
// # Traces
//
// NewTracer is the OpenTelemetry observe.Tracer: with it, each call
// through an observe.Transport gets one CLIENT span of the GenAI
// conventions (v1.41.0), named "{gen_ai.operation.name}
// {gen_ai.request.model}", from its start to the end of its response or
// its failure, and the request sent carries its W3C traceparent, so that
// the server's own spans join the trace:
//
//	t := rec.Transport(base)
//	t.Tracer = live.NewTracer(tp, live.TraceOptions{})
//
// The Transport's OnResultContext then records the call's metrics with the
// span's context, so that their exemplars name it. NewSpanSink makes the
// same span after the fact, at the request's own times, from a finished
// observe.Result (the driver's) or any llmmetrics.Record with its label
// set (a file's). SpanSink lists the attributes. The span is built once,
// from the Result, when the call ends: it adds nothing a chunk. The
// tracer, Meter and a ChunkProducer's default scope declare the
// conventions' schema URL (SchemaURL).
//
// # Recording the traffic
//
// A RecordSink writes every record a Recorder observes to a run file in
// llmmetrics' own JSONL format (a header, a line a request, an end line on
// Close): send times, chunk arrivals, usage and status, never prompt or
// output text, and a failure's HTTP status and error.type in place of the
// server's message unless RecordOptions.Messages. llmmetrics report and
// diff read the file as any run, and llmmetrics run --replay FILE sends
// its arrivals and lengths to a candidate server (docs/run.md, "From
// production to a candidate server"). The Recorder hands it each record
// by value (RecordObserver), which it copies into a bounded queue without
// allocating; a goroutine writes the queue; a record that finds it full
// is dropped, counted, and the end line says so.
//
// # A fleet
//
// Each replica exports its own series; Prometheus sums them:
// histogram_quantile(0.99, sum by (le) (rate(…_bucket[5m]))) is the
// quantile of the merged histogram, and sum(good)/sum(offered) the fleet's
// attainment. A bucketed quantile is only known to within its bucket: its
// error is the bucket's width (with the GenAI duration buckets, a factor
// of two), where a sketch's is its relative accuracy. Merge merges
// replicas' snapshots in process, exactly.
package live
