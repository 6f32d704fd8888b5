package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics/live"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// The gateway pushes over OTLP what it serves at /metrics when
// --otlp-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT) says where to: the
// same recorder feeds its Collector and an OTelSink on a MeterProvider
// whose PeriodicReader exports every 10 s (OTEL_METRIC_EXPORT_INTERVAL),
// and once more as the gateway stops on SIGINT, SIGTERM or SIGHUP.
// Exports that fail are dropped, retried never (the metrics are
// cumulative: the next export carries them), time out after 3 s
// (OTEL_EXPORTER_OTLP_TIMEOUT), and are logged once, then counted.

const (
	otlpTimeout  = 3 * time.Second
	otlpInterval = 10 * time.Second
)

// otlpConfig is an OTLP push as the flags and the environment say it.
type otlpConfig struct {
	endpoint    string // the flag's base URL; "": the exporters read OTEL_EXPORTER_OTLP_[METRICS_]ENDPOINT
	protocol    string // grpc or http/protobuf
	timeout     time.Duration
	setTimeout  bool // no variable set the timeout: the exporter is given it
	setInterval bool // OTEL_METRIC_EXPORT_INTERVAL is unset
}

// otlpOf returns the push --otlp-endpoint and --otlp-protocol and the
// variables getenv reads ask for, nil for none.
func otlpOf(endpoint, protocol string, getenv func(string) string) (*otlpConfig, error) {
	c := &otlpConfig{endpoint: endpoint}
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--otlp-endpoint %q: want a URL such as http://127.0.0.1:4317", endpoint)
		}
	}
	on := endpoint != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
	switch {
	case !on && protocol != "":
		return nil, errors.New("--otlp-protocol needs --otlp-endpoint or OTEL_EXPORTER_OTLP_ENDPOINT")
	case !on, strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true"), getenv("OTEL_METRICS_EXPORTER") == "none":
		return nil, nil
	}
	from := "--otlp-protocol"
	for _, v := range []string{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if protocol == "" {
			protocol, from = getenv(v), v
		}
	}
	switch protocol {
	case "grpc":
		c.protocol = "grpc"
	case "", "http", "http/protobuf":
		c.protocol = "http/protobuf"
	default:
		return nil, fmt.Errorf("%s %q: want grpc or http (http/protobuf)", from, protocol)
	}
	c.timeout, c.setTimeout = otlpTimeout, true
	for _, v := range []string{"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"} {
		if ms, err := strconv.Atoi(getenv(v)); err == nil && ms > 0 && c.setTimeout {
			c.timeout, c.setTimeout = time.Duration(ms)*time.Millisecond, false
		}
	}
	c.setInterval = getenv("OTEL_METRIC_EXPORT_INTERVAL") == ""
	return c, nil
}

// metricExporter returns the OTLP metric exporter of the protocol.
func (c *otlpConfig) metricExporter(ctx context.Context) (sdkmetric.Exporter, error) {
	if c.protocol == "grpc" {
		opts := []otlpmetricgrpc.Option{otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false})}
		if c.endpoint != "" {
			opts = append(opts, otlpmetricgrpc.WithEndpointURL(c.endpoint))
		}
		if c.setTimeout {
			opts = append(opts, otlpmetricgrpc.WithTimeout(c.timeout))
		}
		return otlpmetricgrpc.New(ctx, opts...)
	}
	opts := []otlpmetrichttp.Option{otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false})}
	if c.endpoint != "" {
		u, _ := url.Parse(c.endpoint) // checked by otlpOf
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/metrics"
		opts = append(opts, otlpmetrichttp.WithEndpointURL(u.String()))
	}
	if c.setTimeout {
		opts = append(opts, otlpmetrichttp.WithTimeout(c.timeout))
	}
	return otlpmetrichttp.New(ctx, opts...)
}

// An otlpPush is the gateway's MeterProvider and the OTelSink that
// records into it.
type otlpPush struct {
	c    *otlpConfig
	mp   *sdkmetric.MeterProvider
	sink *live.OTelSink
	warn *exportWarnings
	// Spans: a TracerProvider with an OTLP span exporter (otlptracegrpc,
	// otlptracehttp) is plugged in here once live has its observe.Tracer
	// (issue #33, point 2): tp *sdktrace.TracerProvider, set as the
	// Transport's Tracer in newGateway, shut down in stop before mp.
}

// startOTLP starts the push c describes.
func startOTLP(ctx context.Context, c *otlpConfig) (*otlpPush, error) {
	p := &otlpPush{c: c, warn: &exportWarnings{}}
	exp, err := c.metricExporter(ctx)
	if err != nil {
		return nil, fmt.Errorf("--otlp-endpoint: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("llmmetrics-gateway")), // OTEL_SERVICE_NAME overrides it
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		p.warn.Handle(err) // a malformed OTEL_RESOURCE_ATTRIBUTES: the rest is kept
	}
	var ropts []sdkmetric.PeriodicReaderOption
	if c.setInterval {
		ropts = append(ropts, sdkmetric.WithInterval(otlpInterval))
	}
	p.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, ropts...)))
	otel.SetErrorHandler(p.warn)
	meter := p.mp.Meter("github.com/llmmetrics/llmmetrics/live", metric.WithSchemaURL(semconv.SchemaURL))
	if p.sink, err = live.NewOTelSink(meter, live.OTelOptions{}); err != nil {
		p.mp.Shutdown(ctx)
		return nil, err
	}
	return p, nil
}

// stop pushes what is left, within the exporters' timeout, and logs how
// many exports failed.
func (p *otlpPush) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), p.c.timeout)
	defer cancel()
	if err := p.mp.Shutdown(ctx); err != nil {
		p.warn.Handle(err)
	}
	if n := p.warn.count(); n > 0 {
		log.Printf("gateway: warning: %d OTLP export(s) failed and were dropped", n)
	}
}

// exportWarnings logs the OpenTelemetry SDK's first error (a failed
// export) and counts them all: an otel.ErrorHandler.
type exportWarnings struct {
	mu sync.Mutex
	n  int
}

func (w *exportWarnings) Handle(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		log.Printf("gateway: warning: an OTLP export failed and was dropped (the gateway goes on; further failures are counted): %v", err)
	}
	w.n++
}

func (w *exportWarnings) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}
