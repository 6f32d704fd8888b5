package table

import "time"

// Runs are runs of a table's rows, none of them across two blocks, kept in
// 12 bytes a run: a column read in place through them (Seg) needs no copy
// of its values, where a segment of its own takes 24 bytes a run. They
// hold a column's ok rows when some of those are left out too, which
// makes runs too short for segments (see OKColumns).
type Runs struct {
	t    *Table
	runs []uint32 // a run's block, its first row and the row past its last
}

// OKRunsBut returns the runs of the rows whose category in cat is zero
// (ok) and that skip does not leave out (skip is called with each ok row:
// its block and its index there), in input order, and the number of rows
// they hold. It returns false, with no runs, when their runs would take
// more memory than a copy of the rows' values, 8 bytes each.
func OKRunsBut[C ~uint8](t *Table, cat []C, skip func(b *Block, k int) bool) (Runs, int, bool) {
	runs, rows := 0, 0
	for _, run := range keptRuns(t, cat, skip) {
		runs, rows = runs+1, rows+int(run[2]-run[1])
	}
	if 12*runs >= 8*rows {
		return Runs{}, 0, false
	}
	r := Runs{t: t, runs: make([]uint32, 0, 3*runs)}
	for _, run := range keptRuns(t, cat, skip) {
		r.runs = append(r.runs, run[:]...)
	}
	return r, rows, true
}

// Len returns the number of runs.
func (r Runs) Len() int { return len(r.runs) / 3 }

// Seg returns a function giving run i's values of col, in place.
func (r Runs) Seg(col Column) func(i int) []time.Duration {
	return func(i int) []time.Duration {
		run := r.runs[3*i : 3*i+3 : 3*i+3]
		return col(r.t.Blocks[run[0]])[run[1]:run[2]:run[2]]
	}
}

// keptRuns yields each run of ok rows that skip keeps: its block's index,
// and the rows [lo, hi) of it.
func keptRuns[C ~uint8](t *Table, cat []C, skip func(b *Block, k int) bool) func(yield func(int, [3]uint32) bool) {
	return func(yield func(int, [3]uint32) bool) {
		for j, b := range t.Blocks {
			in := cat[t.first[j] : t.first[j]+b.n]
			for k := 0; k < len(in); {
				for k < len(in) && (in[k] != 0 || skip(b, k)) {
					k++
				}
				lo := k
				for k < len(in) && in[k] == 0 && !skip(b, k) {
					k++
				}
				if k > lo && !yield(j, [3]uint32{uint32(j), uint32(lo), uint32(k)}) {
					return
				}
			}
		}
	}
}

// Unstreamed reports whether row k of b is an answer whose text came at
// once, as the root package's Record.unstreamed reads a decoded row (no
// chunk arrivals, a count that is not negative): two or more tokens, its
// first and last text at the same time.
func Unstreamed(b *Block, k int) bool {
	n := int(b.Completion[k])
	if b.Rare(k) {
		_, n, _ = b.RareParts(k)
	}
	return n >= 2 && b.First[k] == b.Last[k]
}
