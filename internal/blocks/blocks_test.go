package blocks

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// split runs Split over in with blocks of size bytes and a line limit, and
// returns the blocks.
func split(in io.Reader, size, limit int) []Block {
	free := make(chan []byte, 2)
	free <- nil
	free <- nil
	out := make(chan Block, 2)
	done := make(chan struct{})
	defer close(done)
	go Split(in, 1, nil, size, limit, free, done, out)
	var got []Block
	for b := range out {
		got = append(got, b)
		free <- nil // a fresh buffer each time: the blocks are kept
	}
	return got
}

// Blocks are whole lines, in order, numbered from the first, and together
// the input: 5 lines of 4 bytes and a last without a newline, in blocks of
// 8 bytes (two lines each); a line longer than the block is read whole.
func TestSplit(t *testing.T) {
	in := "aaa\nbbb\nccc\nddd\neeeeeeeeeeee\nfff\nggg"
	got := split(strings.NewReader(in), 8, 1<<20)
	var all strings.Builder
	line := 1
	for k, b := range got {
		if b.Seq != k || b.FirstLine != line {
			t.Fatalf("block %d: seq %d, first line %d; want %d, %d", k, b.Seq, b.FirstLine, k, line)
		}
		if k < len(got)-1 && !strings.HasSuffix(string(b.Data), "\n") {
			t.Fatalf("block %d ends inside a line: %q", k, b.Data)
		}
		all.Write(b.Data)
		line += b.Lines()
	}
	if all.String() != in || line != 8 {
		t.Fatalf("blocks make %q, %d lines; want %q, 7", all.String(), line-1, in)
	}
}

// A line longer than the limit is a *LongLine naming it, after at most
// limit+1 bytes of it have been read.
func TestSplitLongLine(t *testing.T) {
	const limit = 1 << 20
	n := 0
	in := io.MultiReader(strings.NewReader("a\nb\n"), readFunc(func(p []byte) (int, error) {
		clear(p)
		n += len(p)
		return len(p), nil
	}))
	got := split(in, 1<<10, limit)
	last := got[len(got)-1]
	var long *LongLine
	if !errors.As(last.Err, &long) || long.Line != 3 || long.Limit != limit {
		t.Fatalf("last block's error %v, want a long line 3", last.Err)
	}
	if n > limit+1 {
		t.Fatalf("read %d bytes of the line, want at most %d", n, limit+1)
	}
	if len(last.Data) != 0 {
		t.Fatalf("the long line's block holds %d bytes of data", len(last.Data))
	}
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

// Lines gives each line with text, its number and where its text starts
// (after a byte order mark and blanks); blank lines are skipped.
func TestLines(t *testing.T) {
	var got []string
	next := Lines([]byte("\xef\xbb\xbf  a\n\n \r\nb\nc"), 10, func(t []byte, line, lead int) {
		got = append(got, string(t)+"@"+string(rune('0'+line-10))+"+"+string(rune('0'+lead)))
	})
	want := []string{"a@0+5", "b@3+0", "c@4+0"}
	if strings.Join(got, " ") != strings.Join(want, " ") || next != 15 {
		t.Fatalf("Lines: %v, next %d; want %v, 15", got, next, want)
	}
}

// Parse gives the blocks' results in input order, whatever order the
// workers finish in: 10,000 numbered lines, each block's result its first
// line and its lines' text, read back in one piece.
func TestParse(t *testing.T) {
	var in strings.Builder
	for i := range 10_000 {
		in.WriteString(strings.Repeat("x", i%97) + "\n")
	}
	type result struct {
		first, lines int
		text         string
	}
	next, stop := Parse(strings.NewReader(in.String()), 1, nil, 1<<20, func(b Block) result {
		return result{b.FirstLine, b.Lines(), string(b.Data)}
	})
	defer stop()
	var all strings.Builder
	line := 1
	for {
		r, ok := next()
		if !ok {
			break
		}
		if r.first != line {
			t.Fatalf("a block from line %d after line %d", r.first, line-1)
		}
		line += r.lines
		all.WriteString(r.text)
	}
	if all.String() != in.String() || line != 10_001 {
		t.Fatalf("results make %d bytes and %d lines; want %d and 10,000", all.Len(), line-1, in.Len())
	}
}
