package observe

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/jsontok"
)

// FuzzStream reads any bytes as each API's stream, pulled (the Observer)
// and pushed in two pieces (the Transport): neither may panic, both must
// agree, the record's arrivals never go backwards, and every record
// validates, so that report reads whatever the observer wrote (with a
// count below its chunks, or none, it is valid and says so in its
// CountState).
func FuzzStream(f *testing.F) {
	f.Add([]byte(chatStream(3)), uint8(0), uint16(17))
	f.Add([]byte("data:{\"token\":{\"text\":\"a\",\"special\":false}}\n\ndata:{\"token\":{\"text\":\"\",\"special\":true},\"generated_text\":\"a\",\"details\":{\"generated_tokens\":2}}"), uint8(4), uint16(5))
	f.Add([]byte(`{"message":{"content":"x"},"done":false}`+"\n"+`{"done":true,"eval_count":1,"prompt_eval_count":3}`), uint8(3), uint16(9))
	f.Add([]byte("event: response.output_text.delta\ndata: {\"delta\":\"x\"}\n\nevent: response.completed\ndata: {\"response\":{\"usage\":{\"output_tokens\":1}}}\n\n"), uint8(2), uint16(30))
	f.Add([]byte(": comment\r\ndata: {\"choices\":[{\"text\":\"a\"}],\"usage\":{\"completion_tokens\":1}}\r\n\r\ndata: [DONE]"), uint8(1), uint16(3))
	f.Add([]byte("event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n"), uint8(0), uint16(1))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\rerror: {\"code\":500,\"message\":\"x\",\"type\":\"server_error\"}\r\rdata: [DONE]\r\r"), uint8(0), uint16(40))
	f.Add([]byte("{\n  \"choices\": [{\"message\": {\"content\": \"hi\"}, \"finish_reason\": \"stop\"}],\n  \"usage\": {\"completion_tokens\": 1}\n}\n"), uint8(0), uint16(12))
	f.Fuzz(func(t *testing.T, in []byte, apiByte uint8, cut uint16) {
		api := API(apiByte % uint8(len(apiNames)))
		sent := time.Unix(0, 0)
		tick := sent
		now := func() time.Time { tick = tick.Add(time.Microsecond); return tick }

		pulled := newStream(api, sent)
		pp := pusher{emit: pulled.event}
		perr := read(bytes.NewReader(in), &pp, now)

		pushed := newStream(api, sent)
		p := pusher{emit: pushed.event}
		k := min(int(cut), len(in))
		p.push(in[:k], now())
		p.push(in[k:], now())
		p.end(now())

		if perr == nil && p.err == nil {
			if len(pulled.chunks) != len(pushed.chunks) || pulled.completion != pushed.completion ||
				pulled.finished != pushed.finished || pulled.errMsg != pushed.errMsg {
				t.Fatalf("pulled and pushed disagree: %d/%d chunks, n %d/%d", len(pulled.chunks), len(pushed.chunks), pulled.completion, pushed.completion)
			}
		}
		var r Result
		r.finish(pulled, &pp, perr, context.Background())
		for i := 1; i < len(r.Record.Chunks); i++ {
			if r.Record.Chunks[i] < r.Record.Chunks[i-1] {
				t.Fatal("arrivals go backwards")
			}
		}
		if err := r.Record.Validate(); err != nil {
			t.Fatalf("a %s record that does not validate: %v", r.Record.Status, err)
		}
	})
}

// FuzzObject checks the one-pass walk against members and elements, the
// walk that skips each value first: on any bytes, the same keys and
// values, whether object skips a value or a callback walks it.
func FuzzObject(f *testing.F) {
	f.Add([]byte(`{"id":"x","choices":[{"index":0,"delta":{"content":"a\"b"},"finish_reason":null}],"usage":null}`))
	f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{}"}}]}}, 3, [], {}]}`))
	f.Add([]byte(`{"a":{"b":[1,{"c":"}"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var viaMembers, skipped, walkedKeys []string
		okMembers := members(b, func(k, v []byte) bool {
			viaMembers = append(viaMembers, "0:"+string(k)+"="+string(v))
			if v0 := jsontok.Space(v, 0); v0 < len(v) && v[v0] == '{' {
				members(v, func(k, v []byte) bool {
					viaMembers = append(viaMembers, "1:"+string(k)+"="+string(v))
					return true
				})
			}
			return true
		})
		okSkip := object(b, func(k, rest []byte) int {
			v, n := valueAt(rest)
			skipped = append(skipped, "0:"+string(k)+"="+string(v))
			return n
		}) >= 0
		okWalk := object(b, func(k, rest []byte) int {
			v, _ := valueAt(rest)
			walkedKeys = append(walkedKeys, "0:"+string(k)+"="+string(v))
			if len(rest) > 0 && rest[0] == '{' {
				return walked(object(rest, func(k, rest []byte) int {
					v, n := valueAt(rest)
					walkedKeys = append(walkedKeys, "1:"+string(k)+"="+string(v))
					return n
				}))
			}
			return 0
		}) >= 0
		if okSkip != okMembers {
			t.Fatalf("object %v, members %v", okSkip, okMembers)
		}
		if !okMembers {
			return // a malformed object: what was read before is not compared
		}
		var top []string
		for _, s := range viaMembers {
			if s[0] == '0' {
				top = append(top, s)
			}
		}
		if fmt.Sprint(top) != fmt.Sprint(skipped) {
			t.Fatalf("members %q, object %q", top, skipped)
		}
		if okWalk && fmt.Sprint(viaMembers) != fmt.Sprint(walkedKeys) {
			t.Fatalf("members %q, walked %q", viaMembers, walkedKeys)
		}
	})
}
