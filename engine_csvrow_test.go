package llmmetrics

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// planFor returns the columns and plan of a header line.
func planFor(t testing.TB, header string) (csvCols, rowPlan, int) {
	t.Helper()
	names, err := csv.NewReader(strings.NewReader(header)).Read()
	if err != nil {
		t.Fatal(err)
	}
	cols, err := csvColumns(names)
	if err != nil {
		t.Fatal(err)
	}
	return cols, newRowPlan(cols, len(names)), len(names)
}

// The headers the row tests read under: the required columns alone, a
// load generator's, and every column in another order.
var planHeaders = []string{
	"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms",
	"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status",
	"status,message,E2E_ms,sent_ms,request_id,TTFT_ms,completion_tokens,prompt_tokens",
}

// The rows a load generator writes are plain: each is read in one pass,
// and gives the values written. The times are written as whole
// microseconds in milliseconds with three decimals, so that the expected
// nanoseconds are the microseconds times 1,000.
func TestPlainRowsRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	_, plan, _ := planFor(t, planHeaders[1])
	_, every, _ := planFor(t, planHeaders[2])
	ms := func(us int64) string { return fmt.Sprintf("%d.%03d", us/1000, us%1000) }
	for i := range 2000 {
		ttft, e2e, sent := rng.Int64N(1e6), rng.Int64N(1e8), rng.Int64N(1e11)
		prompt, completion := rng.IntN(1e6), rng.IntN(1e5)
		status := Status(rng.IntN(len(statusNames)))
		want := Record{Status: status, Sent: time.Duration(sent) * 1000, FirstText: time.Duration(ttft) * 1000,
			LastText: time.Duration(e2e) * 1000, PromptTokens: prompt, CompletionTokens: completion}
		id := fmt.Sprint("req-", i)

		row := fmt.Sprintf("%s,%d,%d,%s,%s,%s,%s", id, prompt, completion, ms(ttft), ms(e2e), ms(sent), status)
		var got Record
		gotID, msg, ok := plan.read([]byte(row), &got)
		if !ok || string(gotID) != id || msg != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: ok %v, id %q, message %q, %+v; want %+v", row, ok, gotID, msg, got, want)
		}

		row = fmt.Sprintf("%s,%s,%s,%s,%s,%s,%d,%d", status, "msg "+id, ms(e2e), ms(sent), id, ms(ttft), completion, prompt)
		got = Record{}
		gotID, msg, ok = every.read([]byte(row), &got)
		if !ok || string(gotID) != id || string(msg) != "msg "+id || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: ok %v, id %q, message %q, %+v; want %+v", row, ok, gotID, msg, got, want)
		}
	}
}

// A row that is not plain is left to the general path; the table names
// why for each.
func TestRowsNotPlain(t *testing.T) {
	_, plan, _ := planFor(t, planHeaders[1])
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
		var r Record
		if _, _, ok := plan.read([]byte(row), &r); ok {
			t.Errorf("%q was read as plain: %+v", row, r)
		}
	}
}

// A row read in one pass gives what the general path gives for it: the
// same record, id and message. (FuzzCSVSplit compares whole files with
// encoding/csv; this compares the two paths row by row.)
func FuzzPlainRow(f *testing.F) {
	f.Add("r1,3915,128,99.406,3293.654,5.365,ok", 1)
	f.Add("ok,m,5.,0,x,1.000001,2,3", 2)
	f.Add("a,1,2,3,4", 0)
	f.Add("a,1,2,3,4,,ok", 1)
	f.Fuzz(func(t *testing.T, row string, h int) {
		if strings.ContainsAny(row, "\"\n\r") {
			return // a row with a quote or a line end never comes here
		}
		cols, plan, fields := planFor(t, planHeaders[uint(h)%uint(len(planHeaders))])
		var fast Record
		id, msg, ok := plan.read([]byte(row), &fast)
		if !ok {
			return
		}
		var slow Record
		sid, smsg, item, sok := readCSVRow([]byte(row), 2, cols, fields, &slow)
		if !sok || !bytes.Equal(id, sid) || !bytes.Equal(msg, smsg) || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: read as %+v (id %q, message %q); the general path gives %+v (id %q, message %q, %v)", row, fast, id, msg, slow, sid, smsg, item.err)
		}
	})
}
