package parquet

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/parquet-go/parquet-go"
)

// sent_unix_ns is the header's start plus sent_ns, so that shards that
// started apart share one clock; null without a start or without real
// send times.
func TestSentUnixColumn(t *testing.T) {
	start := time.Date(2026, 12, 1, 15, 0, 0, 500, time.UTC)
	recs := []llmmetrics.Record{
		{ID: "a", Sent: 0, FirstText: time.Millisecond, LastText: time.Millisecond, CompletionTokens: 1},
		{ID: "b", Sent: 1500 * time.Millisecond, FirstText: time.Millisecond, LastText: time.Millisecond, CompletionTokens: 1},
	}
	type sentUnix struct {
		ID         string `parquet:"id"`
		SentUnixNS *int64 `parquet:"sent_unix_ns,optional"`
	}
	// 2026-12-01T15:00:00.0000005Z is 1796137200·10⁹ + 500 ns; b is sent
	// 1.5·10⁹ ns after it.
	base := int64(1796137200)*1e9 + 500
	for _, c := range []struct {
		name string
		run  *llmmetrics.Run
		want []sentUnix
	}{
		{"start", &llmmetrics.Run{Header: &llmmetrics.RunHeader{Tool: "t", Start: start}, Records: recs},
			[]sentUnix{{"a", i64(base)}, {"b", i64(base + 1500e6)}}},
		{"no header", &llmmetrics.Run{Records: recs}, []sentUnix{{"a", nil}, {"b", nil}}},
		{"no send times", &llmmetrics.Run{Header: &llmmetrics.RunHeader{Tool: "t", Start: start}, Records: recs, NoSendTimes: true},
			[]sentUnix{{"a", nil}, {"b", nil}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := encode(t, c.run)
			got, err := parquet.Read[sentUnix](bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("sent_unix_ns:\n got %s\nwant %s", showUnix(got), showUnix(c.want))
			}
		})
	}
}

func showUnix[T any](v []T) string {
	var b bytes.Buffer
	for _, x := range v {
		rv := reflect.ValueOf(x)
		b.WriteString(rv.Field(0).String())
		if p := rv.Field(1); p.IsNil() {
			b.WriteString("=null ")
		} else {
			b.WriteString("=" + time.Duration(p.Elem().Int()).String() + " ")
		}
	}
	return b.String()
}

// A file without sent_unix_ns (written before the column, or by another
// tool) reads as before.
func TestReadWithoutSentUnix(t *testing.T) {
	fields := reflect.VisibleFields(reflect.TypeFor[row]())
	old := reflect.StructOf(fields[:len(fields)-1])
	rows := reflect.MakeSlice(reflect.SliceOf(old), 2, 2)
	for i, r := range []row{okRow("a"), okRow("b")} {
		v := reflect.ValueOf(r)
		for f := range old.NumField() {
			rows.Index(i).Field(f).Set(v.Field(f))
		}
	}
	var b bytes.Buffer
	w := parquet.NewWriter(&b, parquet.SchemaOf(reflect.New(old).Interface()))
	for i := range rows.Len() {
		if err := w.Write(rows.Index(i).Interface()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	run, err := decode(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Records) != 2 || run.Records[1].ID != "b" || len(run.Records[1].Chunks) != 3 {
		t.Errorf("read %+v", run.Records)
	}
}

// A reply of one body keeps its mark through a file, and a file written
// before the one_body column reads as replies that were not so marked.
func TestOneBodyColumn(t *testing.T) {
	recs := []llmmetrics.Record{
		{ID: "s", Chunks: []time.Duration{10, 20, 30}, CompletionTokens: 3, Client: &llmmetrics.ClientSide{Wait: 5}},
		{ID: "b", Chunks: []time.Duration{40}, NoUsage: true, Client: &llmmetrics.ClientSide{Wait: 5, OneBody: true}},
	}
	run, err := decode(encode(t, &llmmetrics.Run{Records: recs}))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(run.Records, recs) {
		t.Errorf("read back %+v, want %+v", run.Records, recs)
	}

	var fields []reflect.StructField
	for _, f := range reflect.VisibleFields(reflect.TypeFor[row]()) {
		if f.Name != "OneBody" {
			fields = append(fields, f)
		}
	}
	old := reflect.StructOf(fields)
	x := reflect.New(old).Elem()
	v := reflect.ValueOf(okRow("a"))
	for i, f := range fields {
		x.Field(i).Set(v.FieldByName(f.Name))
	}
	var b bytes.Buffer
	w := parquet.NewWriter(&b, parquet.SchemaOf(reflect.New(old).Interface()))
	if err := w.Write(x.Interface()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	back, err := decode(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Records) != 1 || back.Records[0].Client != nil && back.Records[0].Client.OneBody {
		t.Errorf("read %+v", back.Records)
	}
}
