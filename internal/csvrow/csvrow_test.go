package csvrow

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

var statuses = []string{"ok", "error", "timeout", "cancelled"}

// Plans for the headers the row tests read under: a load generator's
// (request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status)
// and every column in another order
// (status,message,E2E_ms,sent_ms,request_id,TTFT_ms,completion_tokens,prompt_tokens).
var (
	generator = NewPlan(Columns{ID: 0, Prompt: 1, Completion: 2, TTFT: 3, E2E: 4, Sent: 5, Status: 6, Message: -1}, 7, statuses, 0)
	every     = NewPlan(Columns{Status: 0, Message: 1, E2E: 2, Sent: 3, ID: 4, TTFT: 5, Completion: 6, Prompt: 7}, 8, statuses, 0)
)

// The rows a load generator writes are plain: each is read in one pass,
// and gives the values written. The times are written as whole
// microseconds in milliseconds with three decimals, so that the expected
// nanoseconds are the microseconds times 1,000.
func TestPlainRowsRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	ms := func(us int64) string { return fmt.Sprintf("%d.%03d", us/1000, us%1000) }
	for i := range 2000 {
		ttft, e2e, sent := rng.Int64N(1e6), rng.Int64N(1e8), rng.Int64N(1e11)
		prompt, completion := rng.IntN(1e6), rng.IntN(1e5)
		status := rng.IntN(len(statuses))
		id := fmt.Sprint("req-", i)
		want := Row{ID: []byte(id), Status: uint8(status), Sent: time.Duration(sent) * 1000, First: time.Duration(ttft) * 1000,
			Last: time.Duration(e2e) * 1000, Prompt: prompt, Completion: completion}

		row := fmt.Sprintf("%s,%d,%d,%s,%s,%s,%s", id, prompt, completion, ms(ttft), ms(e2e), ms(sent), statuses[status])
		var got Row
		if ok := generator.Read([]byte(row), &got); !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: ok %v, %+v; want %+v", row, ok, got, want)
		}

		row = fmt.Sprintf("%s,%s,%s,%s,%s,%s,%d,%d", statuses[status], "msg "+id, ms(e2e), ms(sent), id, ms(ttft), completion, prompt)
		got, want.Message = Row{}, []byte("msg "+id)
		if ok := every.Read([]byte(row), &got); !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: ok %v, %+v; want %+v", row, ok, got, want)
		}
	}
}

// A row that is not plain is left to the general path; the table names
// why for each.
func TestRowsNotPlain(t *testing.T) {
	for _, row := range []string{
		"a,1,2,3,4,5",                   // a field too few
		"a,1,2,3,4,5,ok,",               // a field too many
		"a,,2,3,4,5,ok",                 // an empty count
		"a,1,2,,4,5,error",              // an empty time
		"a,+1,2,3,4,5,ok",               // a sign
		"a,1,-2,3,4,5,ok",               // a sign
		"a,1,2,-3,4,5,ok",               // a sign
		"a,1234567890,2,3,4,5,ok",       // ten digits of count
		"a,1,2,1234567890123456,4,5,ok", // sixteen digits of time
		"a,1,2,3.1234567,4,5,ok",        // seven decimals
		"a,1,2,1e3,4,5,ok",              // an exponent
		"a,1,2,3,4,5,fine",              // no such status
		"a,1,2, 3,4,5,ok",               // a space
		"a,1,2,3,4,5.,ok.",              // a status of "ok."
		"a,1,2,.,4,5,ok",                // a point alone
	} {
		var r Row
		if generator.Read([]byte(row), &r) {
			t.Errorf("%q was read as plain: %+v", row, r)
		}
	}
}

// An empty status field is the empty status.
func TestEmptyStatus(t *testing.T) {
	var r Row
	if !generator.Read([]byte("a,1,2,3,4,5,"), &r) || r.Status != 0 {
		t.Errorf("a row with an empty status: %+v", r)
	}
}

// Split gives a row's fields and their offsets, and refuses a field too
// many or too few.
func TestSplit(t *testing.T) {
	var f Fields
	var at [8]int
	if !Split([]byte("a,,bc"), 3, &f, &at) || string(f[0]) != "a" || len(f[1]) != 0 || string(f[2]) != "bc" || at != [8]int{0, 2, 3} {
		t.Errorf("Split(a,,bc) = %q, %v", f[:3], at)
	}
	for _, n := range []int{2, 4} {
		if Split([]byte("a,,bc"), n, &f, &at) {
			t.Errorf("Split(a,,bc) into %d fields succeeded", n)
		}
	}
}

// Rows gives every line but blank ones, without its line ending unless it
// holds a quote, and the number of the line after the last.
func TestRows(t *testing.T) {
	type got struct {
		row    string
		line   int
		quoted bool
	}
	var rows []got
	next := Rows([]byte("a\r\n\nb,\"c\"\r\n\r\nd\r"), 5, func(row []byte, line int, quoted bool) {
		rows = append(rows, got{string(row), line, quoted})
	})
	want := []got{{"a", 5, false}, {"b,\"c\"\r\n", 7, true}, {"d", 9, false}}
	if next != 10 || !reflect.DeepEqual(rows, want) {
		t.Errorf("Rows: %+v, next line %d; want %+v, 10", rows, next, want)
	}
}

// Strings cut each row's id and message from one string, and pass over
// the rows skipped.
func TestStrings(t *testing.T) {
	s := GetStrings()
	defer s.Put()
	s.Add([]byte("r1"), nil)
	s.Skip()
	s.Add([]byte("r3"), []byte("boom"))
	got := map[int][2]string{}
	s.Cut(func(k int, id, message string) { got[k] = [2]string{id, message} })
	if want := map[int][2]string{0: {"r1", ""}, 2: {"r3", "boom"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Cut gave %q, want %q", got, want)
	}
}

// ColumnsOf finds the columns in any order, and names what is wrong with a
// header.
func TestColumnsOf(t *testing.T) {
	cols, e := ColumnsOf([]string{"\uFEFFstatus", "E2E_ms", "request_id", "TTFT_ms", "completion_tokens", "prompt_tokens"})
	want := Columns{Status: 0, E2E: 1, ID: 2, TTFT: 3, Completion: 4, Prompt: 5, Sent: -1, Message: -1}
	if e != nil || cols != want {
		t.Errorf("ColumnsOf = %+v, %v; want %+v", cols, e, want)
	}
	for header, want := range map[string]HeaderError{
		"request_id,request_id":              {Detail: `column "request_id" repeated`},
		"request_id,ttft_ms":                 {Detail: `unknown column "ttft_ms" (want request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms, optionally sent_ms,status,message)`},
		"request_id,a_very_long_column_name": {Detail: `unknown column "a_very_long_column_n…" (want request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms, optionally sent_ms,status,message)`},
		"request_id,prompt_tokens":           {Missing: true, Detail: `required column "completion_tokens" is missing`},
	} {
		_, e := ColumnsOf(strings.Split(header, ","))
		if e == nil || *e != want {
			t.Errorf("ColumnsOf(%s) = %v; want %v", header, e, want)
		}
	}
}

// Cut takes a row's fields written, the last perhaps cut short, as the
// beginning of a row when those before the last parse and the rest can be
// given values that make a row.
func TestCut(t *testing.T) {
	gen := Columns{ID: 0, Prompt: 1, Completion: 2, TTFT: 3, E2E: 4, Sent: 5, Status: 6, Message: -1}
	bare := Columns{ID: 0, Prompt: 1, Completion: 2, TTFT: 3, E2E: 4, Sent: -1, Status: -1, Message: -1}
	for _, c := range []struct {
		fields string
		cols   Columns
		n      int
		want   bool
	}{
		{"a,1,2", gen, 7, true},
		{"a,1,x", gen, 7, true},          // the last is not judged
		{"a,x,2", gen, 7, false},         // a count that is no number
		{"a,1,2,3,4,5,", gen, 7, true},   // just after the last comma
		{"a,1,2,,4,5,o", gen, 7, true},   // "o" may begin "error", whose row needs no TTFT
		{"a,1,2,3,4,,ok", gen, 7, false}, // a blank send
		{"a,1,2,3,4,5,ok,x", gen, 7, false},
		{"a,1,2,,", bare, 5, false}, // an ok row of 2 tokens needs its TTFT
		{"a,1,0,,", bare, 5, true},  // of 0 tokens, it does not
	} {
		if got := Cut(strings.Split(c.fields, ","), c.n, c.cols, statuses); got != c.want {
			t.Errorf("Cut(%s) = %v, want %v", c.fields, got, c.want)
		}
	}
	if Cut(nil, 7, gen, statuses) {
		t.Error("Cut of no field")
	}
}
