package observe

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"
)

// chatStream is a chat stream of n one-token content chunks, as vLLM
// writes them, between a role chunk and the finish, usage and [DONE].
func chatStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	for i := range n {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" tok%d"},"logprobs":null,"finish_reason":null}]}`+"\n\n", i)
	}
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}` + "\n\n")
	fmt.Fprintf(&b, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", n+10, n)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkStream replays a 1,000-chunk chat stream from memory through
// the framing, the stamping and the text-bearing decision, and reports the
// cost per chunk.
//
//	go test -run XXX -bench Stream -benchmem ./observe
func BenchmarkStream(b *testing.B) {
	const chunks = 1000
	body := chatStream(chunks)
	now := time.Now
	s := newStream(Chat, time.Now())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		s.chunks = s.chunks[:0] // as a fresh stream, with its buffer reused
		s.usage, s.finished, s.done = false, false, false
		p := pusher{emit: s.event}
		if err := read(bytes.NewReader(body), &p, now); err != nil {
			b.Fatal(err)
		}
		if len(s.chunks) != chunks || s.completion != chunks {
			b.Fatalf("%d chunks, n %d", len(s.chunks), s.completion)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/chunks, "ns/chunk")
}

// BenchmarkTransportStream measures what the Transport adds to a caller
// reading a 1,000-chunk stream: its reads pushed through the framer.
func BenchmarkTransportStream(b *testing.B) {
	const chunks = 1000
	body := chatStream(chunks)
	buf := make([]byte, 4096)
	b.ReportAllocs()
	for b.Loop() {
		res := &Result{}
		ob := &observedBody{ReadCloser: io.NopCloser(bytes.NewReader(body)), res: res, s: newStream(Chat, time.Now()), now: time.Now, done: func(*Result) {}}
		ob.p = pusher{emit: ob.s.event}
		for {
			if _, err := ob.Read(buf); err != nil {
				break
			}
		}
		if len(res.Record.Chunks) != chunks {
			b.Fatalf("%d chunks", len(res.Record.Chunks))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/chunks, "ns/chunk")
}
