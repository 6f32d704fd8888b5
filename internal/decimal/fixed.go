package decimal

import (
	"fmt"
	"strconv"
	"strings"
)

// Fixed reads s as a decimal of at most whole digits before its point and
// places after it, into a whole number of units of 10^−places: "99.9"
// with six places is 99_900_000. It is false for anything else: a sign,
// no digit before the point, a point with none after it, any other
// character. places is at most 6.
func Fixed(s string, whole, places int) (int64, bool) {
	w, frac, _ := strings.Cut(s, ".")
	if w == "" || len(w) > whole || len(frac) > places || strings.HasSuffix(s, ".") {
		return 0, false
	}
	var v int64
	for _, c := range w + frac + strings.Repeat("0", places-len(frac)) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// FormatFixed writes v units of 10^−places, v ≥ 0, in its shortest
// decimal form: 99_900_000 with six places is "99.9", 50_000_000 is "50".
// places is at most 6.
func FormatFixed(v int64, places int) string {
	scale := pow10int[places]
	s := strconv.FormatInt(v/scale, 10)
	if f := v % scale; f != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%0*d", places, f), "0")
	}
	return s
}
