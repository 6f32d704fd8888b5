package jsonline

import (
	"bytes"
	"testing"
)

func TestKeyed(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{`{"llmmetrics_run":{}}`, true},
		{"{ \t\"llmmetrics_run\":{}}", true},
		{`{"id":"r1","llmmetrics_run":{}}`, false},
		{` {"llmmetrics_run":{}}`, false}, // the caller trims the line
		{`{`, false},
		{``, false},
	} {
		if got := Keyed([]byte(c.line), `"llmmetrics_run"`); got != c.want {
			t.Errorf("Keyed(%q) = %v; want %v", c.line, got, c.want)
		}
	}
}

func TestWriteKeyedDecodeStrict(t *testing.T) {
	type end struct {
		State string `json:"state"`
		N     int    `json:"n,omitempty"`
	}
	var b bytes.Buffer
	if err := WriteKeyed(&b, "end", &end{State: "completed"}); err != nil {
		t.Fatal(err)
	}
	if want := "{\"end\":{\"state\":\"completed\"}}\n"; b.String() != want {
		t.Errorf("WriteKeyed wrote %q; want %q", b.String(), want)
	}
	var got struct {
		End *end `json:"end"`
	}
	if err := DecodeStrict(b.Bytes(), &got); err != nil || got.End == nil || got.End.State != "completed" {
		t.Errorf("DecodeStrict: %+v, %v", got.End, err)
	}
	err := DecodeStrict([]byte(`{"end":{"state":"x","extra":1}}`), &got)
	if err == nil || err.Error() != `json: unknown field "extra"` {
		t.Errorf("DecodeStrict of an unknown key: %v; want json: unknown field \"extra\"", err)
	}
}

// DecodeKeyed reads {key: {...}} strictly: another key, a field the type
// lacks, or a null value is an error.
func TestDecodeKeyed(t *testing.T) {
	type end struct {
		State string `json:"state"`
	}
	got, err := DecodeKeyed[end]([]byte(`{"end":{"state":"completed"}}`), "end")
	if err != nil || got.State != "completed" {
		t.Errorf("DecodeKeyed = %+v, %v", got, err)
	}
	for _, c := range []struct{ line, err string }{
		{`{"end":null}`, "end is null"},
		{`{}`, "end is null"},
		{`{"end":{"state":"x"},"more":1}`, `json: unknown field "more"`},
		{`{"end":{"state":"x","extra":1}}`, `json: unknown field "extra"`},
		{`{"end":`, "unexpected end of JSON input"},
	} {
		if _, err := DecodeKeyed[end]([]byte(c.line), "end"); err == nil || err.Error() != c.err {
			t.Errorf("DecodeKeyed(%s): %v; want %s", c.line, err, c.err)
		}
	}
}
