// Command gateway is an OpenAI-compatible reverse proxy that measures the
// traffic it forwards: every /v1/... call goes to the upstream model server
// through observe.Transport and is recorded by a live.Recorder, whose
// figures it serves at /metrics under the OpenTelemetry GenAI semantic
// conventions' names.
//
//	go run ./examples/gateway --upstream http://127.0.0.1:8080 --listen 127.0.0.1:9090
//
// Point OpenAI clients at http://127.0.0.1:9090/v1 and Prometheus at
// http://127.0.0.1:9090/metrics. With --include-usage the gateway asks the
// upstream for usage on streams whose client did not (see
// observe.Transport.IncludeUsage), so that TPOT and token rates are known.
package main

import (
	"flag"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"github.com/llmmetrics/llmmetrics/live"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	upstream := flag.String("upstream", "http://127.0.0.1:8080", "the model server's base URL")
	listen := flag.String("listen", "127.0.0.1:9090", "the address to serve on")
	models := flag.String("models", "", "comma-separated model names whose series exist from the start")
	includeUsage := flag.Bool("include-usage", false, "ask for usage on streams whose client did not")
	flag.Parse()

	g, err := newGateway(*upstream, live.Options{}, *includeUsage)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range strings.Split(*models, ",") {
		if m != "" {
			g.rec.Declare(live.Key{Operation: "chat", Provider: "openai", Model: m})
		}
	}
	log.Printf("gateway: %s → %s, metrics at /metrics", *listen, *upstream)
	log.Fatal(http.ListenAndServe(*listen, g))
}

// gateway forwards /v1/ to the upstream, recording each call, and serves
// /metrics.
type gateway struct {
	http.Handler
	rec *live.Recorder
	reg *prometheus.Registry
}

func newGateway(upstream string, opt live.Options, includeUsage bool) (*gateway, error) {
	target, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	rec, err := live.NewRecorder(opt)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(live.NewCollector(rec)); err != nil {
		return nil, err
	}
	// A connection per call: llama.cpp's server (cpp-httplib) closes a
	// kept-alive connection after a few requests, and a POST sent on one
	// it has just closed fails with EOF, which net/http does not retry.
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DisableKeepAlives = true
	transport := rec.Transport(base)
	transport.IncludeUsage = includeUsage
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport:     transport,
		FlushInterval: -1, // pass each event on as it arrives
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/", proxy)
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return &gateway{Handler: mux, rec: rec, reg: reg}, nil
}
