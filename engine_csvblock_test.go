package llmmetrics

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/llmmetrics/llmmetrics/internal/csvline"
)

// The rows before the first double quote are split on all cores and
// parsed in place; the reference is encoding/csv reading every row, which
// readQuotedCSV does. The two must agree on everything: records, lines,
// rows set aside and the errors' text.
func sameAsEncodingCSV(t *testing.T, in []byte, wrap func(io.Reader) io.Reader) {
	t.Helper()
	for _, o := range []ReadOptions{{}, {Lenient: true}} {
		fast, ferr := o.ReadCSV(wrap(bytes.NewReader(in)))
		ref, rerr := o.readQuotedCSV(bytes.NewReader(in))
		if fmt.Sprint(ferr) != fmt.Sprint(rerr) {
			t.Fatalf("lenient %v: error %v, encoding/csv %v", o.Lenient, ferr, rerr)
		}
		if (fast == nil) != (ref == nil) {
			t.Fatalf("lenient %v: run %v, encoding/csv run %v", o.Lenient, fast != nil, ref != nil)
		}
		if fast == nil {
			continue
		}
		if len(fast.Records) != len(ref.Records) || !slices.Equal(fast.Lines, ref.Lines) {
			t.Fatalf("lenient %v: %d records at lines %v, encoding/csv %d at %v", o.Lenient, len(fast.Records), fast.Lines, len(ref.Records), ref.Lines)
		}
		for i := range fast.Records {
			if !reflect.DeepEqual(fast.Records[i], ref.Records[i]) {
				t.Fatalf("record %d: %+v, encoding/csv %+v", i, fast.Records[i], ref.Records[i])
			}
		}
		if fmt.Sprint(fast.Rejected) != fmt.Sprint(ref.Rejected) || fast.Unlisted != ref.Unlisted {
			t.Fatalf("set aside %v, encoding/csv %v", fast.Rejected, ref.Rejected)
		}
		if !reflect.DeepEqual(fast.Cut, ref.Cut) {
			t.Fatalf("lenient %v: cut %+v, encoding/csv %+v", o.Lenient, fast.Cut, ref.Cut)
		}
	}
}

func same(r io.Reader) io.Reader { return r }

func FuzzCSVSplit(f *testing.F) {
	f.Add([]byte(csvHeader + "a,1,2,10,20\n\nb,1,2,10.5,20.25\r\n"))
	f.Add([]byte("\r\n\n" + csvHeader + "a,1,2,10,20\nb,1,2\nc,1,2,3,4,5\n"))
	f.Add([]byte("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status,message\nx,1,,,,5,error,\"a\nb\"\ny,1,2,3,4,5,ok,\n"))
	f.Add([]byte(csvHeader + "a,+1,-2,-0.5,.5\nb,1,2,1e3,5.\nc,0001,2,1234567890123456,99999999999999999999\r"))
	f.Add([]byte(csvHeader + "a,1,2,3,4\nb\"c,1,2,3,4\n"))
	f.Add([]byte(csvHeader + "\"a\",1,2,3,4\n\"b\"x,1,2,3,4\nc\"\",1,2,3,4\n\"d\"\"\",1,2,3,4\r\n\"e,1,2,3,4\n"))
	f.Add([]byte("\ufeff" + csvHeader + "a,1,2,3,4\n\ufeffb,1,2,3,4"))
	f.Add([]byte("\"request_id\",prompt_tokens,\"completion_tokens\",TTFT_ms,E2E_ms\na,1,2,3,4\n"))
	f.Add([]byte("\"request_id\n\",prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,1,2,3,4\n"))
	f.Add([]byte("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\na,,,,,timeout\nb,x,,,,error\nc,1,0,,,ok\nd,1,1,,,ok\n"))
	f.Add([]byte("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status,message\na,1,2,3,4,ok,\nb,1,2,3,4,error,\"conn\r"))
	f.Add([]byte(csvHeader + "a,1,2,3,4\n\"b\",1,2,3,"))
	f.Add([]byte(csvHeader + "a,1,2,3,4\nb,x,2"))
	f.Fuzz(func(t *testing.T, in []byte) {
		sameAsEncodingCSV(t, in, same)
	})
}

// A run larger than a block, with blank lines, CRLF rows, bad rows, quoted
// fields on one line (good and bad) and, past the middle, a quoted message
// holding a newline, read in blocks and from a reader that returns one byte
// at a time.
func TestCSVSplitLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status,message\n")
	const rows = 40000
	for i := range rows {
		switch {
		case i%997 == 0:
			b.WriteString("\n")
		case i%1999 == 0:
			fmt.Fprintf(&b, "r%d,1,2,3,4\n", i) // too few fields
		case i%3001 == 0:
			fmt.Fprintf(&b, "r%d,1,2,x,4,5,ok,\n", i)
		case i%1013 == 0:
			fmt.Fprintf(&b, "r%d,5,0,,,%d.5,error,bad gateway\r\n", i, i)
		case i%907 == 0: // quoted on one line: taken on every core
			fmt.Fprintf(&b, "\"r%d\",5,0,,,%d,error,\"bad, \"\"gateway\"\"\"\n", i, i)
		case i%2003 == 0: // quotes out of place, an even number: errors
			fmt.Fprintf(&b, "r%d\"x\",5,0,,,%d,error,\"a\"b\n", i, i)
		case i == rows*3/4:
			fmt.Fprintf(&b, "r%d,5,0,,,%d,error,\"line one\nline \"\"two\"\"\"\n", i, i)
		default:
			fmt.Fprintf(&b, "r%d,%d,%d,%d.%03d,%d.%d,%d.25,ok,\n", i, i%500, 1+i%300, 50+i%200, i%1000, 900+i%4000, i%10, i)
		}
	}
	in := []byte(b.String())
	sameAsEncodingCSV(t, in, same)
	sameAsEncodingCSV(t, in, iotest.OneByteReader)
	sameAsEncodingCSV(t, in, inFile(t))
	// Without the row whose quoted field holds a newline, the whole input
	// goes the parallel way.
	quote := csvline.OpenQuote(in)
	start := bytes.LastIndexByte(in[:quote], '\n') + 1
	end := quote + bytes.Index(in[quote:], []byte("\"\"\"\n")) + 4
	unquoted := append(append([]byte(nil), in[:start]...), in[end:]...)
	if csvline.OpenQuote(unquoted) >= 0 || bytes.Count(unquoted, []byte{'"'}) < 100 {
		t.Fatal("the input without the multi-line row is not what the test wants")
	}
	sameAsEncodingCSV(t, unquoted, same)
	sameAsEncodingCSV(t, unquoted, inFile(t))
	// A file read through Read, which counts its lines before it looks at
	// its first bytes.
	path := filepath.Join(t.TempDir(), "run.csv")
	if err := os.WriteFile(path, unquoted, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fromFile, _, err := ReadOptions{Lenient: true}.Read(f)
	ref, rerr := ReadOptions{Lenient: true}.readQuotedCSV(bytes.NewReader(unquoted))
	if fmt.Sprint(err) != fmt.Sprint(rerr) || !reflect.DeepEqual(fromFile.Records, ref.Records) || !slices.Equal(fromFile.Lines, ref.Lines) {
		t.Fatalf("Read of a file: %d records, %v; encoding/csv %d, %v", len(fromFile.Records), err, len(ref.Records), rerr)
	}
}
