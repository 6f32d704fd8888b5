package parquet

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/parquet-go/parquet-go"
)

// rawFile writes rows of any struct as a Parquet file, past Write's
// checks, as another tool might.
func rawFile[T any](t *testing.T, rows []T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewGenericWriter[T](&b, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func i64(v int64) *int64 { return &v }

// okRow is a valid row: 3 tokens, chunks at 100, 150 and 200 ms.
func okRow(id string) row {
	return row{ID: id, Status: "ok", ChunkArrivalsNS: []int64{100e6, 150e6, 200e6}, CompletionTokens: i64(3), Outcome: "ok"}
}

// A file that is not one of llmmetrics' records is one error that names
// the column, the row or the metadata key at fault.
func TestReadBadInput(t *testing.T) {
	type missingWait struct { // row without wait_ns
		ID     string `parquet:"id"`
		Status string `parquet:"status"`
	}
	type wrongType struct {
		ID int64 `parquet:"id"`
	}
	type extra struct {
		row
		Extra int64 `parquet:"extra"`
	}
	negative := okRow("neg")
	negative.ChunkArrivalsNS = []int64{-5, 150e6, 200e6}
	negWait := okRow("wait")
	negWait.WaitNS = i64(-1)
	noText := okRow("notext")
	noText.ChunkArrivalsNS = nil
	badStatus := okRow("st")
	badStatus.Status = "fine"
	negCount := okRow("cnt")
	negCount.PromptTokens = i64(-3)
	good := rawFile(t, []row{okRow("a"), okRow("b")})

	for _, c := range []struct {
		name     string
		data     []byte
		sentinel error
		says     []string
	}{
		{"missing column", rawFile(t, []missingWait{{"a", "ok"}}), ErrSchema, []string{"column message is missing"}},
		{"wrong type", rawFile(t, []wrongType{{ID: 1}}), ErrSchema, []string{"column id is required int64, want required byte_array"}},
		{"extra column", rawFile(t, []extra{{row: okRow("a")}}), ErrSchema, []string{"column extra is not one of the schema's"}},
		{"negative time", rawFile(t, []row{okRow("a"), negative}), llmmetrics.ErrNegativeDuration, []string{"record 1", `"neg"`, "chunk_arrivals_ns[0]"}},
		{"negative wait", rawFile(t, []row{negWait}), llmmetrics.ErrNegativeDuration, []string{"record 0", "wait_ns"}},
		{"negative count", rawFile(t, []row{negCount}), llmmetrics.ErrNegativeCount, []string{"prompt_tokens"}},
		{"no text times", rawFile(t, []row{noText}), llmmetrics.ErrMissingField, []string{"first_text_ns"}},
		{"bad status", rawFile(t, []row{badStatus}), llmmetrics.ErrBadStatus, []string{"status", `"fine"`}},
		{"schema version", rawFile(t, []row{okRow("a")}, parquet.KeyValueMetadata(keySchema, "2")), ErrSchema, []string{"llmmetrics_schema", `"2"`}},
		{"bad header", rawFile(t, []row{okRow("a")}, parquet.KeyValueMetadata(keyRun, `{"tool":1}`)), ErrSchema, []string{"llmmetrics_run"}},
		{"unknown header key", rawFile(t, []row{okRow("a")}, parquet.KeyValueMetadata(keyRun, `{"tol":"x"}`)), ErrSchema, []string{"llmmetrics_run", "tol"}},
		{"bad end", rawFile(t, []row{okRow("a")}, parquet.KeyValueMetadata(keyEnd, `{"state":"done"}`)), ErrSchema, []string{"llmmetrics_end", `"done"`}},
		{"bad window", rawFile(t, []row{okRow("a")}, parquet.KeyValueMetadata(keyWindow, `-4`)), ErrSchema, []string{"llmmetrics_window_ns"}},
		{"truncated footer", good[:len(good)-10], ErrCorrupt, []string{"truncated"}},
		{"cut in half", good[:len(good)/2], ErrCorrupt, []string{"truncated"}},
		{"no footer length", append(good[:len(good)-8:len(good)-8], 0xff, 0xff, 0xff, 0x7f, 'P', 'A', 'R', '1'), ErrCorrupt, []string{"footer says"}},
		{"not Parquet", []byte("request_id,prompt_tokens\nr1,3\n"), ErrCorrupt, []string{"PAR1"}},
		{"empty", nil, ErrCorrupt, []string{"0 bytes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := decode(c.data)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, c.sentinel) {
				t.Errorf("error %q does not wrap %v", err, c.sentinel)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error of several lines: %q", msg)
			}
			for _, s := range c.says {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not say %q", msg, s)
				}
			}
		})
	}
}

// Lenient reading sets the invalid rows aside, counted with their reasons,
// and keeps the rest.
func TestReadLenient(t *testing.T) {
	negative := okRow("neg")
	negative.ChunkArrivalsNS = []int64{-5, 150e6, 200e6}
	data := rawFile(t, []row{okRow("a"), negative, okRow("c")})
	run, err := ReadOptions{Lenient: true}.Read(bytes.NewReader(data), int64(len(data)))
	if !errors.Is(err, llmmetrics.ErrRejected) {
		t.Fatalf("error %v, want ErrRejected", err)
	}
	if len(run.Records) != 2 || run.RejectedCount() != 1 || run.Rejected[0].Index != 1 {
		t.Fatalf("%d records, %d rejected (%v)", len(run.Records), run.RejectedCount(), run.Rejected)
	}
	if run.Lines[1] != 3 {
		t.Errorf("the third row's line is %d, want 3", run.Lines[1])
	}
}

// Write refuses an invalid record, naming it and its column.
func TestWriteInvalid(t *testing.T) {
	run := &llmmetrics.Run{Records: []llmmetrics.Record{
		{ID: "a", Chunks: []time.Duration{1, 2}, CompletionTokens: 2},
		{ID: "b", Chunks: []time.Duration{2, 1}, CompletionTokens: 2},
	}}
	err := Write(&bytes.Buffer{}, run)
	var re *llmmetrics.RecordError
	if !errors.As(err, &re) || re.Index != 1 || re.Field != "chunk_arrivals_ns[1]" || !errors.Is(err, llmmetrics.ErrNonMonotonic) {
		t.Fatalf("error %v, want record 1's chunk_arrivals_ns[1] going backwards", err)
	}
}
