package outofcore

import (
	"math"
	"math/bits"
	"time"
)

// The first pass counts values into logarithmic bins, before their range
// is known: a value's magnitude u falls in bin u itself below 2^(m+1),
// and above in the bin of its leading m+1 bits and its length, so that a
// bin spans at most 2^−m of its values (like a float's exponent and
// mantissa). Bins of equal width over the range would need a pass for the
// range first, and a single outlier (a stall of a minute among gaps of
// milliseconds) would crowd every other value into a few bins; the widths
// of logarithmic bins follow the values at every scale, whatever the
// extremes. Negative values are mirrored below zero's bin, so the bins
// keep the values' order.
//
// With m = maxMantissa there are (65 − m)·2^m bins for each sign, 901 KB
// of counts in all, and a bin holds the values within 0.1 % of each
// other.
const maxMantissa = 10

// logBins are the bins of the first pass, with m bits below the leading
// one.
type logBins struct{ m uint }

// binsFor returns the finest logarithmic bins whose counts fit in budget
// bytes, or false if none do.
func binsFor(budget int) (logBins, bool) {
	for m := maxMantissa; m >= 0; m-- {
		b := logBins{uint(m)}
		if 8*b.len() <= budget {
			return b, true
		}
	}
	return logBins{}, false
}

// half returns the number of bins of each sign: those of magnitudes 0
// through 2^63.
func (b logBins) half() int { return (65 - int(b.m)) << b.m }

// len returns the number of bins.
func (b logBins) len() int { return 2 * b.half() }

// of returns the bin of x.
func (b logBins) of(x time.Duration) int {
	if x >= 0 {
		return b.half() + b.mag(uint64(x))
	}
	return b.half() - b.mag(-uint64(x))
}

// mag returns the bin of a magnitude u.
func (b logBins) mag(u uint64) int {
	l := uint(bits.Len64(u))
	if l <= b.m+1 {
		return int(u)
	}
	s := l - b.m - 1
	return int(uint64(s)<<b.m + u>>s)
}

// magRange returns the least and greatest magnitudes of bin j, the latter
// capped at 2^63.
func (b logBins) magRange(j int) (lo, hi uint64) {
	if j < 2<<b.m {
		return uint64(j), uint64(j)
	}
	s := uint(j>>b.m) - 1
	lo = uint64(j-int(s<<b.m)) << s
	return lo, min(lo+(1<<s-1), 1<<63)
}

// span returns the least and greatest values bin i can hold.
func (b logBins) span(i int) (lo, hi time.Duration) {
	if i >= b.half() {
		l, h := b.magRange(i - b.half())
		return time.Duration(l), time.Duration(min(h, math.MaxInt64))
	}
	l, h := b.magRange(b.half() - i)
	return time.Duration(-h), time.Duration(-l) // −2^63 wraps to itself
}
