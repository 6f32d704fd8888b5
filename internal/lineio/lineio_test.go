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
