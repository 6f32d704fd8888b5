package parquet

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
	"github.com/llmmetrics/llmmetrics/internal/budget"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// sourceRun is a run of n requests of k chunks with a header, an end line
// whose load facts the reader adds to the header's, a cut and a window,
// and records the samples leave out.
func sourceRun(n, k int) *llmmetrics.Run {
	recs := synth.Mixed(n, k)
	for i := 0; i < len(recs); i += 101 {
		recs[i].Warmup = true
	}
	return &llmmetrics.Run{
		Header:  &llmmetrics.RunHeader{Tool: "llmmetrics", Model: "m", Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Load: map[string]string{"rate": "10"}},
		End:     &llmmetrics.RunEnd{State: "completed", Written: n, Planned: n, Load: map[string]string{"late": "0"}},
		Records: recs,
	}
}

// The bounded summary of a Parquet file read by a Source, in a budget
// that takes passes of refinement, is the summary of the file read whole
// by Read, figure for figure: the header with the end line's load facts,
// the completeness, the percentiles and the names at them.
func TestSourceEqualsRead(t *testing.T) {
	data := encode(t, sourceRun(30_000, 16))
	whole, err := decode(data)
	if err != nil {
		t.Fatal(err)
	}
	opt := llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: 150 * time.Millisecond, E2E: 3 * time.Second}}
	want, err := whole.Summarize(opt)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := bounded.SummarizeSources([]bounded.Source{src}, bounded.Options{Options: opt, Budget: 256 << 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Passes < 3 {
		t.Errorf("%d passes: the budget took no refinement", st.Passes)
	}
	sameFigures(t, got, want)
}

// sameFigures fails unless got's JSON has want's keys and values, but for
// the sections got says it did not compute.
func sameFigures(t *testing.T, got, want *llmmetrics.Summary) {
	t.Helper()
	var g, w map[string]any
	for _, c := range []struct {
		s *llmmetrics.Summary
		m *map[string]any
	}{{got, &g}, {want, &w}} {
		b, err := json.Marshal(c.s)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, c.m); err != nil {
			t.Fatal(err)
		}
	}
	for k, wv := range w {
		if k == "absent" || got.Absent[k] == bounded.NotComputed {
			continue
		}
		if !reflect.DeepEqual(g[k], wv) {
			t.Errorf("%s:\n got %v\nwant %v", k, g[k], wv)
		}
	}
}

// An invalid row is the error Read gives, naming the row and column, and
// a damaged file is refused before any pass.
func TestSourceRefuses(t *testing.T) {
	run := &llmmetrics.Run{Records: synth.Mixed(5000, 4)}
	data := encode(t, run)
	bad := bytes.Replace(data, []byte("PAR1"), []byte("PAR2"), 1)
	if _, err := NewSource(bytes.NewReader(bad), int64(len(bad))); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a damaged file: %v", err)
	}
	src, err := NewSource(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]row, 5000)
	for i := range rows {
		rows[i] = okRow(strconv.Itoa(i))
	}
	rows[4500].ChunkArrivalsNS = []int64{-5, 150e6, 200e6}
	raw := rawFile(t, rows)
	_, want := decode(raw)
	bsrc, err := NewSource(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = bounded.SummarizeSources([]bounded.Source{bsrc}, bounded.Options{}, nil)
	var re *llmmetrics.RecordError
	if want == nil || !errors.As(err, &re) || err.Error() != want.Error() || re.Index != 4500 {
		t.Errorf("an invalid row: %v, want %v", err, want)
	}
	stop := errors.New("stop")
	n := 0
	err = src.Pass(func(b *llmmetrics.Run) error {
		if n += len(b.Records); n > 4096 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 4096+904 {
		t.Errorf("fn's error: %v after %d records", err, n)
	}
}

// A Source holds a batch of rows and a row group's pages, never the
// file's rows: 3·10⁵ requests of 16 chunks (a file of 23 MB, some 200 MB
// read whole) are summarized in a budget of 4 MiB with a heap peak under
// 4 MiB and 24 MiB for a batch and the reader's pages of 1 MiB: 17.1–17.2
// MB alone, 21.4 MB once among the other packages' tests, where the
// collector's cycles end later (16 MiB failed there); 14 MB with pages of
// 256 KiB.
func TestSourceBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 10⁶ records several times")
	}
	run := sourceRun(300_000, 16)
	run.Header.Load["late"] = "0" // as the reader adds the end line's
	opt := llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: 150 * time.Millisecond, E2E: 3 * time.Second}}
	want, err := run.Summarize(opt)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.parquet")
	writeFile(t, path, run)
	run = nil
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	var got *llmmetrics.Summary
	var cost bounded.Stats
	m := budget.Measure(func() {
		src, serr := NewSource(f, st.Size())
		if err = serr; err == nil {
			got, cost, err = bounded.SummarizeSources([]bounded.Source{src}, bounded.Options{Options: opt, Budget: 4 << 20}, nil)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes of Parquet: %v; %d passes, %d bytes held", st.Size(), m, cost.Passes, cost.Held)
	if m.Peak > 4<<20+24<<20 {
		t.Errorf("peak %d bytes", m.Peak)
	}
	sameFigures(t, got, want)
}

// writeFile writes run as Parquet to path.
func writeFile(t *testing.T, path string, run *llmmetrics.Run) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, run); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
