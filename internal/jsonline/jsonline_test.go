package jsonline

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"
)

var errStatus = errors.New("bad status")

func status(b []byte) (uint8, error) {
	switch string(b) {
	case "ok":
		return 0, nil
	case "error":
		return 1, nil
	}
	return 0, errStatus
}

// A line gives each key's value; a line written gives the same line back.
func TestParseAndWrite(t *testing.T) {
	in := `{"id":"r1","status":"error","message":"boom \u00e9","sent_ns":5,"chunk_arrivals_ns":[10,20],` +
		`"chunk_tokens":[1,2],"prompt_tokens":7,"completion_tokens":3,"max_tokens":9,"preflight":true,"wait_ns":4,"reasoning_tokens":1,` +
		`"cached_prompt_tokens":6,"session":"s\u00e9","turn":2}`
	want := Line{ID: "r1", Status: 1, Message: "boom é", Sent: 5, HasSent: true, Chunks: []time.Duration{10, 20}, ChunkTokens: []int32{1, 2},
		Prompt: 7, Completion: 3, HasCompletion: true, MaxTokens: 9, Warmup: true, Preflight: true,
		HasClient: true, Client: Client{Wait: 4, ReasoningTokens: 1, HasReasoning: true,
			CachedPromptTokens: 6, HasCached: true, Session: "sé", Turn: 2}}
	p := Parser{Status: status}
	got, err := p.Parse([]byte(in))
	if err != nil || !reflect.DeepEqual(*got, want) {
		t.Fatalf("Parse = %+v, %+v; want %+v", got, err, want)
	}
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Write(&want, "error"); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	back, perr := p.Parse(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	if perr != nil || !reflect.DeepEqual(*back, want) {
		t.Fatalf("%s read back as %+v, %+v", b.Bytes(), back, perr)
	}
}

// Each error names its key, column and kind; a refused status is the
// Status function's error.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Error
	}{
		{`{"id":"a","id":"b"}`, Error{Key: "id", Column: 11, Detail: `key "id" repeated`}},
		{`{"ID":"a"}`, Error{Key: "ID", Column: 2, Detail: `unknown key "ID" (keys are matched exactly)`}},
		{`{"sent_ns":1.5}`, Error{Key: "sent_ns", Column: 12, Detail: "want a whole number, without a fraction or an exponent"}},
		{`{"prompt_tokens":2147483648}`, Error{Key: "prompt_tokens", Column: 18, Kind: OutOfRange, Detail: "2147483648 is outside [-2147483647, 2147483647]"}},
		{`{"turn":-1}`, Error{Key: "turn", Column: 9, Kind: OutOfRange, Detail: "-1 is outside [0, 2147483647]"}},
		{`{"cached_prompt_tokens":2.5}`, Error{Key: "cached_prompt_tokens", Column: 25, Detail: "want a whole number, without a fraction or an exponent"}},
		{`{"session":1}`, Error{Key: "session", Column: 12, Detail: `found '1', want '"'`}},
		{`{"status":"done"}`, Error{Key: "status", Column: 17, Err: errStatus}},
		{`{} x`, Error{Column: 4, Detail: `text after the JSON object: "x"`}},
	} {
		p := Parser{Status: status}
		_, err := p.Parse([]byte(c.in))
		if err == nil || *err != c.want {
			t.Errorf("%s: %+v; want %+v", c.in, err, c.want)
		}
	}
}

// An input cut inside an object is unfinished; a wrong byte is not.
func TestUnfinished(t *testing.T) {
	for in, want := range map[string]bool{`{"id":"a`: true, `{"id":`: true, `{"id":"a"}`: false, `{"id" x`: false} {
		if got := Unfinished([]byte(in)); got != want {
			t.Errorf("Unfinished(%s) = %v, want %v", in, got, want)
		}
	}
}
