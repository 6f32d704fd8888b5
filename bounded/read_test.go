package bounded

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// A batch of CSV lines ends only outside double quotes, where a record
// ends; one of JSONL at any line's end; every line is in one batch.
func TestLines(t *testing.T) {
	in := "a,b\n1,\"x\ny\"\n2,\"\"\"q\"\"\"\n3,z"
	for _, c := range []struct {
		quoted bool
		want   []string
	}{
		{true, []string{"a,b\n", "1,\"x\ny\"\n", "2,\"\"\"q\"\"\"\n", "3,z"}},
		{false, []string{"a,b\n", "1,\"x\n", "y\"\n", "2,\"\"\"q\"\"\"\n", "3,z"}},
	} {
		var got []string
		n := 0
		err := lines(bufio.NewReader(strings.NewReader(in)), c.quoted, 1, func(buf []byte, lines int) error {
			got = append(got, string(buf))
			n += lines
			return nil
		})
		if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") || n != 5 {
			t.Errorf("quoted %v: got %q in %d lines, want %q in 5 (%v)", c.quoted, got, n, c.want, err)
		}
	}
}

// A strict read's error of a record past the first batch is the one the
// whole file read in memory gives: the record's line in the file, not in
// its batch, and no word of batches; in JSONL and in CSV.
func TestReadErrorOnFileLine(t *testing.T) {
	recs := synth.Mixed(60_000, 4)
	var j, c bytes.Buffer
	if err := llmmetrics.WriteJSONL(&j, recs); err != nil {
		t.Fatal(err)
	}
	if err := llmmetrics.WriteCSV(&c, recs); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		data []byte
		bad  string // the field spoiled
		with string
	}{
		{"jsonl", j.Bytes(), `"status":"ok"`, `"status":"fine"`},
		{"csv", c.Bytes(), `,ok,`, `,fine,`},
	} {
		t.Run(f.name, func(t *testing.T) {
			// Line 45,001 of the file, past the first batch of 1 MiB.
			lines := bytes.SplitAfter(f.data, []byte("\n"))
			if len(f.data) < 2*batchBytes || !bytes.Contains(lines[45_000], []byte(f.bad)) {
				t.Fatalf("the file is %d bytes, its line 45001 %q", len(f.data), lines[45_000])
			}
			lines[45_000] = bytes.Replace(lines[45_000], []byte(f.bad), []byte(f.with), 1)
			data := bytes.Join(lines, nil)
			_, _, want := llmmetrics.Read(bytes.NewReader(data))
			_, _, got := Summarize(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }, Options{})
			if want == nil || got == nil || got.Error() != want.Error() {
				t.Errorf("bounded: %v\n in memory: %v", got, want)
			}
			if !strings.Contains(fmt.Sprint(want), "line 45001") {
				t.Errorf("in memory: %v, not on line 45001", want)
			}
		})
	}
}
