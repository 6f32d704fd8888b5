package llmmetrics

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/internal/csvrow"
)

// planFor returns the columns and plan of a header line.
func planFor(t testing.TB, header string) (csvrow.Columns, csvrow.Plan, int) {
	t.Helper()
	names, err := csv.NewReader(strings.NewReader(header)).Read()
	if err != nil {
		t.Fatal(err)
	}
	cols, err := csvColumns(names, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cols, csvrow.NewPlan(cols, len(names), statusNames[:], uint8(StatusOK)), len(names)
}

// The headers the row tests read under: the required columns alone, a
// load generator's, and every column in another order.
var planHeaders = []string{
	"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms",
	"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status",
	"status,message,E2E_ms,sent_ms,request_id,TTFT_ms,completion_tokens,prompt_tokens",
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
		var pr csvrow.Row
		if !plan.Read([]byte(row), &pr) {
			return
		}
		id, msg := pr.ID, pr.Message
		fast := Record{Status: Status(pr.Status), Sent: pr.Sent, FirstText: pr.First, LastText: pr.Last,
			PromptTokens: pr.Prompt, CompletionTokens: pr.Completion}
		var slow Record
		sid, smsg, item, sok := readCSVRow([]byte(row), 2, cols, fields, &slow)
		if !sok || !bytes.Equal(id, sid) || !bytes.Equal(msg, smsg) || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: read as %+v (id %q, message %q); the general path gives %+v (id %q, message %q, %v)", row, fast, id, msg, slow, sid, smsg, item.err)
		}
	})
}
