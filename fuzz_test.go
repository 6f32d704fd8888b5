package llmmetrics

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// readBoth reads in leniently and strictly, and checks that the two agree:
// the strict reader fails exactly when the lenient one set a row aside, at
// that row, and otherwise reads the same run. It returns the lenient run, or
// nil when the input could not be read at all.
func readBoth(t *testing.T, in []byte, read func(ReadOptions, io.Reader) (*Run, error)) *Run {
	run, err := read(ReadOptions{Lenient: true}, bytes.NewReader(in))
	strict, serr := read(ReadOptions{}, bytes.NewReader(in))
	switch {
	case run == nil:
		if err == nil || serr == nil {
			t.Fatalf("no run, lenient error %v, strict error %v", err, serr)
		}
		return nil
	case (err == nil) != (run.RejectedCount() == 0) || (err != nil && !errors.Is(err, ErrRejected)):
		t.Fatalf("lenient error %v with %d rejected rows", err, run.RejectedCount())
	case run.RejectedCount() == 0 && (serr != nil || len(strict.Records) != len(run.Records)):
		t.Fatalf("strict read disagrees: %v", serr)
	case run.RejectedCount() > 0:
		var re *RecordError
		if !errors.As(serr, &re) || re.Line != run.Rejected[0].Line {
			t.Fatalf("strict error %v, first rejected %v", serr, run.Rejected[0])
		}
	}
	return run
}

// checkRun holds for any run a reader returns: nothing is lost, and if it
// summarizes, its accounting adds up and TTFT ≤ E2E.
func checkRun(t *testing.T, run *Run, lines int) {
	if len(run.Records) != len(run.Lines) {
		t.Fatalf("%d records, %d lines", len(run.Records), len(run.Lines))
	}
	if n := len(run.Records) + len(run.Rejected); n > lines {
		t.Fatalf("%d rows from %d lines", n, lines)
	}
	s, err := run.Summarize(Options{Lenient: true, SLO: &SLO{TTFT: time.Second}})
	if err != nil {
		return // no records at all
	}
	a := s.Requests
	if a.Offered != len(run.Records)+run.RejectedCount() || a.Offered != a.OK+a.ZeroToken+a.Failed+a.Rejected+a.Warmup {
		t.Fatalf("accounting %+v", a)
	}
	if s.TTFT != nil && s.TTFT.Min > s.E2E.Max {
		t.Fatal("TTFT above E2E")
	}
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte(csvHeader + "a,1,2,10,20\n"))
	f.Add([]byte("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status,message\nx,1,,,,5,error,\"a\nb\"\n"))
	f.Add([]byte(csvHeader + "a,1,2,NaN,1e400\nb,\"1\n"))
	f.Add([]byte("\ufeff" + csvHeader + "a,-1,2,0x1p-3,1_0\n"))
	f.Add([]byte("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status,message\na,1,2,3,4,ok,\nb,1,2,3,4,error,\"connection re"))
	f.Fuzz(func(t *testing.T, in []byte) {
		run := readBoth(t, in, ReadOptions.ReadCSV)
		if run == nil {
			return
		}
		checkRun(t, run, bytes.Count(in, []byte("\n"))+1)
		// What was read writes and reads back the same.
		var b bytes.Buffer
		if err := WriteCSV(&b, run.Records); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSV(&b)
		if err != nil {
			t.Fatalf("re-reading written CSV: %v", err)
		}
		for i := range run.Records {
			want := run.Records[i]
			if !(want.Status == StatusOK && want.CompletionTokens > 0) {
				want.FirstText, want.LastText = 0, 0 // not written for rows without text
			}
			if got := back.Records[i]; got.ID != want.ID || got.FirstText != want.FirstText ||
				got.LastText != want.LastText || got.Sent != want.Sent || got.Status != want.Status ||
				got.CompletionTokens != want.CompletionTokens {
				t.Fatalf("round trip: %+v became %+v", want, got)
			}
		}
	})
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"id":"a","chunk_arrivals_ns":[1,2,3],"chunk_tokens":[1,1,1],"completion_tokens":3}`))
	f.Add([]byte("{\"id\":\"b\",\"first_text_ns\":1,\"last_text_ns\":0,\"completion_tokens\":2}\n\n{\"status\":\"timeout\"}"))
	f.Add([]byte(`{"id":"c","completion_tokens":1,"first_text_ns":NaN}` + "\n[]\n{}{}"))
	f.Add([]byte(`{"id":"a","chunk_arrivals_ns":[1,2],"completion_tokens":2}}` + "\n" + `{"ID":"b","Completion_Tokens":0}`))
	f.Add([]byte(`{"status":"error","status":"ok","completion_tokens":9223372036854775807,"sent_ns":9223372036854775807}`))
	f.Add([]byte(`{"llmmetrics_run":{"tool":"t","start":"2026-11-30T10:00:00Z","load":{"loop":"open"}}}` + "\n" +
		`{"id":"a","warmup":true,"scheduled_ns":5,"wait_ns":3,"first_answer_ns":10,"reasoning_tokens":1,"chunk_arrivals_ns":[10,20],"completion_tokens":2}`))
	f.Add([]byte(`{"id":"a","session":"s0","turn":2,"cached_prompt_tokens":40,"prompt_tokens":50,"chunk_arrivals_ns":[10],"completion_tokens":1}` + "\n" +
		`{"id":"b","session":"","turn":0,"cached_prompt_tokens":-1}` + "\n" + `{"id":"c","turn":1.5,"session":3}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		run := readBoth(t, in, ReadOptions.ReadJSONL)
		if run == nil {
			return
		}
		checkRun(t, run, bytes.Count(in, []byte("\n"))+1)
		var b bytes.Buffer
		if err := WriteJSONL(&b, run.Records); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSONL(&b)
		if err != nil {
			t.Fatalf("re-reading written JSONL: %v", err)
		}
		if len(back.Records) != len(run.Records) {
			t.Fatal("round trip lost records")
		}
		for i := range run.Records {
			a, b := run.Records[i], back.Records[i]
			if a.ID != b.ID || a.Sent != b.Sent || a.FirstText != b.FirstText || a.LastText != b.LastText ||
				!slices.Equal(a.Chunks, b.Chunks) || a.CompletionTokens != b.CompletionTokens ||
				a.Warmup != b.Warmup || !reflect.DeepEqual(a.Client, b.Client) {
				t.Fatalf("round trip: %+v became %+v", a, b)
			}
		}
	})
}

// FuzzRecord builds records from raw bytes: validation and every metric must
// never panic, and a record that validates obeys TTFT ≤ E2E and
// E2E = TTFT + Σ gaps.
func FuzzRecord(f *testing.F) {
	f.Add([]byte{0, 5, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(bytes.Repeat([]byte{0xff}, 64))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		r := Record{Status: Status(in[0] % 5), CompletionTokens: int(int8(in[1]))}
		rest := in[2:]
		for len(rest) >= 8 {
			r.Chunks = append(r.Chunks, time.Duration(int64(binary.LittleEndian.Uint64(rest))))
			rest = rest[8:]
		}
		if len(rest) > 0 && rest[0]%2 == 1 && len(r.Chunks) > 0 {
			r.FirstText, r.LastText, r.Chunks = r.Chunks[0], r.Chunks[len(r.Chunks)-1], nil
		}
		if err := r.Validate(); err != nil {
			if _, err := Summarize([]Record{r}, Options{}); err == nil {
				t.Fatal("Summarize accepted a record Validate refused")
			}
			return
		}
		s, err := Summarize([]Record{r}, Options{Method: Linear, SLO: &SLO{E2E: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Category() != CategoryOK {
			return
		}
		ttft, _ := r.TTFT()
		e2e, _ := r.E2E()
		if r.unstreamed() != (s.TTFT == nil) {
			t.Fatalf("unstreamed %v, TTFT %v", r.unstreamed(), s.TTFT)
		}
		if ttft > e2e || s.TTFT != nil && s.TTFT.Max != ttft {
			t.Fatalf("TTFT %v, E2E %v", ttft, e2e)
		}
		if gaps, err := r.AppendGaps(nil); err == nil {
			sum := ttft
			for _, g := range gaps {
				sum += g
			}
			if sum != e2e {
				t.Fatal("E2E ≠ TTFT + Σ gaps")
			}
		}
	})
}

// FuzzPercentile: parsing never panics, and any accepted percentile gives a
// value between the sample's min and max with either method.
func FuzzPercentile(f *testing.F) {
	for _, s := range []string{"50", "99.9", "p0", "100", "7", "33.333333", "1e2", "-0", "100.0000001"} {
		f.Add(s, int64(5), int64(-3), int64(1<<40))
	}
	f.Fuzz(func(t *testing.T, s string, a, b, c int64) {
		p, err := parsePercentile(s)
		if err != nil {
			return
		}
		if p.Float() < 0 || p.Float() > 100 {
			t.Fatalf("%q parsed to %v", s, p)
		}
		if q, err := parsePercentile(p.String()); err != nil || q != p {
			t.Fatalf("%q → %v does not parse back", s, p)
		}
		if !strings.HasPrefix(p.Key(), "p") {
			t.Fatal(p.Key())
		}
		xs := []time.Duration{time.Duration(a), time.Duration(b), time.Duration(c)}
		for _, m := range []Method{NearestRank, Linear} {
			v, err := percentilesOf(xs, m, p)
			if err != nil {
				t.Fatal(err)
			}
			if v[0] < slices.Min(xs) || v[0] > slices.Max(xs) {
				t.Fatalf("%v of %v = %v", p, xs, v[0])
			}
		}
	})
}

// FuzzParseStrata: bounds that parse ascend strictly.
func FuzzParseStrata(f *testing.F) {
	for _, s := range []string{"output=16,64,256", "prompt=512", "output=", "output=64,16", "x=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := parseStrata(s)
		if err != nil {
			return
		}
		for i := 1; i < len(spec.Bounds); i++ {
			if spec.Bounds[i] <= spec.Bounds[i-1] {
				t.Fatalf("%q: %v", s, spec.Bounds)
			}
		}
	})
}
