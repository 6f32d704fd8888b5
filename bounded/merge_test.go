package bounded_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// shards returns three files of one run taken by three machines, which
// started 0, 1.5 and 0.25 s apart, the second interrupted, as JSONL.
func shards(t *testing.T) [][]byte {
	t.Helper()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var files [][]byte
	for i, at := range []time.Duration{0, 1500 * time.Millisecond, 250 * time.Millisecond} {
		recs := synth.Mixed(30_000+i*5_000, 8)
		var b bytes.Buffer
		h := &llmmetrics.RunHeader{Tool: "test", Start: start.Add(at), Ends: true, Load: map[string]string{"loop": "closed", "shard": fmt.Sprintf("%d/3", i+1)}}
		h.WriteLine(&b)
		llmmetrics.WriteJSONL(&b, recs)
		e := &llmmetrics.RunEnd{State: "completed", Written: len(recs), Planned: len(recs), Load: map[string]string{"scrape_elapsed": fmt.Sprint(i)}, Notes: []string{"note"}}
		if i == 1 {
			e.State, e.By = "interrupted", "SIGTERM"
		}
		e.WriteLine(&b)
		files = append(files, b.Bytes())
	}
	return files
}

// Files merged in bounded memory give the summary of their runs merged by
// MergeRuns and summarized in memory: the same figures, header, end line
// and completeness; check sees each file and the merged run before the
// figures, and its error stops them.
func TestSummarizeMerged(t *testing.T) {
	files := shards(t)
	var runs []*llmmetrics.Run
	var opens []bounded.Opener
	for _, f := range files {
		run, err := llmmetrics.ReadJSONL(bytes.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
		opens = append(opens, writeBytes(t, f))
	}
	merged, err := llmmetrics.MergeRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	opt := llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: 150 * time.Millisecond}}
	want, err := merged.Summarize(opt)
	if err != nil {
		t.Fatal(err)
	}
	var seen []bounded.File
	got, st, err := bounded.SummarizeMerged(opens, bounded.Options{Options: opt, Budget: 512 << 10}, func(m *llmmetrics.Run, fs []bounded.File) error {
		if !reflect.DeepEqual(m.End, merged.End) {
			t.Errorf("merged end %+v, want %+v", m.End, merged.End)
		}
		seen = fs
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d passes, %d bytes held", st.Passes, st.Held)
	same(t, got, want)
	if !reflect.DeepEqual(got.Completeness, want.Completeness) || !reflect.DeepEqual(got.Header, want.Header) || !reflect.DeepEqual(got.Notes, want.Notes) {
		t.Errorf("got %+v %+v %v\nwant %+v %+v %v", got.Completeness, got.Header, got.Notes, want.Completeness, want.Header, want.Notes)
	}
	for i, f := range seen {
		recs := runs[i].Records
		if f.Records != len(recs) || f.First != recs[0].Sent || !reflect.DeepEqual(f.Completeness, runs[i].Completeness()) || !reflect.DeepEqual(f.Run.End, runs[i].End) {
			t.Errorf("file %d: %+v", i, f)
		}
	}
	stop := errors.New("not one run")
	if _, _, err := bounded.SummarizeMerged(opens, bounded.Options{}, func(*llmmetrics.Run, []bounded.File) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("check's error: %v", err)
	}
}

// A file without a run header cannot be put on the others' clock, and a
// repeated id within a file is refused in a merge too.
func TestSummarizeMergedRefuses(t *testing.T) {
	files := shards(t)
	var b bytes.Buffer
	llmmetrics.WriteJSONL(&b, synth.Mixed(10, 2))
	_, _, err := bounded.SummarizeMerged([]bounded.Opener{writeBytes(t, files[0]), writeBytes(t, b.Bytes())}, bounded.Options{}, nil)
	if !errors.Is(err, llmmetrics.ErrMerge) {
		t.Errorf("no header: %v", err)
	}
	dup := bytes.Replace(files[2], []byte(`"id":"r17"`), []byte(`"id":"r16"`), 1)
	for _, budget := range []int{64 << 10, 0} {
		_, _, err = bounded.SummarizeMerged([]bounded.Opener{writeBytes(t, files[0]), writeBytes(t, dup)}, bounded.Options{Budget: budget}, nil)
		if !errors.Is(err, llmmetrics.ErrDuplicateID) {
			t.Errorf("budget %d: a repeated id: %v", budget, err)
		}
	}
}

// Files merged in bounded memory without send times have none, and one
// with them and one without are refused, as MergeRuns refuses them,
// saying which file has none.
func TestSummarizeMergedNoSendTimes(t *testing.T) {
	head := `{"llmmetrics_run":{"tool":"t","start":"2026-01-01T00:00:00Z"}}` + "\n"
	sent := head + `{"id":"a","sent_ns":5,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n" +
		`{"id":"b","sent_ns":9,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n"
	unsent := head + `{"id":"a","first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n"
	_, _, err := bounded.SummarizeMerged([]bounded.Opener{writeBytes(t, []byte(sent)), writeBytes(t, []byte(unsent))}, bounded.Options{}, nil)
	var se *bounded.SendTimesError
	if !errors.Is(err, llmmetrics.ErrMerge) || !errors.As(err, &se) || !slices.Equal(se.Without, []int{1}) ||
		!strings.Contains(err.Error(), "file 2 has no send times and file 1 has") {
		t.Errorf("one with send times and one without: %v", err)
	}
	got, _, err := bounded.SummarizeMerged([]bounded.Opener{writeBytes(t, []byte(unsent)), writeBytes(t, []byte(unsent))}, bounded.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Throughput != nil || !strings.Contains(got.Absent["throughput"], "no send times") {
		t.Errorf("throughput %+v (absent: %q): want none without send times", got.Throughput, got.Absent["throughput"])
	}
	got, _, err = bounded.SummarizeMerged([]bounded.Opener{writeBytes(t, []byte(sent)), writeBytes(t, []byte(sent))}, bounded.Options{}, nil)
	if err != nil || got.Throughput == nil {
		t.Errorf("both with send times: %v, %v", got.Throughput, err)
	}
}
