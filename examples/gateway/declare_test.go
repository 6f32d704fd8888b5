package main

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// offeredBySet returns llmmetrics_goodput_offered_total by label set, each
// written as its operation, provider, request and response models,
// address and port.
func offeredBySet(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	mfs, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "llmmetrics_goodput_offered_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var set []string
			for _, l := range m.GetLabel() { // in label name order
				set = append(set, l.GetName()+"="+l.GetValue())
			}
			out[strings.Join(set, " ")] = m.GetCounter().GetValue()
		}
	}
	return out
}

// With --models m and --slo, the series the first requests of m
// increment exist at zero before them: a scrape before any request holds
// m's two label sets — failed (no response model) and ok (response model
// m), at the upstream's address and port — at 0, and a scrape after one
// ok and one failed request holds the same two, at 1 each: the first
// requests created no label set of their own.
func TestDeclaredModels(t *testing.T) {
	up := fakeUpstream()
	defer up.Close()
	c, err := parseFlags([]string{"--upstream", up.URL, "--models", "m", "--slo", "ttft=1h,tpot=1h"}, io.Discard)
	require.NoError(t, err)
	g, err := newGateway(c)
	require.NoError(t, err)
	gw := httptest.NewServer(g)
	defer gw.Close()
	u, err := url.Parse(up.URL)
	require.NoError(t, err)
	set := func(responseModel string) string {
		return "gen_ai_operation_name=chat gen_ai_provider_name=openai gen_ai_request_model=m gen_ai_response_model=" + responseModel +
			" server_address=127.0.0.1 server_port=" + u.Port()
	}

	assert.Equal(t, map[string]float64{set(""): 0, set("m"): 0}, offeredBySet(t, g.reg), "before any request")
	assert.Equal(t, http.StatusOK, call(t, gw.URL, "m", true))
	assert.Equal(t, http.StatusBadRequest, send(t, gw.URL, `{"model":"m","stream":true,"messages":"Hi"}`))
	assert.Equal(t, map[string]float64{set(""): 1, set("m"): 1}, offeredBySet(t, g.reg), "after one ok and one failed request")
}

// Without --slo nothing is judged; a malformed one is refused.
func TestSLOFlag(t *testing.T) {
	c, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Nil(t, c.slo)
	c, err = parseFlags([]string{"--slo", "ttft=500ms,tpot=50ms", "--models", " a, ,b"}, io.Discard)
	require.NoError(t, err)
	require.NotNil(t, c.slo)
	assert.Equal(t, "500ms 50ms", c.slo.TTFT.String()+" "+c.slo.TPOT.String())
	assert.Equal(t, []string{"a", "b"}, c.models)
	_, err = parseFlags([]string{"--slo", "ttft=fast"}, io.Discard)
	assert.Error(t, err)
}

// A declared model that the server answers under another name (llama-server
// without -a answers with the model file's path) is logged once: its
// declared ok series would stay at zero without a word.
func TestDeclaredModelAnsweredAs(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"model":"/models/tiny.gguf","choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer up.Close()
	var logged strings.Builder
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	c, err := parseFlags([]string{"--upstream", up.URL, "--models", "tiny"}, io.Discard)
	require.NoError(t, err)
	g, err := newGateway(c)
	require.NoError(t, err)
	gw := httptest.NewServer(g)
	defer gw.Close()
	for range 3 {
		assert.Equal(t, http.StatusOK, call(t, gw.URL, "tiny", true))
	}
	assert.Equal(t, 1, strings.Count(logged.String(), `model "tiny" is answered as "/models/tiny.gguf"`), logged.String())
	assert.Contains(t, logged.String(), "llama-server -a tiny")
}

// An upstream given with /v1 would forward to /v1/v1/...: refused, with
// the URL to give.
func TestUpstreamWithV1(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/"} {
		c, err := parseFlags([]string{"--upstream", u}, io.Discard)
		require.NoError(t, err)
		_, err = newGateway(c)
		assert.ErrorContains(t, err, "without /v1 (http://127.0.0.1:8080)", u)
	}
	c, err := parseFlags([]string{"--upstream", "http://127.0.0.1:8080/proxy"}, io.Discard)
	require.NoError(t, err)
	_, err = newGateway(c)
	assert.NoError(t, err, "another path is the user's own")
}
