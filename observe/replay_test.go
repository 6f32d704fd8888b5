package observe

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

const streams = "../../shared/realdata/streams"

// An exchange is one recorded streaming response: where it was sent, its
// status, content type and body, as the recorder kept them.
type exchange struct {
	path        string
	status      int
	contentType string
	body        []byte
}

// recorded returns the exchanges of a recording in ../shared/realdata/streams,
// unwrapped from its container (go-vcr or VCR.py cassettes, httprr traces,
// bare bodies), or skips the test when the shared data are absent.
func recorded(t testing.TB, name string) []exchange {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(streams, name))
	if os.IsNotExist(err) {
		t.Skipf("%s is absent (the shared real data are not beside the repository)", name)
	}
	require.NoError(t, err)
	switch filepath.Ext(name) {
	case ".txt":
		path := "/v1/chat/completions"
		if strings.Contains(name, "generate-stream") {
			path = "/generate_stream"
		}
		return []exchange{{path: path, status: 200, contentType: "text/event-stream", body: b}}
	case ".httprr":
		return fromHTTPRR(t, b)
	}
	return fromCassette(t, b)
}

func fromCassette(t testing.TB, b []byte) []exchange {
	var doc struct {
		Interactions []struct {
			Request struct {
				URI string `yaml:"uri"`
				URL string `yaml:"url"`
			} `yaml:"request"`
			Response struct {
				Code    int            `yaml:"code"`
				Status  yaml.Node      `yaml:"status"` // "200 OK" (go-vcr) or {code: 200} (VCR.py)
				Headers map[string]any `yaml:"headers"`
				Body    yaml.Node      `yaml:"body"`
			} `yaml:"response"`
		} `yaml:"interactions"`
	}
	require.NoError(t, yaml.Unmarshal(b, &doc))
	var out []exchange
	for _, it := range doc.Interactions {
		uri := it.Request.URI + it.Request.URL
		if i := strings.Index(uri, "://"); i >= 0 {
			uri = uri[i+3:]
			uri = uri[strings.IndexByte(uri, '/'):]
		}
		var body string
		switch it.Response.Body.Kind {
		case yaml.ScalarNode: // go-vcr: the body itself
			body = it.Response.Body.Value
		case yaml.MappingNode: // VCR.py: body.string
			var m struct {
				String string `yaml:"string"`
			}
			require.NoError(t, it.Response.Body.Decode(&m))
			body = m.String
		}
		status := it.Response.Code
		if it.Response.Status.Kind == yaml.MappingNode {
			var st struct {
				Code int `yaml:"code"`
			}
			require.NoError(t, it.Response.Status.Decode(&st))
			status = st.Code
		}
		ct := "text/event-stream"
		for k, v := range it.Response.Headers {
			if strings.EqualFold(k, "content-type") {
				ct = fmt.Sprint(v)
				ct = strings.Trim(ct, "[]")
			}
		}
		out = append(out, exchange{path: uri, status: status, contentType: ct, body: []byte(body)})
	}
	return out
}

// fromHTTPRR reads an httprr trace: "httprr trace v1", then per exchange a
// line "<request bytes> <response bytes>" and those raw bytes.
func fromHTTPRR(t testing.TB, b []byte) []exchange {
	br := bufio.NewReader(bytes.NewReader(b))
	first, _ := br.ReadString('\n')
	require.Equal(t, "httprr trace v1\n", first)
	var out []exchange
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return out
		}
		var nreq, nresp int
		_, err = fmt.Sscanf(line, "%d %d", &nreq, &nresp)
		require.NoError(t, err)
		reqb, respb := make([]byte, nreq), make([]byte, nresp)
		_, err = io.ReadFull(br, reqb)
		require.NoError(t, err)
		_, err = io.ReadFull(br, respb)
		require.NoError(t, err)
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(reqb)))
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(respb)), req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body) // the chunked coding is undone here
		require.NoError(t, err)
		out = append(out, exchange{path: req.URL.Path, status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body})
	}
}

// replay serves an exchange: its status and content type, then its body
// one event at a time (split after each blank line, or each line of
// NDJSON), flushed, with gap between events, so that every event arrives
// in its own read.
func replay(t testing.TB, ex exchange, gap time.Duration) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ex.contentType)
		w.WriteHeader(ex.status)
		sep := []byte("\n\n")
		if strings.Contains(ex.contentType, "ndjson") {
			sep = []byte("\n")
		}
		rest := ex.body
		for len(rest) > 0 {
			i := bytes.Index(rest, sep)
			if i < 0 {
				i = len(rest)
			} else {
				i += len(sep)
			}
			w.Write(rest[:i])
			w.(http.Flusher).Flush()
			rest = rest[i:]
			if gap > 0 && len(rest) > 0 {
				time.Sleep(gap)
			}
		}
	}))
}
