package llmmetrics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
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
		if e := r.validate(); e != nil {
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
