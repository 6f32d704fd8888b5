package radix

import "iter"

// Merge yields the values of sorted runs in increasing order.
func Merge(runs [][]uint64) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		switch len(runs) {
		case 0:
		case 1:
			for _, k := range runs[0] {
				if !yield(k) {
					return
				}
			}
		case 2:
			a, b := runs[0], runs[1]
			for len(a) > 0 && len(b) > 0 {
				var k uint64
				if a[0] <= b[0] {
					k, a = a[0], a[1:]
				} else {
					k, b = b[0], b[1:]
				}
				if !yield(k) {
					return
				}
			}
			for _, rest := range [2][]uint64{a, b} {
				for _, k := range rest {
					if !yield(k) {
						return
					}
				}
			}
		default:
			mergeHeap(runs, yield)
		}
	}
}

// mergeHeap yields the keys of three or more sorted runs in increasing
// order, taking the least of the runs' first keys from a heap.
func mergeHeap(runs [][]uint64, yield func(uint64) bool) {
	h := make([][]uint64, 0, len(runs)) // a heap of runs by first key
	for _, r := range runs {
		if len(r) > 0 {
			h = append(h, r)
		}
	}
	less := func(i, j int) bool { return h[i][0] < h[j][0] }
	down := func(i int) {
		for {
			m := i
			if l := 2*i + 1; l < len(h) && less(l, m) {
				m = l
			}
			if r := 2*i + 2; r < len(h) && less(r, m) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		if !yield(h[0][0]) {
			return
		}
		if h[0] = h[0][1:]; len(h[0]) == 0 {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
}
