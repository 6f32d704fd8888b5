package formats

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
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

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

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
	escaped := false
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '\\':
			escaped = true
			s.i += 2
		case c == '"':
			s.i++
			if !escaped {
				return string(s.b[start+1 : s.i-1]), nil
			}
			var out string
			if err := json.Unmarshal(s.b[start:s.i], &out); err != nil {
				return "", s.errorf("bad string: %v", err)
			}
			return out, nil
		case c < 0x20:
			return "", s.errorf("control character in string")
		default:
			s.i++
		}
	}
	return "", s.errorf("%v inside a string", errEOF)
}

// literal consumes word if it comes next.
func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
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

// number reads a number. Python's json module writes NaN, Infinity and
// -Infinity for non-finite floats; they are read as such, and the caller
// decides whether they are allowed.
//
// Numbers are parsed by a fast path that covers what benchmark tools write
// (up to 19 significant digits, a decimal exponent within ±22 after
// normalisation): the digits are gathered into an integer and scaled by an
// exact power of ten. With at most 15 digits the result is correctly rounded;
// with more it is within one unit in the last place of it. Anything else goes
// to strconv.ParseFloat.
func (s *scanner) number() (float64, error) {
	b, i := s.b, s.i
	start := i
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
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	var mant uint64
	digits, exp10, intDigits := 0, 0, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		intDigits++
		if digits < 19 {
			mant = mant*10 + uint64(b[i]-'0')
			if mant != 0 {
				digits++
			}
		} else {
			exp10++
		}
	}
	if intDigits == 0 {
		return 0, s.errorf("bad number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		frac := 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			frac++
			if digits < 19 {
				mant = mant*10 + uint64(b[i]-'0')
				if mant != 0 {
					digits++
				}
				exp10--
			}
		}
		if frac == 0 {
			return 0, s.errorf("bad number")
		}
	}

	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		e, n := 0, 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			n++
			if e < 10000 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if n == 0 {
			return 0, s.errorf("bad number")
		}
		if eneg {
			e = -e
		}
		exp10 += e
	}
	s.i = i
	if exp10 < -22 || exp10 > 22 {
		f, err := strconv.ParseFloat(string(b[start:i]), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, s.errorf("bad number %q", b[start:i])
		}
		return f, nil
	}
	f := float64(mant)
	if exp10 < 0 {
		f /= pow10[-exp10]
	} else {
		f *= pow10[exp10]
	}
	if neg {
		f = -f
	}
	return f, nil
}

var pow10 = func() (p [23]float64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

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

// floatLists reads an array of arrays of numbers: their values are appended
// to dst, and ends gets the end offset in dst of each inner array.
func (s *scanner) floatLists(dst []float64, ends []int) ([]float64, []int, error) {
	if err := s.expect('['); err != nil {
		return dst, ends, err
	}
	for first := true; ; first = false {
		more, err := s.more(']', first)
		if err != nil || !more {
			return dst, ends, err
		}
		if dst, err = s.floats(dst); err != nil {
			return dst, ends, err
		}
		ends = append(ends, len(dst))
	}
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
