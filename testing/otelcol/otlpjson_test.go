package otelcol

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The file exporter's lines: one OTLP/JSON export request each (the
// protocol's JSON mapping: 64-bit integers as strings, names in
// lowerCamelCase).
type exportLine struct {
	ResourceSpans []struct {
		Resource   resource `json:"resource"`
		ScopeSpans []struct {
			Scope     scope  `json:"scope"`
			SchemaURL string `json:"schemaUrl"`
			Spans     []span `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
	ResourceMetrics []struct {
		Resource     resource `json:"resource"`
		ScopeMetrics []struct {
			Scope     scope  `json:"scope"`
			SchemaURL string `json:"schemaUrl"`
			Metrics   []struct {
				Name      string      `json:"name"`
				Unit      string      `json:"unit"`
				Sum       *dataPoints `json:"sum"`
				Histogram *dataPoints `json:"histogram"`
			} `json:"metrics"`
		} `json:"scopeMetrics"`
	} `json:"resourceMetrics"`
}

type resource struct {
	Attributes []keyValue `json:"attributes"`
}

type scope struct {
	Name string `json:"name"`
}

type dataPoints struct {
	DataPoints             []point `json:"dataPoints"`
	AggregationTemporality int     `json:"aggregationTemporality"`
}

type point struct {
	Attributes   []keyValue `json:"attributes"`
	TimeUnixNano string     `json:"timeUnixNano"`
	AsInt        string     `json:"asInt"`
	Count        string     `json:"count"`
}

type keyValue struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string  `json:"stringValue"`
		IntValue    *string  `json:"intValue"`
		DoubleValue *float64 `json:"doubleValue"`
	} `json:"value"`
}

// A span as the file has it, with the resource's service and the scope's
// schema beside it.
type span struct {
	TraceID    string     `json:"traceId"`
	SpanID     string     `json:"spanId"`
	Name       string     `json:"name"`
	Kind       int        `json:"kind"`
	Start      string     `json:"startTimeUnixNano"`
	Attributes []keyValue `json:"attributes"`
	service    string
	schema     string
}

// double returns a key's double value.
func double(kvs []keyValue, key string) (float64, bool) {
	for _, kv := range kvs {
		if kv.Key == key && kv.Value.DoubleValue != nil {
			return *kv.Value.DoubleValue, true
		}
	}
	return 0, false
}

// readSpans reads every span of the collector's file.
func readSpans(t *testing.T, path string) []span {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []span
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var line exportLine
		require.NoError(t, json.Unmarshal([]byte(l), &line))
		for _, rs := range line.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					sp.service, sp.schema = str(rs.Resource.Attributes, "service.name"), ss.SchemaURL
					out = append(out, sp)
				}
			}
		}
	}
	return out
}

// str is a key's value, as text.
func str(kvs []keyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			switch {
			case kv.Value.StringValue != nil:
				return *kv.Value.StringValue
			case kv.Value.IntValue != nil:
				return *kv.Value.IntValue
			}
		}
	}
	return ""
}

// A series is one metric's data point for one attribute set, the latest
// the collector received (every one is cumulative).
type series struct {
	metric, attrs string // attrs: sorted key=value pairs
	service       string
	scope, schema string
	time          int64
	value         int64 // a sum's value, a histogram's count
}

// readMetrics reads the collector's file into the latest point of every
// series.
func readMetrics(t *testing.T, path string) []series {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	latest := map[[2]string]series{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line exportLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		for _, rm := range line.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					dps, hist := m.Sum, false
					if m.Histogram != nil {
						dps, hist = m.Histogram, true
					}
					if dps == nil {
						continue
					}
					require.Equal(t, 2, dps.AggregationTemporality, "%s: cumulative", m.Name)
					for _, p := range dps.DataPoints {
						s := series{metric: m.Name, attrs: attrKey(p.Attributes), service: str(rm.Resource.Attributes, "service.name"),
							scope: sm.Scope.Name, schema: sm.SchemaURL}
						s.time, err = strconv.ParseInt(p.TimeUnixNano, 10, 64)
						require.NoError(t, err)
						v := p.AsInt
						if hist {
							v = p.Count
						}
						s.value, err = strconv.ParseInt(v, 10, 64)
						require.NoError(t, err, "%s: %q", m.Name, v)
						k := [2]string{s.metric, s.attrs}
						if old, ok := latest[k]; !ok || s.time >= old.time {
							latest[k] = s
						}
					}
				}
			}
		}
	}
	require.NoError(t, sc.Err())
	out := make([]series, 0, len(latest))
	for _, s := range latest {
		out = append(out, s)
	}
	return out
}

func attrKey(kvs []keyValue) string {
	var parts []string
	for _, kv := range kvs {
		parts = append(parts, kv.Key+"="+str(kvs, kv.Key))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// total adds the latest values of a metric's series whose attributes
// contain every one of with ("key=value").
func total(ss []series, metric string, with ...string) int64 {
	var n int64
	for _, s := range ss {
		if s.metric != metric {
			continue
		}
		all := true
		for _, w := range with {
			all = all && slices.Contains(strings.Split(s.attrs, ","), w)
		}
		if all {
			n += s.value
		}
	}
	return n
}
