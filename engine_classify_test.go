package llmmetrics

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// classifyByMap is the plain statement of classify: records in input
// order, a map from each id to the first valid record that has it.
func classifyByMap(recs []Record, lines []int) ([]Category, *Run) {
	cat := make([]Category, len(recs))
	bad := &Run{}
	seen := map[string]int{}
	src := &source{recs: recs, lines: lines}
	for i := range recs {
		r := &recs[i]
		if e := r.validateOrdered(false); e != nil {
			bad.Reject(src.recordError(i, e.Field, e.Err))
			cat[i] = CategoryRejected
			continue
		}
		if r.ID != "" {
			if j, dup := seen[r.ID]; dup {
				bad.Reject(src.recordError(i, "id", fmt.Errorf("%w: also %s", ErrDuplicateID, src.where(j))))
				cat[i] = CategoryRejected
				continue
			}
			seen[r.ID] = i
		}
		cat[i] = r.Category()
	}
	return cat, bad
}

// classify, which validates on every core and finds repeated ids by their
// hashes, agrees with the map: the same categories and the same errors in
// the same order, for runs small and large, few ids and many.
func TestClassifyAsMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 100, 5000, 40000} {
		for _, ids := range []int{1, 3, n/2 + 1, 4 * n} {
			recs := make([]Record, n)
			lines := make([]int, n)
			for i := range recs {
				recs[i] = Record{ID: fmt.Sprintf("r%d", rng.IntN(ids+1)), CompletionTokens: 2, FirstText: 5, LastText: 9}
				switch rng.IntN(10) {
				case 0:
					recs[i].ID = ""
				case 1:
					recs[i].LastText = 1 // before the first text: invalid
				case 2:
					recs[i].Status = StatusError
				}
				lines[i] = 2*i + 3
			}
			for _, l := range [][]int{nil, lines} {
				cat, bad := classify(recs, l)
				wantCat, wantBad := classifyByMap(recs, l)
				if !slices.Equal(cat, wantCat) || fmt.Sprint(bad.Rejected) != fmt.Sprint(wantBad.Rejected) || bad.Unlisted != wantBad.Unlisted {
					t.Fatalf("n %d, %d ids: classify disagrees with the map:\n%v\n%v", n, ids, bad.Rejected, wantBad.Rejected)
				}
			}
		}
	}
}

// Pooling the gaps while validating (classifyPooling) rejects what the
// map rejects, and pools exactly the gaps of the valid ok records, their
// squares summed exactly, each record's largest gap kept: for records
// whose chunks go backwards (where validation must still read them),
// with one chunk, failed, and with gaps of more than 2³² ns (whose
// squares take the long sum).
func TestClassifyPoolingGaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	recs := make([]Record, 20_000) // several parts, on every core
	for i := range recs {
		k := 2 + rng.IntN(6)
		chunks := make([]time.Duration, k)
		at := time.Duration(rng.IntN(1000))
		for j := range chunks {
			chunks[j] = at
			at += time.Duration(rng.IntN(50)) * time.Millisecond
		}
		r := Record{ID: fmt.Sprint("r", i), CompletionTokens: k}
		switch rng.IntN(8) {
		case 0:
			chunks[1+rng.IntN(k-1)] = chunks[0] - 1 // backwards, anywhere after the first
		case 1:
			chunks[k-1] += 5 * time.Second
		case 2:
			r.Status = StatusError
		case 3:
			chunks = chunks[:1]
		}
		r.Chunks = chunks
		recs[i] = r
	}
	c := classifyPooling(&source{recs: recs}, true)
	cat, bad, pg := c.cat, c.bad, c.pg
	wantCat, wantBad := classifyByMap(recs, nil)
	if !slices.Equal(cat, wantCat) || fmt.Sprint(bad.Rejected) != fmt.Sprint(wantBad.Rejected) || bad.Unlisted != wantBad.Unlisted {
		t.Fatalf("classifyPooling disagrees with the map:\n%v\n%v", bad.Rejected, wantBad.Rejected)
	}
	want := moments{Squared: true}
	pooled := 0
	for i, r := range recs {
		if wantCat[i] != CategoryOK || len(r.Chunks) < 2 {
			continue
		}
		pooled++
		most := time.Duration(-1)
		for j := 1; j < len(r.Chunks); j++ {
			g := r.Chunks[j] - r.Chunks[j-1]
			want.Add(g)
			want.Squares.AddSquare(g)
			most = max(most, g)
		}
		if pg.most[i] != most {
			t.Fatalf("record %d: largest gap %v, want %v", i, pg.most[i], most)
		}
	}
	if pooled < 1000 || len(bad.Rejected) < 100 {
		t.Fatalf("%d records pooled, %d rejected: not the mix the test wants", pooled, len(bad.Rejected))
	}
	if !reflect.DeepEqual(pg.mo, want) {
		t.Fatalf("pooled moments %+v, want %+v", pg.mo, want)
	}
}

// The tallies taken while validating are those tallyAll takes after, run
// by run, when no repeated id changes a category; with one, there are
// none, and tallyAll counts again.
func TestTallyWhileValidating(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for _, n := range []int{1, 100, 20_000} {
		for _, repeat := range []bool{false, true} {
			recs := make([]Record, n)
			for i := range recs {
				r := Record{ID: fmt.Sprint("r", i), Sent: time.Duration(rng.IntN(1000)) * time.Millisecond, PromptTokens: rng.IntN(50),
					CompletionTokens: 1 + rng.IntN(4), FirstText: 5, LastText: 9 + time.Duration(rng.IntN(100))}
				switch rng.IntN(8) {
				case 0:
					r.LastText = 1 // before the first text: invalid
				case 1:
					r.Status = StatusTimeout
				case 2:
					r.CompletionTokens, r.FirstText, r.LastText = 0, 0, 0
				case 3:
					r.Warmup = true
				}
				recs[i] = r
			}
			if repeat { // two valid records with one id
				recs[0] = Record{ID: "r0", CompletionTokens: 2, FirstText: 5, LastText: 9}
				recs[n-1] = recs[0]
			}
			src := &source{recs: recs}
			c := classifyPooling(src, true)
			if repeat && n > 1 {
				if c.each != nil {
					t.Fatalf("n %d: a repeated id, yet tallies kept", n)
				}
				continue
			}
			_, want := tallyAll(src, c.cat, nil)
			if !reflect.DeepEqual(c.each, want) {
				t.Fatalf("n %d: tallies while validating\n%+v\nwant\n%+v", n, c.each, want)
			}
		}
	}
}
