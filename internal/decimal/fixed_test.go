package decimal

import "testing"

func TestFixed(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int64
		ok   bool
	}{
		{"99.9", 99_900_000, true},
		{"7", 7_000_000, true},
		{"100", 100_000_000, true},
		{"0.000001", 1, true},
		{"007.5", 7_500_000, true},
		{"1000", 0, false},      // four whole digits
		{"1.0000001", 0, false}, // seven places
		{"1.", 0, false},
		{".5", 0, false},
		{"-1", 0, false},
		{"1e2", 0, false},
		{"", 0, false},
	} {
		got, ok := Fixed(c.s, 3, 6)
		if got != c.want || ok != c.ok {
			t.Errorf("Fixed(%q) = %d, %v; want %d, %v", c.s, got, ok, c.want, c.ok)
		}
	}
}

func TestFormatFixed(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want string
	}{
		{99_900_000, "99.9"}, {50_000_000, "50"}, {1, "0.000001"}, {0, "0"}, {12_345_678, "12.345678"},
	} {
		if got := FormatFixed(c.v, 6); got != c.want {
			t.Errorf("FormatFixed(%d) = %q; want %q", c.v, got, c.want)
		}
	}
}
