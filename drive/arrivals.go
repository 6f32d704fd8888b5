package drive

import (
	"fmt"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
	"math/rand/v2"
)

// arrivals draws the gaps between the arrivals of an open loop: gamma
// distributed with mean 1/rate and shape burstiness (1 is a Poisson process,
// exponential gaps; below 1 burstier, above 1 more regular; the gaps'
// coefficient of variation is 1/√burstiness), as vLLM's benchmark draws
// them. It takes gonum's gamma distribution, seeded for reproducible runs.
type arrivals struct {
	gamma distuv.Gamma
}

func newArrivals(rate, burstiness float64, seed uint64) (*arrivals, error) {
	if !(rate > 0) {
		return nil, fmt.Errorf("drive: an open loop needs a positive rate, not %v", rate)
	}
	if burstiness == 0 {
		burstiness = 1
	}
	if !(burstiness > 0) {
		return nil, fmt.Errorf("drive: burstiness must be positive, not %v", burstiness)
	}
	return &arrivals{gamma: distuv.Gamma{Alpha: burstiness, Beta: rate * burstiness, Src: rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)}}, nil
}

// next returns the next gap.
func (a *arrivals) next() time.Duration {
	return time.Duration(a.gamma.Rand() * float64(time.Second))
}
