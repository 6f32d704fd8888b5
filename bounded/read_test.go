package bounded

import (
	"bufio"
	"strings"
	"testing"
)

// A batch of CSV lines ends only outside double quotes, where a record
// ends; one of JSONL at any line's end; every line is in one batch.
func TestLines(t *testing.T) {
	in := "a,b\n1,\"x\ny\"\n2,\"\"\"q\"\"\"\n3,z"
	for _, c := range []struct {
		quoted bool
		want   []string
	}{
		{true, []string{"a,b\n", "1,\"x\ny\"\n", "2,\"\"\"q\"\"\"\n", "3,z"}},
		{false, []string{"a,b\n", "1,\"x\n", "y\"\n", "2,\"\"\"q\"\"\"\n", "3,z"}},
	} {
		var got []string
		n := 0
		err := lines(bufio.NewReader(strings.NewReader(in)), c.quoted, 1, func(buf []byte, lines int) error {
			got = append(got, string(buf))
			n += lines
			return nil
		})
		if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") || n != 5 {
			t.Errorf("quoted %v: got %q in %d lines, want %q in 5 (%v)", c.quoted, got, n, c.want, err)
		}
	}
}
