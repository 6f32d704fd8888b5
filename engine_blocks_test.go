package llmmetrics

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/linecount"
)

// inFile returns a wrapper that writes what the reader holds to a file and
// returns the file, open at its start: a regular file, whose lines the
// readers count to write the records in place.
func inFile(t *testing.T) func(io.Reader) io.Reader {
	return func(r io.Reader) io.Reader {
		path := filepath.Join(t.TempDir(), "in")
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		want := bytes.Count(b, []byte{'\n'}) + 1
		if want*linecount.MinLineBytes > len(b) {
			want = -1 // too short on average to make room for
		}
		wantCommas := bytes.Count(b, []byte{','})
		if want < 0 {
			wantCommas = -1
		}
		if lines, commas := linecount.File(f, maxLine); lines != want || commas != wantCommas {
			t.Fatalf("linecount.File: %d lines, %d commas; want %d, %d", lines, commas, want, wantCommas)
		}
		return f
	}
}

// A file of blank lines is not given a slot a line.
func TestCountLinesShort(t *testing.T) {
	f := inFile(t)(strings.NewReader(strings.Repeat("\n", 100_000)))
	if n, _ := linecount.File(f, maxLine); n != -1 {
		t.Fatalf("linecount.File of 100,000 blank lines = %d, want -1", n)
	}
	run, err := ReadJSONL(f)
	if err != nil || len(run.Records) != 0 || cap(run.Records) > 0 {
		t.Fatalf("%v, %d records, room for %d", err, len(run.Records), cap(run.Records))
	}
}

// JSONL read from a file, whose records are written in their slots, gives
// the run read from a stream: with a run header, blank lines and lines set
// aside, over many blocks, strictly and leniently.
func TestJSONLFromFile(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"llmmetrics_run":{"tool":"t"}}` + "\n")
	for i := range 30000 {
		switch {
		case i%701 == 0:
			b.WriteString("\n  \n")
		case i%1503 == 0:
			fmt.Fprintf(&b, `{"id":"r%d","completion_tokens":2,"chunk_arrivals_ns":[5,"x"]}`+"\n", i)
		default:
			fmt.Fprintf(&b, `{"id":"r%d","sent_ns":%d,"chunk_arrivals_ns":[%d,%d,%d],"completion_tokens":3}`+"\n", i, i*1000, 100+i%50, 200+i%70, 300+i%90)
		}
	}
	in := []byte(b.String())
	for _, o := range []ReadOptions{{}, {Lenient: true}} {
		ref, rerr := o.ReadJSONL(bytes.NewReader(in))
		got, gerr := o.ReadJSONL(inFile(t)(bytes.NewReader(in)))
		if fmt.Sprint(gerr) != fmt.Sprint(rerr) || (ref == nil) != (got == nil) {
			t.Fatalf("lenient %v: from a file %v, from a stream %v", o.Lenient, gerr, rerr)
		}
		if ref == nil {
			continue
		}
		if !reflect.DeepEqual(got.Records, ref.Records) || !slices.Equal(got.Lines, ref.Lines) ||
			!reflect.DeepEqual(got.Header, ref.Header) || fmt.Sprint(got.Rejected) != fmt.Sprint(ref.Rejected) {
			t.Fatalf("lenient %v: a file read gives %d records, a stream %d", o.Lenient, len(got.Records), len(ref.Records))
		}
		if o.Lenient && (got.RejectedCount() == 0 || got.Header == nil || len(got.Records) < 29000) {
			t.Fatalf("the input does not exercise what it should: %d records, %d set aside", len(got.Records), got.RejectedCount())
		}
	}
}

// Chunk arrivals of every length, read eight digits at a time where they
// can be, give what strconv gives, and numbers out of range or with a
// leading zero are refused, with or without space around them.
func TestArrivalDigits(t *testing.T) {
	for n := 1; n <= 21; n++ {
		for _, lead := range []byte{'1', '2', '9', '0'} {
			num := string(lead) + strings.Repeat("7", n-1)
			for _, form := range []string{"[%s,%s]", "[%s , %s ]", "[ %s,%s]"} {
				line := fmt.Sprintf(`{"id":"a","chunk_arrivals_ns":`+form+`,"completion_tokens":2}`, num, num)
				run, err := ReadJSONL(strings.NewReader(line))
				v, perr := strconv.ParseInt(num, 10, 64)
				ok := perr == nil && v <= maxTime && (lead != '0' || n == 1)
				if ok != (err == nil) {
					t.Fatalf("%s: error %v", line, err)
				}
				if ok && (run.Records[0].Chunks[0] != time.Duration(v) || run.Records[0].Chunks[1] != time.Duration(v)) {
					t.Fatalf("%s: arrivals %v, want %d", line, run.Records[0].Chunks, v)
				}
			}
		}
	}
}
