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
// # Exported metrics
//
// A Collector (recommended: classic buckets, computed at scrape time from
// the recorder's own sharded state) or a PrometheusSink (adds native
// histograms; its histograms are shared atomic counters) exports to
// Prometheus; an OTelSink records with OpenTelemetry instruments, whose
// Prometheus exporter writes the same names. Histograms have the GenAI
// conventions' recommended buckets. Labels: gen_ai_operation_name,
// gen_ai_provider_name, gen_ai_request_model, server_address.
//
//	Prometheus name (OpenTelemetry name)                    definition (llmmetrics doc.go)
//	gen_ai_client_operation_duration_seconds                E2E of ok requests: send → last text-bearing chunk
//	  (gen_ai.client.operation.duration)
//	gen_ai_client_operation_time_to_first_chunk_seconds     TTFT of ok requests: send → first text-bearing chunk
//	  (gen_ai.client.operation.time_to_first_chunk)
//	gen_ai_client_operation_time_per_output_chunk_seconds   each gap between consecutive text-bearing chunks (ITL;
//	  (gen_ai.client.operation.time_per_output_chunk)       chunk gaps where chunks carry several tokens)
//	gen_ai_client_token_usage{gen_ai_token_type}            output (n) and prompt tokens per ok request, from usage
//	  (gen_ai.client.token.usage)
//	llmmetrics_time_per_output_token_seconds                per-request TPOT, (t_last − t_first)/(n − 1), n ≥ 2
//	llmmetrics_max_gap_seconds                              each ok request's largest chunk gap (stalls)
//	llmmetrics_requests_total{outcome, error_type}          every offered request, by category: they sum to offered
//	llmmetrics_output_tokens_total, _prompt_tokens_total    Σ n and Σ prompt tokens of ok requests: never to be added
//	llmmetrics_goodput_good_total, _offered_total           attainment = good / offered (warm-up not judged)
//	llmmetrics_gap_basis_requests_total{basis}              ok requests with ≥ 2 chunks, token- or chunk-basis
//
// The GenAI duration is recorded for successful requests only: a failed
// request has no last chunk to end it, and is counted in
// llmmetrics_requests_total with its error_type instead.
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
