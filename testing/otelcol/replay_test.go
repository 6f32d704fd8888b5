package otelcol

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// report --otlp replays the repository's sample run, which has no run
// header, from --otlp-epoch to a real collector over either protocol:
// the collector holds a span a record offered (the file's 240 lines),
// each starting at the epoch plus a record's send, with a record's TTFT
// to the nanosecond (as sets: a span does not name its record).
func TestReportReplays(t *testing.T) {
	const file = "../../testdata/sample_run.jsonl"
	recs := readRecords(t, file)
	require.Len(t, recs, 240, "the sample run's lines, wc -l")
	epoch := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var wantStart, wantTTFT []time.Duration
	for i := range recs {
		wantStart = append(wantStart, recs[i].Sent)
		if d, err := recs[i].TTFT(); err == nil {
			wantTTFT = append(wantTTFT, d)
		}
	}
	for _, proto := range []string{"grpc", "http"} {
		t.Run(proto, func(t *testing.T) {
			col := startCollector(t)
			endpoint := col.HTTP
			if proto == "grpc" {
				endpoint = col.GRPC
			}
			stdout, stderr := command(t, bins.llmmetrics, []string{"OTEL_SERVICE_NAME=replay"}, "report",
				"--otlp", "--otlp-epoch", epoch.Format(time.RFC3339), "--otlp-endpoint", endpoint, "--otlp-protocol", proto, file)
			col.stop(t)
			assert.Contains(t, stdout, "TTFT")
			assert.Equal(t, "llmmetrics: pushed 240 spans to "+endpoint+"\n", stderr)
			spans := readSpans(t, col.Out)
			require.Len(t, spans, len(recs), "a span a record offered")
			var gotStart, gotTTFT []time.Duration
			for _, sp := range spans {
				assert.Equal(t, "chat", sp.Name, "the file names no model")
				assert.Equal(t, 3, sp.Kind, "SPAN_KIND_CLIENT")
				assert.Equal(t, "replay", sp.service)
				assert.Equal(t, schemaURL, sp.schema)
				ns, err := strconv.ParseInt(sp.Start, 10, 64)
				require.NoError(t, err)
				gotStart = append(gotStart, time.Unix(0, ns).Sub(epoch))
				if s, ok := double(sp.Attributes, "gen_ai.response.time_to_first_chunk"); ok {
					gotTTFT = append(gotTTFT, time.Duration(math.Round(s*1e9)))
				}
			}
			for _, s := range [][]time.Duration{wantStart, wantTTFT, gotStart, gotTTFT} {
				slices.Sort(s)
			}
			assert.Equal(t, wantStart, gotStart, "each span's start: the epoch plus a record's send")
			assert.Equal(t, wantTTFT, gotTTFT, "gen_ai.response.time_to_first_chunk, to the nanosecond")
			assert.False(t, strings.Contains(stderr, "warning"))
		})
	}
}
