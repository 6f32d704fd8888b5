package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llmmetrics/llmmetrics/live"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeUpstream answers as an OpenAI-compatible server does, naming in its
// replies the model asked for, as llama.cpp's server does: a request
// whose messages are not a list gets a 400; by the request's model,
// "unknown" gets a 404, "cut" a stream whose connection drops, "boom" an
// error inside the stream (llama.cpp's error line); stream false a JSON
// body; any other a stream without usage, as servers send to clients
// that do not ask for it.
func fakeUpstream() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string          `json:"model"`
			Stream   bool            `json:"stream"`
			Messages json.RawMessage `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		model, _ := json.Marshal(req.Model)
		chunk := func(text string) string {
			return `data: {"model":` + string(model) + `,"choices":[{"delta":{"content":"` + text + `"}}]}` + "\n\n"
		}
		switch {
		case len(req.Messages) > 0 && req.Messages[0] != '[':
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"code":400,"message":"'messages' must be an array","type":"invalid_request_error"}}`)
			return
		case req.Model == "unknown":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"message":"model not found","type":"not_found_error"}}`)
			return
		case !req.Stream:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"model":`+string(model)+`,"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":1}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		switch req.Model {
		case "cut":
			w.Header().Set("Content-Length", "100000")
			io.WriteString(w, chunk("a"))
			w.(http.Flusher).Flush()
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		case "boom":
			io.WriteString(w, chunk("a")+"error: {\"code\":500,\"message\":\"the context is full\",\"type\":\"server_error\"}\n\ndata: [DONE]\n\n")
			return
		}
		for _, e := range []string{chunk("Hel"), chunk("lo"), `data: {"model":` + string(model) + `,"choices":[{"delta":{},"finish_reason":"stop"}]}` + "\n\n", "data: [DONE]\n\n"} {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	}))
}

// call sends one chat request through the gateway and reads its reply.
func call(t *testing.T, base, model string, stream bool) int {
	body, _ := json.Marshal(map[string]any{"model": model, "stream": stream, "messages": []map[string]string{{"role": "user", "content": "hi"}}})
	return send(t, base, string(body))
}

// send sends a request body as it is and returns the status, or 0 when
// the request could not be sent (an error the test is failed with; send
// may be called from any goroutine).
func send(t *testing.T, base, body string) int {
	code, err := post(base, body)
	if err != nil {
		t.Errorf("%v", err)
	}
	return code
}

// post sends a request body as it is, reads the reply to its end (a cut
// stream ends in an error there, which is not post's) and returns its
// status.
func post(base, body string) (int, error) {
	resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("POST %.80s: %w", body, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// The gateway in front of a fake upstream: plain OpenAI-style streams
// without include_usage, non-streaming calls, an unknown model, a stream
// cut off, an error inside a stream, a model name of invalid UTF-8 and
// 1,000 distinct model names. /metrics stays 200; the time-to-first-chunk
// histogram counts every successful stream; the duration histogram every
// request, with its error_type (the stream cut off: unexpected_eof); the
// label sets stay within the limit.
func TestGateway(t *testing.T) {
	up := fakeUpstream()
	defer up.Close()
	g, err := newGateway(config{upstream: up.URL})
	require.NoError(t, err)
	gw := httptest.NewServer(g)
	defer gw.Close()

	for range 5 {
		assert.Equal(t, http.StatusOK, call(t, gw.URL, "tiny", true))
	}
	for range 3 {
		assert.Equal(t, http.StatusOK, call(t, gw.URL, "tiny", false))
	}
	for range 2 {
		assert.Equal(t, http.StatusNotFound, call(t, gw.URL, "unknown", true))
	}
	call(t, gw.URL, "cut", true)
	call(t, gw.URL, "boom", true)
	// A model name of invalid UTF-8, sent as raw bytes.
	assert.Equal(t, http.StatusOK, send(t, gw.URL, "{\"model\":\"bad\xff\xfename\",\"stream\":true}"))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 1000; i += 4 {
				call(t, gw.URL, "model-"+strconv.Itoa(i), true)
			}
		}()
	}
	wg.Wait()

	resp, err := http.Get(gw.URL + "/metrics")
	require.NoError(t, err)
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.True(t, strings.Contains(string(text), "gen_ai_request_model=\"bad\ufffdname\""), "the odd model's series, valid UTF-8")

	mfs, err := g.reg.Gather()
	require.NoError(t, err)
	family := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		family[mf.GetName()] = mf
	}
	label := func(m *dto.Metric, name string) string {
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				return l.GetValue()
			}
		}
		return ""
	}
	var ttfc uint64
	for _, m := range family["gen_ai_client_operation_time_to_first_chunk_seconds"].GetMetric() {
		ttfc += m.GetHistogram().GetSampleCount()
	}
	assert.Equal(t, uint64(5+1+1000), ttfc, "every successful stream: 5 plain, the odd name, 1,000 names")
	byType := map[string]uint64{}
	for _, m := range family["gen_ai_client_operation_duration_seconds"].GetMetric() {
		byType[label(m, "error_type")] += m.GetHistogram().GetSampleCount()
	}
	assert.Equal(t, map[string]uint64{"": 5 + 3 + 1 + 1000, "404": 2, "unexpected_eof": 1, "server_error": 1, "_OTHER": 0, "timeout": 0, "cancelled": 0}, byType)
	identities := map[string]bool{} // label sets without their response model
	for _, m := range family["llmmetrics_output_tokens_total"].GetMetric() {
		identities[label(m, "gen_ai_operation_name")+" "+label(m, "gen_ai_provider_name")+" "+label(m, "gen_ai_request_model")+" "+
			label(m, "server_address")+" "+label(m, "server_port")] = true
	}
	assert.LessOrEqual(t, len(identities), live.DefaultMaxLabelSets+1, "the identities kept and _OTHER")
	assert.Greater(t, family["llmmetrics_label_set_overflow_total"].GetMetric()[0].GetCounter().GetValue(), 800.0)
	assert.Equal(t, 0.0, family["llmmetrics_requests_in_flight"].GetMetric()[0].GetGauge().GetValue())
	var offered float64
	for _, m := range family["llmmetrics_requests_total"].GetMetric() {
		offered += m.GetCounter().GetValue()
	}
	assert.Equal(t, float64(5+3+2+1+1+1+1000), offered, "every request is counted once")
}
