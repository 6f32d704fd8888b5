// Package decimal reads decimal numbers from bytes without strconv where
// it can, giving what strconv gives: the digits into an integer and a power
// of ten, and from them a correctly rounded float64, a whole number of
// nanoseconds, or a count. The readers of the project's formats and of
// other tools' result files share it.
package decimal

// pow10int holds 10⁰ … 10⁶.
var pow10int = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000}

// Plain reads the digits at the start of b, with at most one point
// among them, in two tight loops (before the point and after it): m is the
// integer of all the digits, n the bytes read, digits and decimals the
// numbers of digits in all and after the point.
func Plain(b []byte) (m uint64, n, digits, decimals int) {
	i := 0
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		m = m*10 + uint64(b[i]-'0')
	}
	digits = i
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for ; i < len(b) && b[i]-'0' <= 9; i++ {
			m = m*10 + uint64(b[i]-'0')
		}
		decimals = i - start
		digits += decimals
	}
	return m, i, digits, decimals
}

// MillisNanos returns the nanoseconds of the milliseconds whose digits,
// at most 15 of them, make m, decimals of them after the point, and
// whether it can without a division. With at most six decimals the value
// is a whole number of nanoseconds, m·10^(6−decimals); parsing the
// milliseconds as a float64 (strconv.ParseFloat, or Float) and rounding
// their product by 10⁶ gives exactly that whenever it is below 2⁵¹: its two
// roundings (the division and the product by 10⁶) are each within 2⁻⁵³
// of their exact values, so it is within 2⁻⁵² of the whole number, less
// than 0.5 below 2⁵¹, and math.Round lands on it.
func MillisNanos(m uint64, digits, decimals int) (int64, bool) {
	if digits == 0 || digits > 15 || decimals > 6 {
		return 0, false
	}
	p := uint64(pow10int[6-decimals])
	if m >= (1<<51)/p {
		return 0, false
	}
	return int64(m * p), true
}

// Count parses the count of at most nine digits at the start of b,
// which cannot overflow. It returns the count and the bytes read,
// or 0 bytes when the start of b is no such count.
func Count(b []byte) (int, int) {
	n, i := 0, 0
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		n = n*10 + int(b[i]-'0')
	}
	if i == 0 || i > 9 {
		return 0, 0
	}
	return n, i
}
