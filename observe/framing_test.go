package observe

import (
	"fmt"
	"testing"
	"time"
)

// plainLines cuts a whole response into its lines as the SSE
// specification says, a byte at a time: a line ends at LF, CR or CRLF.
// rest is the last line, which no line ending ended.
func plainLines(in []byte) (lines [][]byte, rest []byte) {
	start := 0
	for i := 0; i < len(in); i++ {
		switch in[i] {
		case '\n':
			lines, start = append(lines, in[start:i]), i+1
		case '\r':
			lines = append(lines, in[start:i])
			if i+1 < len(in) && in[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	return lines, in[start:]
}

// FuzzPushFraming: pushed in three pieces cut anywhere, a response is
// framed into the events its lines make when cut plainly, whole.
func FuzzPushFraming(f *testing.F) {
	f.Add([]byte(chatStream(2)), uint16(7), uint16(90))
	f.Add([]byte("data: a\r\n\r\ndata: b\r\rdata: c\n\rdata: d\r"), uint16(8), uint16(9))
	f.Add([]byte("event: x\rdata: {}\r\n\r\n: c\r\nerror: {\"message\":\"m\"}\r\r"), uint16(9), uint16(10))
	f.Add([]byte("{\"a\":\r\n1}\r\n{\"b\":2}\n"), uint16(6), uint16(7))
	f.Fuzz(func(t *testing.T, in []byte, cut1, cut2 uint16) {
		var want []string
		var l lines
		add := func(e event, ok bool) {
			if ok {
				want = append(want, fmt.Sprintf("%q %q", e.typ, e.data))
			}
		}
		all, rest := plainLines(in)
		for _, line := range all {
			ok, err := l.line(line, time.Time{})
			if err != nil {
				return // an event too long: not for this test's inputs
			}
			add(l.ev, ok)
		}
		if len(rest) > 0 {
			ok, _ := l.line(rest, time.Time{})
			add(l.ev, ok)
		}
		add(l.end(time.Time{}))

		var got []string
		p := pusher{emit: func(e event) { got = append(got, fmt.Sprintf("%q %q", e.typ, e.data)) }}
		a := min(int(cut1), len(in))
		b := min(max(int(cut2), a), len(in))
		p.push(in[:a], time.Time{})
		p.push(in[a:b], time.Time{})
		p.push(in[b:], time.Time{})
		p.end(time.Time{})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pushed as %d, %d and %d bytes: %q\ncut plainly: %q", a, b-a, len(in)-b, got, want)
		}
	})
}

// skip ends a number or a literal where a member or an element ends, or
// at white space: at these seven bytes and no others.
func TestEndsScalar(t *testing.T) {
	for c := range 256 {
		want := c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t'
		if endsScalar[c] != want {
			t.Errorf("endsScalar[%q] = %v", c, endsScalar[c])
		}
	}
}
