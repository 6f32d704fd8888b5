package llmmetrics

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/table"
)

// randomRow returns a record a table can hold: any status, times and
// counts, sometimes a message, sometimes a count beyond int32.
func randomRow(rng *rand.Rand, i int) Record {
	r := Record{
		ID:     fmt.Sprint("r", i),
		Status: Status(rng.IntN(len(statusNames))),
		Sent:   time.Duration(rng.Int64N(1 << 40)), FirstText: time.Duration(rng.Int64N(1 << 33)),
		LastText:     time.Duration(rng.Int64N(1 << 34)),
		PromptTokens: rng.IntN(5000), CompletionTokens: rng.IntN(300),
	}
	switch rng.IntN(10) {
	case 0:
		r.Message = fmt.Sprint("failed, ", i)
	case 1:
		r.PromptTokens = math.MaxInt32 + 1 + rng.IntN(10)
	case 2:
		r.CompletionTokens = -math.MaxInt32 - 2
	case 3:
		r.ID = ""
	}
	return r
}

// A table gives back every row as the Record it was made from, on the
// line it was added with, whether the rows came in blocks or one at a
// time, and across the edges of blocks and windows; a table without send
// times, rows sent at 0 (as a CSV file without sent_ms gives them).
func TestTableRecords(t *testing.T) {
	for _, sends := range []bool{true, false} {
		t.Run(fmt.Sprint("sends=", sends), func(t *testing.T) { testTableRecords(t, sends) })
	}
}

func testTableRecords(t *testing.T, sends bool) {
	rng := rand.New(rand.NewPCG(8, 9))
	var want []Record
	var lines []int
	tab := &table.Table{NoSends: !sends}
	line := 2
	for len(want) < 5000 {
		// A block of up to 700 rows, or a few rows one at a time.
		n := rng.IntN(700)
		var b *table.Block
		if rng.IntN(3) > 0 {
			b = table.NewBlock(n, sends)
		}
		for range n {
			line += 1 + rng.IntN(2)*rng.IntN(5) // blank or rejected lines between some rows
			r := randomRow(rng, len(want))
			if !sends {
				r.Sent = 0
			}
			if b != nil {
				addToTable(b, &r, line)
			} else {
				addToTable(tab.Tail(r.ID), &r, line)
			}
			want, lines = append(want, r), append(lines, line)
		}
		if b != nil {
			tab.Add(b)
		}
	}
	tab.Flush()
	if tab.Len() != len(want) {
		t.Fatalf("%d rows, want %d", tab.Len(), len(want))
	}
	src := &source{tab: tab}
	for i := range want {
		got := make([]Record, 1) // row i alone, as a window of one
		if decodeRows(tab, i, got, withIDs); !reflect.DeepEqual(got[0], want[i]) {
			t.Fatalf("row %d: %+v, want %+v", i, got[0], want[i])
		}
		if tab.ID(i) != want[i].ID || tab.Line(i) != lines[i] {
			t.Fatalf("row %d: id %q line %d, want %q %d", i, tab.ID(i), tab.Line(i), want[i].ID, lines[i])
		}
	}
	for _, ids := range []bool{withIDs, noIDs} {
		for _, span := range [][2]int{{0, len(want)}, {1, 2}, {511, 1537}, {len(want) - 3, len(want)}, {7, 7}} {
			i := span[0]
			for base, w := range src.windows(span[0], span[1], ids) {
				if base != i {
					t.Fatalf("window at %d, want %d", base, i)
				}
				for k := range w {
					r := want[i]
					if !ids {
						r.ID, r.Message = "", ""
					}
					if !reflect.DeepEqual(w[k], r) {
						t.Fatalf("windows %v (ids %v), row %d: %+v, want %+v", span, ids, i, w[k], r)
					}
					i++
				}
			}
			if i != span[1] {
				t.Fatalf("windows %v ended at %d", span, i)
			}
		}
	}
	all := src.asSlice()
	if !reflect.DeepEqual(all.recs, want) || !reflect.DeepEqual(all.lines, lines) {
		t.Fatal("asSlice differs from the rows added")
	}
}

// summarizeBoth summarizes in a CSV or JSONL file both ways: read into
// Records then Run.Summarize, and ReadOptions.Summarize, which keeps a
// CSV file's rows in a table. It fails unless they give the same summary,
// or the same error.
func summarizeBoth(t *testing.T, in []byte, lenient bool, opt Options) {
	t.Helper()
	ro := ReadOptions{Lenient: lenient}
	want, wantErr := func() (*Summary, error) {
		run, _, err := ro.Read(bytes.NewReader(in))
		if err != nil && !(lenient && errors.Is(err, ErrRejected)) {
			return nil, err
		}
		return run.Summarize(opt)
	}()
	check := func(from string, got *Summary, gotErr error) {
		t.Helper()
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("from %s, lenient %v, %+v: error %v, want %v", from, lenient, opt, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("from %s, lenient %v, %+v: summaries differ:\n%+v\n%+v", from, lenient, opt, got, want)
		}
	}
	got, _, err := ro.Summarize(bytes.NewReader(in), opt)
	check("memory", got, err)
	// From a file, whose lines are counted first, every block's rows go
	// into windows of columns made for the whole file (see newTableRows).
	got, _, err = ro.Summarize(inFile(t)(bytes.NewReader(in)), opt)
	check("a file", got, err)
}

// summaryOptions are options that reach every part of Summarize.
func summaryOptions() []Options {
	slo := &SLO{TTFT: 120 * time.Millisecond, TPOT: 25 * time.Millisecond, E2E: 3 * time.Second}
	return []Options{
		{},
		{SLO: slo, Method: Linear, Percentiles: []Percentile{MustPercentile(50), MustPercentile(99.9)}},
		{Window: 30 * time.Second, SLO: &SLO{MaxGap: time.Second}},
		{Warmup: &WarmupSpec{Requests: 5}},
		{Stratify: &StrataSpec{By: "output", Bounds: []int{2, 64}}},
		{Lenient: true, SLO: slo},
	}
}

// mostlyOKCSV writes n rows of which about one in a hundred is not ok:
// failed, zero-token, invalid or blank, with ids repeated as often. Each
// id is prefix and the row's number.
func mostlyOKCSV(rng *rand.Rand, n int, prefix string) []byte {
	var b strings.Builder
	b.WriteString("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status\n")
	for i := range n {
		id := fmt.Sprint(prefix, i)
		ttft := 20 + rng.Float64()*200
		e2e := ttft + rng.Float64()*3000
		sent := float64(i)*5 + rng.Float64()
		switch rng.IntN(500) {
		case 0:
			fmt.Fprintf(&b, "%s,12,,,,%.3f,error\n", id, sent)
		case 1:
			fmt.Fprintf(&b, "%s,12,0,,,%.3f,ok\n", id, sent)
		case 2:
			fmt.Fprintf(&b, "%s,12,5,%.3f,%.3f,%.3f,ok\n", id, e2e, ttft, sent) // E2E before TTFT: invalid
		case 3:
			b.WriteString("\n")
		case 4:
			fmt.Fprintf(&b, "%s%d,12,5,%.3f,%.3f,%.3f,ok\n", prefix, rng.IntN(i+1), ttft, e2e, sent) // repeated
		default:
			fmt.Fprintf(&b, "%s,%d,%d,%.6f,%.3f,%.3f,ok\n", id, rng.IntN(4000), 1+rng.IntN(300), ttft, e2e, sent)
		}
	}
	return []byte(b.String())
}

// randomCSV writes n rows of every kind: ok, failed and zero-token rows,
// messages with commas and with newlines (quoted: the latter stop the
// parallel reader), repeated ids, blank lines, invalid rows, and with
// unparsable set rows that cannot be parsed (which the reader rejects, and
// which come first among a summary's reasons).
func randomCSV(rng *rand.Rand, n int, unparsable bool) []byte {
	var b strings.Builder
	b.WriteString("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status,message\n")
	for i := range n {
		id := fmt.Sprint("q", i)
		if rng.IntN(50) == 0 {
			id = fmt.Sprint("q", rng.IntN(i+1)) // repeated
		}
		ttft := 20 + rng.Float64()*200
		e2e := ttft + rng.Float64()*3000
		sent := float64(i)*5 + rng.Float64()
		switch k := rng.IntN(40); {
		case k == 0:
			fmt.Fprintf(&b, "%s,12,,,,%.3f,error,\"timed out, twice\"\n", id, sent)
		case k == 1 && rng.IntN(20) == 0:
			fmt.Fprintf(&b, "%s,12,,,,%.3f,error,\"line one\nline two\"\n", id, sent)
		case k == 2:
			fmt.Fprintf(&b, "%s,12,0,,,%.3f,ok,\n", id, sent)
		case k == 3 && unparsable:
			fmt.Fprintf(&b, "%s,12,5,abc,1,%.3f,ok,\n", id, sent)
		case k == 4:
			fmt.Fprintf(&b, "%s,12,5,%.3f,%.3f,%.3f,ok,\n", id, e2e, ttft, sent) // E2E before TTFT: invalid
		case k == 5:
			b.WriteString("\n")
		case k == 6 && unparsable:
			fmt.Fprintf(&b, "%s,99999999999,5,%.3f,%.3f,%.3f,ok,\n", id, ttft, e2e, sent) // beyond MaxCount
		case k == 7:
			fmt.Fprintf(&b, "%s,12,1,%.3f,%.3f,%.3f,timeout,late\n", id, ttft, e2e, sent)
		default:
			fmt.Fprintf(&b, "%s,%d,%d,%.6f,%.3f,%.3f,ok,\n", id, rng.IntN(4000), 1+rng.IntN(300), ttft, e2e, sent)
		}
	}
	return []byte(b.String())
}

// Summarizing a CSV file through a table gives exactly what summarizing
// its Records gives, errors included: on the project's CSV files and on
// random files small and large (several blocks, read on every core), in
// strict and lenient reading, with options that reach every part of the
// summary.
func TestSummarizeTableMatches(t *testing.T) {
	var inputs [][]byte
	files, _ := filepath.Glob("testdata/seeds/*.csv")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	for _, n := range []int{0, 1, 2, 30, 300, 40_000} {
		inputs = append(inputs, randomCSV(rng, n, true), randomCSV(rng, n, false))
	}
	// Without a quoted field that goes on past its line, every block of a
	// large file is read in parallel (and, from a file, into a window).
	for _, unparsable := range []bool{true, false} {
		in := randomCSV(rng, 40_000, unparsable)
		inputs = append(inputs, bytes.ReplaceAll(in, []byte("line one\nline two"), []byte("line one")))
	}
	// Mostly ok rows, in long runs: their TTFTs, E2Es and sends are read
	// in the table's columns (see table.OKColumns). Shuffled, the sends
	// are out of order, so the requests are swept a span of time at a
	// time (inflight.SweepSpans) rather than a window of rows at a time.
	// With ids of 40 bytes, every block's ids outgrow the room a window
	// has for them (see idRoom).
	in := mostlyOKCSV(rng, 40_000, "m")
	rows := bytes.SplitAfter(in, []byte("\n"))
	rng.Shuffle(len(rows)-2, func(i, j int) { rows[i+1], rows[j+1] = rows[j+1], rows[i+1] }) // the header and the empty tail stay
	inputs = append(inputs, in, bytes.Join(rows, nil), mostlyOKCSV(rng, 20_000, "request-0123456789abcdef-0123456789-"))
	// Without sent_ms, the table keeps no send times (table.Block.SentOf).
	inputs = append(inputs, withoutSent(t, in), withoutSent(t, randomCSV(rng, 40_000, true)), withoutSent(t, randomCSV(rng, 300, false)))
	inputs = append(inputs, []byte("{\"id\":\"a\",\"completion_tokens\":2,\"first_text_ns\":5,\"last_text_ns\":9}\n"))
	for _, in := range inputs {
		for _, lenient := range []bool{false, true} {
			for _, opt := range summaryOptions() {
				summarizeBoth(t, in, lenient, opt)
			}
		}
	}
}

// withoutSent returns a CSV file without its sent_ms column (and without
// its blank lines, which encoding/csv skips).
func withoutSent(t *testing.T, in []byte) []byte {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(in)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "sent_ms")
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for _, row := range rows {
		if err := w.Write(slices.Delete(row, col, col+1)); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	return b.Bytes()
}

func FuzzSummarizeTable(f *testing.F) {
	f.Add(randomCSV(rand.New(rand.NewPCG(1, 1)), 40, true), true)
	f.Add([]byte(csvHeader+"a,1,2,10,20\na,1,2,10,20\n"), false)
	f.Fuzz(func(t *testing.T, in []byte, lenient bool) {
		summarizeBoth(t, in, lenient, Options{SLO: &SLO{TTFT: time.Second}})
	})
}

// BenchmarkReadTable reads 200,000 plain CSV rows (no quotes, as a load
// generator writes them) from memory into a table, as ReadOptions.Summarize
// does.
func BenchmarkReadTable(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	var sb strings.Builder
	sb.WriteString("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status\n")
	for i := range 200_000 {
		ttft := 20 + rng.Float64()*200
		fmt.Fprintf(&sb, "r%d,%d,%d,%.3f,%.3f,%.3f,ok\n", i, rng.IntN(4000), 1+rng.IntN(300), ttft, ttft+rng.Float64()*3000, float64(i)*5)
	}
	in := []byte(sb.String())
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		run, _, err := ReadOptions{table: true}.Read(bytes.NewReader(in))
		if err != nil || run.tab.Len() != 200_000 {
			b.Fatal(err)
		}
	}
}
