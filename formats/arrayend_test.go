package formats

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/internal/jsontok"
)

// endOneByOne is the plain search arrayEnd shares out: each ']' in turn,
// from the start, until one is followed by ']' (the end) or by anything
// but ',' (not the assumed shape).
func endOneByOne(b []byte, from int) (int, bool) {
	for i := from; i < len(b); i++ {
		if b[i] != ']' {
			continue
		}
		k := jsontok.Space(b, i+1)
		switch {
		case k < len(b) && b[k] == ']':
			return k, true
		case k >= len(b) || b[k] != ',':
			return 0, false
		}
	}
	return 0, false
}

func TestArrayEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		at   int
		ok   bool
		note string
	}{
		{"[[1],[2]]", 8, true, "the second ']' of the last pair"},
		{"[[1], [2] ] ,", 10, true, "white space inside"},
		{"[[1]]]]", 4, true, "the first pair, not a later one"},
		{"[[1],[2]}", 0, false, "a ']' followed by '}'"},
		{"[[1],[2]", 0, false, "no end"},
		{"[[1],[2] ", 0, false, "no end, white space last"},
		{"[[1] x [2]]", 0, false, "a ']' followed by a letter"},
		{"[[1],[2]], \"k\": [[3]x", 8, true, "what follows the end is not read"},
	} {
		for _, chunk := range []int{1, 2, 3, 5, 64} {
			for workers := 1; workers <= 4; workers++ {
				at, ok := arrayEnd([]byte(c.in), 1, workers, chunk)
				if ok != c.ok || ok && at != c.at {
					t.Errorf("%s: arrayEnd(%q, chunk %d, %d workers) = %d, %v; want %d, %v", c.note, c.in, chunk, workers, at, ok, c.at, c.ok)
				}
			}
		}
	}
}

// On random arrays of all shapes, arrayEnd finds what the search one ']'
// at a time finds, whatever the chunks and the number of goroutines.
func TestArrayEndRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	pieces := []string{"[", "]", ",", " ", "1", "\n", "}", "12.5"}
	for range 20_000 {
		var sb strings.Builder
		sb.WriteString("[")
		for range rng.IntN(40) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b := []byte(sb.String())
		wantAt, wantOK := endOneByOne(b, 1)
		chunk, workers := 1+rng.IntN(8), 1+rng.IntN(4)
		at, ok := arrayEnd(b, 1, workers, chunk)
		if ok != wantOK || ok && at != wantAt {
			t.Fatalf("arrayEnd(%q, chunk %d, %d workers) = %d, %v; one by one %d, %v", b, chunk, workers, at, ok, wantAt, wantOK)
		}
	}
}

func FuzzArrayEnd(f *testing.F) {
	for _, s := range []string{"[[1],[2]]", "[[1] ,[2] ] ", "[[]]", "[]", "[[1]}", "[[1],"} {
		f.Add([]byte(s), uint8(3), uint8(2))
	}
	f.Fuzz(func(t *testing.T, b []byte, chunk, workers uint8) {
		if len(b) == 0 {
			return
		}
		wantAt, wantOK := endOneByOne(b, 1)
		at, ok := arrayEnd(b, 1, 1+int(workers%8), 1+int(chunk))
		if ok != wantOK || ok && at != wantAt {
			t.Fatalf("arrayEnd(%q) = %d, %v; one by one %d, %v", b, at, ok, wantAt, wantOK)
		}
	})
}
