package trace

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realTraces is the folder of the real traces (see its README).
const realTraces = "../../../shared/realdata/traces/"

// openReal opens a real trace, or skips the test when it is absent.
func openReal(t *testing.T, name string) string {
	t.Helper()
	path := realTraces + name
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the real trace %s is absent (../shared/realdata is not here): %v", name, err)
	}
	return path
}

// independent is a trace row read by the test's own code: its time in
// nanoseconds and its lengths.
type independent struct {
	ns             int64
	prompt, output int
	blocks         int
}

// azureRows reads an Azure CSV without the package: the clock text
// HH:MM:SS.fffffff cut into its digits (every row is on 2023-11-16), in
// units of 100 ns.
func azureRows(t *testing.T, path string) []independent {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []independent
	for i, line := range strings.Split(string(b), "\r\n") {
		if i == 0 || line == "" {
			continue
		}
		f := strings.Split(line, ",")
		clock := strings.Fields(f[0])[1] // 18:17:03.9799600
		h, _ := strconv.Atoi(clock[0:2])
		m, _ := strconv.Atoi(clock[3:5])
		s, _ := strconv.Atoi(clock[6:8])
		frac, _ := strconv.Atoi(clock[9:16]) // 7 digits: 100 ns
		p, _ := strconv.Atoi(f[1])
		o, _ := strconv.Atoi(f[2])
		out = append(out, independent{ns: (int64((h*60+m)*60+s)*10_000_000 + int64(frac)) * 100, prompt: p, output: o})
	}
	return out
}

// mooncakeRows reads a Mooncake file with encoding/json: integer
// milliseconds.
func mooncakeRows(t *testing.T, path string) []independent {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var out []independent
	for sc.Scan() {
		var r struct {
			Timestamp    int64
			InputLength  int   `json:"input_length"`
			OutputLength int   `json:"output_length"`
			HashIDs      []int `json:"hash_ids"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		out = append(out, independent{ns: r.Timestamp * 1e6, prompt: r.InputLength, output: r.OutputLength, blocks: len(r.HashIDs)})
	}
	return out
}

// Replaying a window of each real trace reproduces its offsets exactly,
// scaled by the speed (a power of two, so that the division is exact in
// whole nanoseconds: Azure's times are multiples of 100 ns, Mooncake's of
// 1 ms), and its lengths, the capped rows counted. The expected values
// come from the test's own reading of the files.
func TestRealTraces(t *testing.T) {
	for _, c := range []struct {
		name     string
		rows     func(*testing.T, string) []independent
		from, to time.Duration
		speed    float64
		cap      int
	}{
		{"Azure__AzurePublicDataset__AzureLLMInferenceTrace_conv.csv", azureRows, 10 * time.Minute, 12 * time.Minute, 4, 2048},
		{"Azure__AzurePublicDataset__AzureLLMInferenceTrace_code.csv", azureRows, 0, 5 * time.Minute, 1, 4096},
		{"kvcache-ai__Mooncake__conversation_trace.jsonl", mooncakeRows, 30 * time.Minute, 31 * time.Minute, 2, 16384},
		{"kvcache-ai__Mooncake__synthetic_trace.jsonl", mooncakeRows, 0, 0, 8, 32768},
	} {
		path := openReal(t, c.name)
		all := c.rows(t, path)
		zero := all[0].ns // Azure's times are from its first row; Mooncake's first is 0
		var in []independent
		for _, r := range all {
			at := time.Duration(r.ns - zero)
			if at >= c.from && (c.to == 0 || at < c.to) {
				in = append(in, r)
			}
		}
		require.NotEmpty(t, in, c.name)
		tr, err := Read(path, "")
		require.NoError(t, err, c.name)
		require.Len(t, tr.Rows, len(all), c.name)
		r, err := tr.Replay(Options{From: c.from, To: c.to, Speed: c.speed, MaxPrompt: c.cap})
		require.NoError(t, err, c.name)
		require.Len(t, r.Requests, len(in), c.name)
		capped := 0
		for i, w := range in {
			got := r.Requests[i]
			wantAt := time.Duration((w.ns - in[0].ns) / int64(c.speed))
			prompt := w.prompt
			if prompt > c.cap {
				prompt = c.cap
				capped++
			}
			if got.Scheduled != wantAt || got.PromptTokens != prompt || got.MaxTokens != w.output || len(got.PrefixBlocks) != w.blocks {
				t.Fatalf("%s: row %d of the window: got %v %d %d (%d blocks), want %v %d %d (%d blocks)", c.name, i,
					got.Scheduled, got.PromptTokens, got.MaxTokens, len(got.PrefixBlocks), wantAt, prompt, w.output, w.blocks)
			}
		}
		assert.Equal(t, capped, r.CappedPrompt, c.name)
		assert.Greater(t, capped, 0, "%s: the cap of %d catches some rows", c.name, c.cap)
		assert.Zero(t, r.CappedOutput)
	}
}
