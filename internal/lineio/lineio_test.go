package lineio

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	long := strings.Repeat("x", 100_000) // longer than the reader's buffer
	br := bufio.NewReaderSize(strings.NewReader("a\n"+long+"\n\nlast"), 16)
	var got []string
	for {
		b, err := Read(br, nil, 0)
		got = append(got, string(b))
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"a", long, "", "last"}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
	if _, err := Read(bufio.NewReaderSize(strings.NewReader(long), 16), nil, 1000); err == nil {
		t.Error("a line over the limit was read")
	}
}

// Grow keeps the bytes, never passes limit+1, reaches it, and holds at
// most 1.25 times the limit at once (the buffer and the one it grows
// from): from 4 KiB to a limit of 256 MiB, 16, 64, 256 KiB … 64 MiB,
// then 256 MiB + 1 with 64 MiB beside it.
func TestGrow(t *testing.T) {
	const limit = 256 << 20
	buf := append(make([]byte, 0, 4<<10), "abc"...)
	for cap(buf) <= limit {
		old := cap(buf)
		buf = Grow(buf, limit)
		if string(buf) != "abc" {
			t.Fatalf("contents %q after growing from %d", buf, old)
		}
		if cap(buf) <= old || cap(buf) > limit+1 {
			t.Fatalf("grew from %d to %d, limit %d", old, cap(buf), limit)
		}
		if old+cap(buf) > limit+limit/4+1 {
			t.Fatalf("%d and %d bytes held at once, over 1.25 times the limit", old, cap(buf))
		}
	}
	if cap(buf) != limit+1 {
		t.Fatalf("ended at %d, want %d", cap(buf), limit+1)
	}
}
