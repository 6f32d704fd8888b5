// Package otelcol tests the OTLP push of the command (llmmetrics run
// --otlp-endpoint, and report --otlp's replay of a run file) and of the
// gateway example against a real
// OpenTelemetry Collector: its OTLP receiver on 127.0.0.1, its file
// exporter writing what it received as OTLP JSON, one request a line.
// The tests read that file and hold it against the run's own report,
// records and the gateway's Prometheus /metrics, for the same traffic,
// sent to a real llama-server.
//
// The collector is ./collector, a module of its own outside the
// workspace, built by build.sh; .ci/run builds it once per version into
// ~/.cache/llmmetrics/otelcol-VERSION/otelcol (LLMMETRICS_OTELCOL names
// another). Without it, or without the llama-server of .ci/run
// (LLMMETRICS_LLAMA_SERVER, LLMMETRICS_TINY_MODEL), the tests skip with a
// message, and fail under CI.
package otelcol
