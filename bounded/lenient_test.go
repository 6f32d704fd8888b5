package bounded_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
	"github.com/llmmetrics/llmmetrics/internal/budget"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// invalid makes record r invalid in one of four ways Validate refuses.
func invalid(r *llmmetrics.Record, kind int) {
	ms := time.Millisecond
	switch kind % 4 {
	case 0: // its last text before its first
		r.Status, r.Chunks, r.FirstText, r.LastText, r.CompletionTokens = llmmetrics.StatusOK, nil, 3*ms, 2*ms, 3
	case 1: // a chunk arrival before the one before it
		r.Status, r.Chunks, r.CompletionTokens = llmmetrics.StatusOK, []time.Duration{5 * ms, 4 * ms, 9 * ms}, 3
	case 2: // tokens for three chunks of two arrivals
		r.Status, r.Chunks, r.ChunkTokens, r.CompletionTokens = llmmetrics.StatusOK, []time.Duration{5 * ms, 6 * ms}, []int32{1, 1, 1}, 3
	case 3: // a failed request with a negative prompt count
		r.Status, r.Message, r.Chunks, r.PromptTokens = llmmetrics.StatusError, "HTTP 500", nil, -1
	}
}

// lenientCase is a run's file with rows and records a lenient summary
// sets aside.
type lenientCase struct {
	name string
	edit func(recs []llmmetrics.Record)
	rows map[int]string // lines put before record k, which the reader sets aside
	// header and end lines around the records, when set
	framed bool
	// cut, when set, cuts the file inside its last line
	cut bool
}

var lenientCases = []lenientCase{
	{name: "invalid records", edit: func(recs []llmmetrics.Record) {
		for k, i := range []int{3, 700, 9_000, 19_999} {
			invalid(&recs[i], k)
		}
	}},
	{name: "rows that cannot be parsed", rows: map[int]string{0: "{not json", 5_000: `{"id":"q","sent_ns":"soon"}`, 14_000: `[1,2]`}},
	{name: "repeated ids", edit: func(recs []llmmetrics.Record) {
		recs[12_000].ID = recs[10].ID                               // the first is kept
		recs[15_000].ID, recs[18_000].ID = recs[20].ID, recs[20].ID // three times
		recs[3].ID, recs[4].ID = recs[2].ID, recs[2].ID             // next to each other
		recs[40].ID, recs[41].ID = "", ""                           // empty ids never repeat
	}},
	{name: "a repeated id whose first is invalid", edit: func(recs []llmmetrics.Record) {
		invalid(&recs[30], 0)
		recs[9_000].ID, recs[16_000].ID = recs[30].ID, recs[30].ID // the second is kept, the third repeats it
		invalid(&recs[17_000], 1)
		recs[17_000].ID = recs[50].ID // invalid, not a repeat
	}},
	{name: "more than MaxReasons", framed: true, edit: func(recs []llmmetrics.Record) {
		for i := 0; i < 1_600; i++ {
			invalid(&recs[5+i*11], i)
		}
		for i := 0; i < 300; i++ {
			recs[19_000+i].ID = recs[100+i].ID
		}
	}, rows: map[int]string{100: "{", 10_000: "{", 19_500: "}"}},
	{name: "cut inside its last line", framed: true, cut: true, rows: map[int]string{7: "{", 19_000: "{"}, edit: func(recs []llmmetrics.Record) {
		invalid(&recs[9], 0)
	}},
	{name: "all set aside", edit: func(recs []llmmetrics.Record) {
		for i := range recs {
			invalid(&recs[i], i)
		}
	}},
}

// file returns the case's JSONL of 20,000 records of synth.Mixed's, and
// its rows set aside.
func (c lenientCase) file(t *testing.T) []byte {
	recs := synth.Mixed(20_000, 4)
	if c.edit != nil {
		c.edit(recs)
	}
	var b bytes.Buffer
	if c.framed {
		h := &llmmetrics.RunHeader{Tool: "test", Start: time.Unix(1e9, 0).UTC(), Ends: true}
		h.WriteLine(&b)
	}
	for i := range recs {
		if row, ok := c.rows[i]; ok {
			b.WriteString(row + "\n")
		}
		if err := llmmetrics.WriteJSONL(&b, recs[i:i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if c.framed {
		e := &llmmetrics.RunEnd{State: "completed", Written: len(recs) + len(c.rows), Planned: len(recs) + len(c.rows)}
		e.WriteLine(&b)
	}
	if c.cut {
		return b.Bytes()[:b.Len()-20]
	}
	return b.Bytes()
}

// With Lenient, the rows that cannot be parsed, the invalid records and
// those that repeat an earlier valid record's id are set aside, counted
// and listed (the first MaxReasons) as Run.Summarize sets them aside in
// memory, with the same figures of the rest and the same failed records
// shown, in a budget whose ids take passes of their own and in the
// default one.
func TestSummarizeLenient(t *testing.T) {
	slo := &llmmetrics.SLO{TTFT: 150 * time.Millisecond, TPOT: 30 * time.Millisecond}
	for _, c := range lenientCases {
		file := c.file(t)
		for _, m := range raceFewer([]llmmetrics.Method{llmmetrics.NearestRank, llmmetrics.Linear}) {
			opt := llmmetrics.Options{Method: m, SLO: slo, Lenient: true}
			var wantFailed []string
			want, _, err := llmmetrics.ReadOptions{Lenient: true}.SummarizeFailed(bytes.NewReader(file), opt, func(r llmmetrics.Record) { wantFailed = append(wantFailed, r.ID) })
			if err != nil {
				t.Fatalf("%s: in memory: %v", c.name, err)
			}
			if c.name != "all set aside" && want.Requests.Rejected == 0 || c.cut && (want.Completeness == nil || want.Completeness.Cut == nil) {
				t.Fatalf("%s: nothing set aside, or no cut: %+v", c.name, want.Completeness)
			}
			for _, budget := range raceFewer([]int{32 << 10, 0}) {
				var failed []string
				b := bounded.Options{Options: opt, Budget: budget, Failed: func(r llmmetrics.Record) { failed = append(failed, r.ID) }}
				got, st, err := bounded.Summarize(writeBytes(t, file), b)
				if err != nil {
					t.Fatalf("%s, budget %d: %v", c.name, budget, err)
				}
				t.Logf("%s, %v, budget %d: %d rejected; %d passes, %d bytes held", c.name, m, budget, got.Requests.Rejected, st.Passes, st.Held)
				t.Run(fmt.Sprintf("%s/%v/%d", c.name, m, budget), func(t *testing.T) { sameLenient(t, got, want) })
				if !reflect.DeepEqual(failed, wantFailed) {
					t.Errorf("%s: %d failed records shown, want %d", c.name, len(failed), len(wantFailed))
				}
			}
		}
	}
}

// sameLenient is same, and the completeness of both and the records set
// aside listed are the same too.
func sameLenient(t *testing.T, got, want *llmmetrics.Summary) {
	same(t, got, want)
	if !reflect.DeepEqual(got.Completeness, want.Completeness) {
		t.Errorf("completeness %+v, want %+v", got.Completeness, want.Completeness)
	}
	if len(got.Rejected) != len(want.Rejected) {
		t.Fatalf("%d listed, want %d", len(got.Rejected), len(want.Rejected))
	}
	for i, e := range got.Rejected {
		if w := want.Rejected[i]; e.Error() != w.Error() || e.Index != w.Index || e.Line != w.Line || e.ID != w.ID || e.Field != w.Field {
			t.Errorf("set aside %d: %v, want %v", i, e, w)
		}
	}
}

// A CSV file read leniently a batch at a time, with the header row before
// each, sets aside the rows and records Run.Summarize sets aside, on
// their lines in the file.
func TestSummarizeLenientCSV(t *testing.T) {
	recs := synth.Mixed(30_000, 4)
	for i := 100; i < len(recs); i += 2_000 {
		invalid(&recs[i], i/2_000)
	}
	recs[25_000].ID = recs[5].ID
	var b bytes.Buffer
	if err := llmmetrics.WriteCSV(&b, recs); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b.Bytes(), []byte("\n"))
	for _, at := range []int{20_000, 9_000, 3} { // rows of one field too few
		row := lines[at][:bytes.LastIndexByte(lines[at], ',')]
		lines[at] = append(row[:len(row):len(row)], '\n')
	}
	file := bytes.Join(lines, nil)
	opt := llmmetrics.Options{Lenient: true}
	want, _, err := llmmetrics.ReadOptions{Lenient: true}.Summarize(bytes.NewReader(file), opt)
	if err != nil || want.Requests.Rejected < 10 {
		t.Fatalf("in memory: %v, %d set aside: %v", err, want.Requests.Rejected, want.Rejected)
	}
	got, _, err := bounded.Summarize(writeBytes(t, file), bounded.Options{Options: opt, Budget: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	sameLenient(t, got, want)
}

// Files merged leniently set aside what MergeRuns and Run.Summarize set
// aside of the runs read leniently, their ids prefixed with the file's
// position.
func TestSummarizeMergedLenient(t *testing.T) {
	if budget.Race {
		t.Skip("the race detector: three shards of 30,000 records read in many passes take minutes")
	}
	files := shards(t)
	files[1] = bytes.Replace(files[1], []byte(`"id":"r17"`), []byte(`"id":"r16"`), 1)
	files[2] = bytes.Replace(files[2], []byte("\n{\"id\":\"r30\""), []byte("\n{oops\n{\"id\":\"r30\""), 1)
	files[2] = bytes.Replace(files[2], []byte(`"prompt_tokens":`), []byte(`"prompt_tokens":-`), 3)
	var runs []*llmmetrics.Run
	var opens []bounded.Opener
	for _, f := range files {
		run, _ := llmmetrics.ReadOptions{Lenient: true}.ReadJSONL(bytes.NewReader(f))
		runs = append(runs, run)
		opens = append(opens, writeBytes(t, f))
	}
	merged, err := llmmetrics.MergeRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	opt := llmmetrics.Options{Lenient: true}
	want, err := merged.Summarize(opt)
	if err != nil || want.Requests.Rejected != 5 {
		t.Fatalf("in memory: %v, %d set aside", err, want.Requests.Rejected)
	}
	got, _, err := bounded.SummarizeMerged(opens, bounded.Options{Options: opt, Budget: 64 << 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameLenient(t, got, want)
}
