package parquet

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
)

// roundTrip checks that run comes back from Parquet with equal records,
// header, end line, cut, window and NoSendTimes, and as the same JSONL
// bytes.
func roundTrip(t *testing.T, run *llmmetrics.Run) []byte {
	t.Helper()
	data := encode(t, run)
	got, err := decode(data)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if want, have := canonical(t, run), canonical(t, got); !bytes.Equal(want, have) {
		t.Fatalf("JSONL after the round trip differs:\nwant %s\ngot  %s", want, have)
	}
	if len(got.Records) != len(run.Records) {
		t.Fatalf("%d records, want %d", len(got.Records), len(run.Records))
	}
	for i := range run.Records {
		if !reflect.DeepEqual(got.Records[i], run.Records[i]) {
			t.Fatalf("record %d:\nwant %+v\ngot  %+v", i, run.Records[i], got.Records[i])
		}
	}
	for _, c := range []struct {
		name      string
		want, got any
	}{
		{"header", run.Header, got.Header}, {"end", run.End, got.End}, {"cut", run.Cut, got.Cut},
		{"window", run.Window, got.Window}, {"no send times", run.NoSendTimes, got.NoSendTimes},
	} {
		if !reflect.DeepEqual(c.want, c.got) {
			t.Errorf("%s: want %+v, got %+v", c.name, c.want, c.got)
		}
	}
	return data
}

// jsonlFiles are the JSONL files of the repository's test data.
func jsonlFiles(t *testing.T) []string {
	var files []string
	for _, pattern := range []string{"../testdata/*.jsonl", "../testdata/seeds/*.jsonl", "../cmd/llmmetrics/testdata/golden/input/*.jsonl"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d JSONL files of test data: %v", len(files), files)
	}
	return files
}

// JSONL → Parquet → JSONL gives the same bytes, on every JSONL file of the
// test data; a file its writers wrote (header, records, end line) comes
// back byte for byte.
func TestRoundTripTestdata(t *testing.T) {
	for _, name := range jsonlFiles(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			run, err := llmmetrics.ReadJSONL(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("ReadJSONL: %v", err)
			}
			got, err := decode(roundTrip(t, run))
			if err != nil {
				t.Fatal(err)
			}
			if canon := canonical(t, run); bytes.Equal(canon, b) && !bytes.Equal(canonical(t, got), b) {
				t.Errorf("the file's own bytes do not come back")
			}
		})
	}
}

// The golden inputs that the run command wrote come back byte for byte,
// header and end line included.
func TestRoundTripBytes(t *testing.T) {
	for _, name := range []string{"c1-0.jsonl", "c4-2.jsonl", "open.jsonl", "truncated.jsonl"} {
		b, err := os.ReadFile(filepath.Join("../cmd/llmmetrics/testdata/golden/input", name))
		if err != nil {
			t.Fatal(err)
		}
		run, err := llmmetrics.ReadJSONL(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		got, err := decode(encode(t, run))
		if err != nil {
			t.Fatal(err)
		}
		if have := canonical(t, got); !bytes.Equal(have, b) {
			t.Errorf("%s: want its bytes back\nwant %s\ngot  %s", name, b, have)
		}
	}
}

// Every run made from the real files of other tools comes back whole.
func TestRoundTripRealdata(t *testing.T) {
	root := "../../shared/realdata"
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no real data at %s (%v): skipped", root, err)
	}
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		tool, ok := formats.Detect(b[:min(len(b), 1<<16)])
		if !ok {
			return nil
		}
		files, err := formats.ReadAll(bytes.NewReader(b), tool)
		if err != nil {
			return nil // a summary file, or one its reader refuses: not a run
		}
		for k, f := range files {
			run, err := f.Records()
			if err != nil && !errors.Is(err, llmmetrics.ErrRejected) {
				continue
			}
			t.Run(filepath.Base(path)+"/"+string(rune('0'+k%10)), func(t *testing.T) {
				// The rows the tool's reader set aside are not records.
				run.Rejected, run.Unlisted = nil, 0
				roundTrip(t, run)
			})
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("only %d runs from the real data", n)
	}
	t.Logf("%d runs", n)
}

// A record whose client facts give no wait keeps its unknown wait through
// Parquet (a null wait_ns), never a wait of 0.
func TestRoundTripNoWait(t *testing.T) {
	in := `{"id":"a","status":"ok","sent_ns":0,"chunk_arrivals_ns":[100,200],"completion_tokens":2,"first_answer_ns":100}` + "\n" +
		`{"id":"b","status":"ok","sent_ns":5,"chunk_arrivals_ns":[100,200],"completion_tokens":2,"wait_ns":0}` + "\n"
	run, err := llmmetrics.ReadJSONL(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decode(encode(t, run))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Records[0].Client.NoWait || got.Records[1].Client.NoWait {
		t.Errorf("NoWait %v, %v; want true, false", got.Records[0].Client.NoWait, got.Records[1].Client.NoWait)
	}
	if have := canonical(t, got); string(have) != in {
		t.Errorf("want its bytes back\nwant %s\ngot  %s", in, have)
	}
}
