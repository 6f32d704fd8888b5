package formats

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdataOf returns the files of testdata that are the tool's: their
// names begin with the tool's name, its dashes written as underscores
// (genai_perf_profile_export.json).
func testdataOf(t *testing.T, tool Tool) []string {
	t.Helper()
	prefix := strings.ReplaceAll(string(tool), "-", "_") + "_"
	files, err := filepath.Glob(filepath.Join("testdata", prefix+"*"))
	require.NoError(t, err)
	return files
}

// detected returns the tools whose detect matches the head of a file.
func detected(head []byte) []Tool {
	keys, top := headKeys(head)
	var ts []Tool
	for _, d := range tools {
		if d.detect(keys, top) {
			ts = append(ts, d.tool)
		}
	}
	return ts
}

// Every tool of the registry is complete: its names, its detection, its
// reader, its dialect's choices, and a testdata file that its detection
// alone picks, whose File gives either records, a dialect and a
// comparison, or its figures as stated.
func TestToolsComplete(t *testing.T) {
	require.NotEmpty(t, tools)
	assert.Equal(t, toolNames(), Tools)
	seen := map[Tool]bool{}
	for _, d := range tools {
		t.Run(string(d.tool), func(t *testing.T) {
			assert.False(t, seen[d.tool], "registered twice")
			seen[d.tool] = true
			assert.NotEmpty(t, d.name, "name")
			assert.Equal(t, d.name, toolName(d.tool))
			require.NotNil(t, d.detect, "detect")
			require.NotNil(t, d.read, "read")
			assert.NotEmpty(t, d.choices, "choices")
			parsed, err := ParseTool(string(d.tool))
			assert.NoError(t, err)
			assert.Equal(t, d.tool, parsed)
			for _, k := range d.settings {
				assert.True(t, IsSetting(d.tool, k), k)
			}
			if s := d.summary; s != nil {
				assert.NotNil(t, s.read, "summary.read")
				assert.Equal(t, s.detect != nil, s.instead != "", "summary.detect and summary.instead go together")
				assert.Equal(t, s.records != "", s.beside != "", "summary.records and summary.beside go together")
				assert.False(t, s.load != nil && s.beside == "", "summary.load needs the summary file's name")
			}

			files := testdataOf(t, d.tool)
			require.NotEmpty(t, files, "no testdata file of %s (testdata/%s_…)", d.tool, strings.ReplaceAll(string(d.tool), "-", "_"))
			for _, name := range files {
				b, err := os.ReadFile(name)
				require.NoError(t, err)
				assert.Equal(t, []Tool{d.tool}, detected(b), "%s: the tools whose detection matches", name)
				f, err := Read(strings.NewReader(string(b)), "")
				require.NoError(t, err, name)
				assert.Equal(t, d.tool, f.Tool, name)
				assert.NotEmpty(t, f.Layout, name)
				assert.Equal(t, 1, f.Benchmark, name)
				all, err := ReadAll(strings.NewReader(string(b)), d.tool)
				require.NoError(t, err, name)
				require.NotEmpty(t, all, name)
				dialect, err := f.Dialect()
				require.NoError(t, err, "%s: a dialect", name)
				assert.NotEmpty(t, dialect.Figures, name)
				assert.NotEmpty(t, dialect.Rules, name)
				if _, err := f.Records(); errors.Is(err, ErrNoRecords) {
					assert.True(t, dialect.Stated, "%s: a file without records states its figures", name)
					continue
				}
				assert.False(t, dialect.Stated, name)
				_, err = Compare(f, llmmetrics.Options{Lenient: true})
				require.NoError(t, err, "%s: a comparison", name)
			}
		})
	}
}

// Detection picks at most one tool for every file of ../shared/realdata,
// and the tool of each folder for its per-request files.
func TestToolsDetectRealFiles(t *testing.T) {
	if _, err := os.Stat(realdata); err != nil {
		t.Skipf("%s is absent: the real files of this test live there", realdata)
	}
	want := map[string]Tool{"vllm": VLLM, "sglang": SGLang, "aiperf": AIPerf, "llmperf": LLMPerf, "guidellm": GuideLLM}
	n := 0
	err := filepath.WalkDir(realdata, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		got := detected(b)
		assert.LessOrEqual(t, len(got), 1, "%s: %v", path, got)
		base := filepath.Base(path)
		switch tool, ok := want[filepath.Base(filepath.Dir(path))]; {
		case strings.Contains(base, "inference-perf"):
			assert.Equal(t, []Tool{InferencePerf}, got, path)
		case ok && (strings.HasSuffix(base, ".jsonl") && tool == AIPerf || tool != AIPerf && !strings.HasSuffix(base, "_summary.json")):
			assert.Equal(t, []Tool{tool}, got, path)
		}
		return nil
	})
	require.NoError(t, err)
	t.Logf("%d files", n)
}

// The real inference-perf stage reports read as inference-perf files:
// their numbers as figures under their own paths (checked against the
// file decoded apart, with encoding/json), their requested rate as the
// load, no records and no comparison.
func TestInferencePerfReal(t *testing.T) {
	for _, path := range realFiles(t, "prometheus", "kubernetes-sigs__inference-perf__*_metrics.json") {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var doc struct {
			Load      map[string]any `json:"load_summary"`
			Successes map[string]any `json:"successes"`
		}
		require.NoError(t, json.Unmarshal(b, &doc))

		tool, ok := Detect(b)
		require.True(t, ok, path)
		assert.Equal(t, InferencePerf, tool, path)
		f, err := Read(strings.NewReader(string(b)), "")
		require.NoError(t, err, path)
		figs := map[string]float64{}
		for _, fig := range f.Summary {
			figs[fig.Key] = fig.Value
		}
		assert.Equal(t, doc.Successes["count"], figs["successes.count"], path)
		if strings.HasSuffix(path, "_lifecycle_metrics.json") {
			lat := doc.Successes["latency"].(map[string]any)
			ttft := lat["time_to_first_token"].(map[string]any)
			assert.Equal(t, ttft["p99"], figs["successes.latency.time_to_first_token.p99"], path)
			l, ok := f.Load()
			require.True(t, ok, path)
			assert.Equal(t, Load{Kind: "rate", Level: doc.Load["requested_rate"].(float64)}, l, path)
		} else {
			ttft := doc.Successes["time_to_first_token"].(map[string]any)
			assert.Equal(t, ttft["median"], figs["successes.time_to_first_token.median"], path)
			_, ok := f.Load()
			assert.False(t, ok, "%s: a server report states no rate", path)
		}
		d, err := f.Dialect()
		require.NoError(t, err, path)
		assert.True(t, d.Stated, path)
		assert.Len(t, d.Figures, len(f.Summary), path)
		_, err = f.Records()
		assert.ErrorIs(t, err, ErrNoRecords, path)
		_, err = Compare(f, llmmetrics.Options{})
		assert.ErrorIs(t, err, ErrNoRecords, path)
	}
}

// numbersOf names each number by its path, in document order, and skips
// strings, booleans and nulls.
func TestNumbersOf(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Figure
	}{
		{`{}`, nil},
		{`{"a": 1, "b": "x", "c": null, "d": true}`, []Figure{{"a", 1}}},
		{`{"a": {"b": [1, {"c": 2}, [3]], "d": -0.5}, "e": 1e3}`,
			[]Figure{{"a.b[0]", 1}, {"a.b[1].c", 2}, {"a.b[2][0]", 3}, {"a.d", -0.5}, {"e", 1000}}},
		{`[{"a": 1}, 2]`, []Figure{{"[0].a", 1}, {"[1]", 2}}},
	} {
		got, err := numbersOf([]byte(c.in))
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	_, err := numbersOf([]byte(`{"a": 1e999}`))
	assert.ErrorIs(t, err, llmmetrics.ErrSyntax)
}

// LoadBeside takes AIPerf's load from the summary file beside its
// records, and nothing for a file without one.
func TestLoadBeside(t *testing.T) {
	dir := t.TempDir()
	records := filepath.Join(dir, "profile_export.jsonl")
	b, err := os.ReadFile("testdata/aiperf_profile_export.jsonl")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(records, b, 0o644))
	f, err := Read(strings.NewReader(string(b)), AIPerf)
	require.NoError(t, err)
	_, ok := f.LoadBeside(records)
	assert.False(t, ok, "no summary file yet")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "profile_export_aiperf.json"),
		[]byte(`{"input_config": {"loadgen": {"request_rate": 2.5}}, "records": {}}`), 0o644))
	l, ok := f.LoadBeside(records)
	assert.True(t, ok)
	assert.Equal(t, Load{Kind: "rate", Level: 2.5}, l)
	_, ok = f.LoadBeside(filepath.Join(dir, "other.jsonl"))
	assert.False(t, ok, "a file not named as AIPerf names it")

	if files, _ := filepath.Glob(filepath.Join(realdata, "aiperf", "*profile_export.jsonl")); len(files) > 0 {
		// ai-dynamo__aiperf__run1_profile_export_aiperf.json states
		// "loadgen": {"concurrency": 100, …}.
		rf, err := os.Open(files[0])
		require.NoError(t, err)
		defer rf.Close()
		f, err := Read(rf, "")
		require.NoError(t, err)
		l, ok := f.LoadBeside(files[0])
		assert.True(t, ok)
		assert.Equal(t, Load{Kind: "concurrency", Level: 100}, l)
	}
}
