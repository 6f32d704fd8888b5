package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/llmmetrics/llmmetrics/internal/decimal"
	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/jsontok"
)

// scanner reads a JSON document held in memory, one value at a time, for
// the importers of large result files: it parses arrays of numbers straight
// into slices, without building a tree or boxing values, and skips what an
// importer does not need. Errors give the byte offset.
type scanner struct {
	b []byte
	i int
}

var errEOF = errors.New("unexpected end of input")

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("%s at byte %d", fmt.Sprintf(format, args...), s.i)
}

// ws skips white space.
func (s *scanner) ws() { s.i = jsontok.Space(s.b, s.i) }

// peek returns the next byte that is not white space, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) expect(c byte) error {
	switch s.peek() {
	case c:
		s.i++
		return nil
	case 0:
		return s.errorf("%v, want %q", errEOF, c)
	}
	return s.errorf("found %q, want %q", s.b[s.i], c)
}

// more reports whether a container has another element, consuming the comma
// between elements; end is ']' or '}'.
func (s *scanner) more(end byte, first bool) (bool, error) {
	switch c := s.peek(); {
	case c == end:
		s.i++
		return false, nil
	case first:
		return true, nil
	case c == ',':
		s.i++
		return true, nil
	case c == 0:
		return false, s.errorf("%v inside a container", errEOF)
	default:
		return false, s.errorf("found %q, want ',' or %q", c, end)
	}
}

// str reads a string.
func (s *scanner) str() (string, error) {
	if err := s.expect('"'); err != nil {
		return "", err
	}
	start := s.i - 1
	end, escaped, _, err := jsontok.String(s.b, start)
	s.i = end
	switch err {
	case nil:
	case jsontok.ErrControl:
		return "", s.errorf("control character in string")
	default:
		return "", s.errorf("%v inside a string", errEOF)
	}
	if !escaped {
		return string(s.b[start+1 : end-1]), nil
	}
	var out string
	if err := json.Unmarshal(s.b[start:end], &out); err != nil {
		return "", s.errorf("bad string: %v", err)
	}
	return out, nil
}

// literal consumes word if it comes next.
func (s *scanner) literal(word string) bool {
	if jsontok.Literal(s.b, s.i, word) {
		s.i += len(word)
		return true
	}
	return false
}

// skip reads past one value of any kind.
func (s *scanner) skip() error {
	switch c := s.peek(); c {
	case '"':
		_, err := s.str()
		return err
	case '[', '{':
		end := byte(']')
		if c == '{' {
			end = '}'
		}
		s.i++
		for first := true; ; first = false {
			more, err := s.more(end, first)
			if err != nil || !more {
				return err
			}
			if c == '{' {
				if _, err := s.str(); err != nil {
					return err
				}
				if err := s.expect(':'); err != nil {
					return err
				}
			}
			if err := s.skip(); err != nil {
				return err
			}
		}
	case 0:
		return s.errorf("%v, want a value", errEOF)
	default:
		if s.literal("true") || s.literal("false") || s.literal("null") {
			return nil
		}
		_, err := s.number()
		return err
	}
}

// null consumes a null if it comes next.
func (s *scanner) null() bool {
	s.ws()
	return s.literal("null")
}

// number reads a number, as decimal.Parse does. Python's json module
// writes NaN, Infinity and -Infinity for non-finite floats; they are read
// as such, and the caller decides whether they are allowed.
func (s *scanner) number() (float64, error) {
	b, i := s.b, s.i
	if i < len(b) && (b[i] == 'N' || b[i] == 'I' || (b[i] == '-' && i+1 < len(b) && b[i+1] == 'I')) {
		switch {
		case s.literal("NaN"):
			return math.NaN(), nil
		case s.literal("Infinity"):
			return math.Inf(1), nil
		case s.literal("-Infinity"):
			return math.Inf(-1), nil
		}
	}
	f, n, ok := decimal.Parse(b[i:])
	s.i += n
	if !ok {
		if n == 0 {
			return 0, s.errorf("bad number")
		}
		return 0, s.errorf("bad number %q", b[i:s.i])
	}
	return f, nil
}

// floats reads an array of numbers, appending them to dst.
func (s *scanner) floats(dst []float64) ([]float64, error) {
	if err := s.expect('['); err != nil {
		return dst, err
	}
	for first := true; ; first = false {
		more, err := s.more(']', first)
		if err != nil || !more {
			return dst, err
		}
		s.ws()
		f, err := s.number()
		if err != nil {
			return dst, err
		}
		dst = append(dst, f)
	}
}

// floatLists reads an array of arrays of numbers, and returns each inner
// array as a slice (the slices share backing arrays). A large array is split
// at inner-array boundaries and parsed by up to workers goroutines; if the
// split does not parse cleanly, the array is parsed again in one piece, so
// that errors are found and placed exactly as without the split.
func (s *scanner) floatLists(workers int) ([][]float64, error) {
	if err := s.expect('['); err != nil {
		return nil, err
	}
	open := s.i - 1
	if workers > 1 && len(s.b)-open > 1<<20 {
		if lists, ok := s.floatListsSplit(open, workers); ok {
			return lists, nil
		}
	}
	s.i = open + 1
	return s.innerLists(len(s.b), true)
}

// innerLists reads inner arrays separated by commas up to the closing ']'
// of the outer array (closed true), or up to end (closed false).
func (s *scanner) innerLists(end int, closed bool) ([][]float64, error) {
	var lists [][]float64
	vals := hugepage.Make[float64](0, (end-s.i)/20)
	for first := true; ; first = false {
		if !closed && s.peek() == 0 || s.i >= end {
			break
		}
		if closed {
			more, err := s.more(']', first)
			if err != nil {
				return nil, err
			}
			if !more {
				break
			}
		} else if !first {
			if err := s.expect(','); err != nil {
				return nil, err
			}
		}
		from := len(vals)
		var err error
		if vals, err = s.floats(vals); err != nil {
			return nil, err
		}
		lists = append(lists, vals[from:len(vals):len(vals)])
	}
	// vals may have been reallocated as it grew: take the slices again.
	at := 0
	for i, l := range lists {
		lists[i] = vals[at : at+len(l) : at+len(l)]
		at += len(l)
	}
	return lists, nil
}

// floatListsSplit finds the end of the outer array that opens at open, cuts
// it into parts at inner-array boundaries and parses the parts
// concurrently. It reports false when the array does not have the simple
// shape the cuts assume.
func (s *scanner) floatListsSplit(open, workers int) ([][]float64, bool) {
	b := s.b
	if k := jsontok.Space(b, open+1); k >= len(b) || b[k] != '[' {
		return nil, false
	}
	closeAt, ok := arrayEnd(b, open+1, workers, endChunk)
	if !ok {
		return nil, false
	}
	// Cut at the commas that follow an inner array's ']': part p runs from
	// starts[p] to ends[p], and the comma between parts belongs to neither.
	starts, ends := []int{open + 1}, []int{}
	for w := 1; w < workers; w++ {
		p := open + (closeAt-open)*w/workers
		if p <= starts[len(starts)-1] {
			continue
		}
		j := bytes.IndexByte(b[p:closeAt], ']')
		if j < 0 {
			break
		}
		k := jsontok.Space(b, p+j+1)
		if k >= closeAt || b[k] != ',' {
			break
		}
		ends = append(ends, k)
		starts = append(starts, k+1)
	}
	ends = append(ends, closeAt)
	parts := make([][][]float64, len(starts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub := &scanner{b: b[:ends[p]], i: starts[p]}
			parts[p], errs[p] = sub.innerLists(ends[p], false)
		}()
	}
	wg.Wait()
	n := 0
	for p := range parts {
		if errs[p] != nil {
			return nil, false
		}
		n += len(parts[p])
	}
	lists := make([][]float64, 0, n)
	for _, part := range parts {
		lists = append(lists, part...)
	}
	s.i = closeAt + 1
	return lists, true
}

// strs reads an array of strings (null is read as "").
func (s *scanner) strs(dst []string) ([]string, error) {
	if err := s.expect('['); err != nil {
		return dst, err
	}
	for first := true; ; first = false {
		more, err := s.more(']', first)
		if err != nil || !more {
			return dst, err
		}
		if s.null() {
			dst = append(dst, "")
			continue
		}
		v, err := s.str()
		if err != nil {
			return dst, err
		}
		dst = append(dst, v)
	}
}
