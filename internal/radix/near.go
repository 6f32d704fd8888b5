package radix

// The ends of requests, taken in the order of their sends, are nearly in
// order: each is behind only those of the few requests in flight that end
// later. Moving each value back past the larger ones before it (insertion
// sort) then sorts them in one pass, where a radix sort makes several
// whatever the order. How far the values are out of order is not known
// before: the insertion stops as soon as its moves exceed nearMoves a
// value on average (with nearSlack to spare), and a radix sort finishes.
// What the insertion did is not lost: the values are still all there, in
// a sorted prefix.
const (
	nearMoves = 16
	nearSlack = 1 << 16
)

// SortNear sorts xs in increasing order, as Sort does, in one pass when
// its values are nearly in order already (see nearMoves).
func SortNear[T ~int64 | ~uint64](xs []T) {
	moves := 0
	for i := 1; i < len(xs); i++ {
		x := xs[i]
		j := i
		for j > 0 && xs[j-1] > x {
			xs[j] = xs[j-1]
			j--
		}
		xs[j] = x
		moves += i - j
		if moves > nearMoves*i+nearSlack {
			Sort(xs)
			return
		}
	}
}
