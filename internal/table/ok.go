package table

import (
	"encoding/binary"
	"iter"
	"math/bits"
	"time"
	"unsafe"
)

// OKColumns returns, for each of the given columns, the values of the rows
// whose category in cat is zero (ok), in input order, as segments of the
// table's own column: one segment for each run of ok rows in a block, so
// that a sample of them needs no copy. cat holds a category for each row.
// It returns false when the runs are too short for their segments to take
// less memory than copies would.
func OKColumns[C ~uint8](t *Table, cat []C, cols ...Column) (segs [][][]time.Duration, fits bool) {
	// A segment takes 24 bytes, where a copy takes 8 for each row:
	// segments must average more than 3 rows; at 16, they take a fifth of
	// the copies' memory at most.
	const minRun = 16
	runs, ok := okRuns(t, cat)
	if runs > ok/minRun {
		return nil, false
	}
	segs = make([][][]time.Duration, len(cols))
	for c := range cols {
		segs[c] = make([][]time.Duration, 0, runs)
	}
	for b, run := range okSpans(t, cat) {
		for c, col := range cols {
			segs[c] = append(segs[c], col(b)[run[0]:run[1]:run[1]])
		}
	}
	return segs, true
}

// A Column is one of a block's columns of times.
type Column func(b *Block) []time.Duration

// The columns of times. A block without send times has no SentColumn
// (see Block.SentOf): OKColumns and Runs.Seg must not be asked for it.
func SentColumn(b *Block) []time.Duration  { return b.Sent }
func FirstColumn(b *Block) []time.Duration { return b.First }
func LastColumn(b *Block) []time.Duration  { return b.Last }

// okRuns returns the number of runs of ok rows, none of them across two
// blocks, and the number of such rows.
func okRuns[C ~uint8](t *Table, cat []C) (runs, ok int) {
	for _, run := range okSpans(t, cat) {
		runs, ok = runs+1, ok+run[1]-run[0]
	}
	return runs, ok
}

// okSpans yields each run of ok rows, none of them across two blocks: its
// block and the rows [lo, hi) of it.
func okSpans[C ~uint8](t *Table, cat []C) iter.Seq2[*Block, [2]int] {
	return func(yield func(*Block, [2]int) bool) {
		for j, b := range t.Blocks {
			in := cat[t.first[j] : t.first[j]+b.n]
			for k := 0; k < len(in); {
				if in[k] != 0 {
					k++
					continue
				}
				end := okEnd(in, k)
				if !yield(b, [2]int{k, end}) {
					return
				}
				k = end
			}
		}
	}
}

// okEnd returns the index of the first of cat from k on that is not zero
// (ok), or len(cat). Runs of ok rows are long: they are read eight
// categories at a time.
func okEnd[C ~uint8](cat []C, k int) int {
	for ; k+8 <= len(cat); k += 8 {
		if w := binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Pointer(&cat[k])), 8)); w != 0 {
			return k + bits.TrailingZeros64(w)/8
		}
	}
	for k < len(cat) && cat[k] == 0 {
		k++
	}
	return k
}
