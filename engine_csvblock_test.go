package llmmetrics

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
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

// The fast number parsers give exactly what parseMillis and parseCount
// give, errors included.
func TestParseFieldBytes(t *testing.T) {
	for _, s := range []string{"", "0", "-0", "+0", "1", "99.406", "0.1", "0.000001", "0.0000005", "0.0000015",
		"123456789012345", "1234567890123456", ".5", "5.", ".", "-", "+", "1.2.3", "1e3", "nan", "Inf",
		"9223372036854.775807", "2305843009213.693952", "-2305843009213.693952", "2305843009213.693953",
		"0x10", "1_000", " 1", "1 ", "999999999999999", "0.123456789012345"} {
		want, werr := parseMillis(s)
		got, gerr := parseMillisBytes([]byte(s))
		if got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("parseMillisBytes(%q) = %v, %v; parseMillis gives %v, %v", s, got, gerr, want, werr)
		}
	}
	// Around the bound of the whole-nanosecond path, 2⁵¹ ns = 2251799813.685248 ms, and at every number of
	// decimals: random decimals give what strconv gives.
	for _, s := range []string{"2251799813.685247", "2251799813.685248", "-2251799813.685248", "2251799813.68525",
		"2251799813.6852479", "225179981368.5248", "0.000000", "000.5", "-0.000001"} {
		want, werr := parseMillis(s)
		if got, gerr := parseMillisBytes([]byte(s)); got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("parseMillisBytes(%q) = %v, %v; parseMillis gives %v, %v", s, got, gerr, want, werr)
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 200_000 {
		digits := strconv.FormatUint(rng.Uint64()>>rng.IntN(64), 10)
		if len(digits) > 15 {
			digits = digits[:1+rng.IntN(15)]
		}
		at := rng.IntN(len(digits) + 1)
		s := digits[:at] + "." + digits[at:]
		if rng.IntN(2) == 0 {
			s = "-" + s
		}
		want, werr := parseMillis(s)
		if got, gerr := parseMillisBytes([]byte(s)); got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("parseMillisBytes(%q) = %v, %v; parseMillis gives %v, %v", s, got, gerr, want, werr)
		}
	}
	for _, s := range []string{"", "0", "-0", "+7", "-1", "123456789", "1234567890", "2147483647", "2147483648",
		"-2147483648", "-2147483649", "00000000001", "1.0", "x", "-", "+", " 1"} {
		want, werr := parseCount(s)
		got, gerr := parseCountBytes([]byte(s))
		if got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("parseCountBytes(%q) = %v, %v; parseCount gives %v, %v", s, got, gerr, want, werr)
		}
	}
}

// parseMillisBytes gives what parseMillis gives, on any field.
func FuzzParseMillis(f *testing.F) {
	for _, s := range []string{"99.406", "2251799813.685248", "-0.000001", "1e3", "0.0000005", "nan", "+.5", "1.", ".", "", "-", "1.2.3", "1..2", "12a", "007.50"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, werr := parseMillis(string(b))
		if got, gerr := parseMillisBytes(b); got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("parseMillisBytes(%q) = %v, %v; parseMillis gives %v, %v", b, got, gerr, want, werr)
		}
	})
}
