package drive

import (
	"fmt"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
	"math/rand/v2"
)

// gaps draws the gaps between the arrivals of an open loop, in order.
type gaps interface {
	next() time.Duration
	// restart begins a part of the run (the warm-up, the measured part):
	// ON-OFF's windows begin again at its start; the other processes go on.
	restart()
}

// newGaps returns the plan's arrival process: its Replay's schedule, its
// Arrivals, or gamma gaps of its Rate and Burstiness.
func newGaps(p Plan) (gaps, error) {
	switch {
	case len(p.Replay) > 0:
		return newReplayGaps(p.Replay), nil
	case p.Arrivals.Process != "":
		return p.Arrivals.gaps(p.Seed)
	}
	return newArrivals(p.Rate, p.Burstiness, p.Seed)
}

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
	return &arrivals{gamma: distuv.Gamma{Alpha: burstiness, Beta: rate * burstiness, Src: newSource(seed)}}, nil
}

// newSource returns the seeded source of an arrival process.
func newSource(seed uint64) rand.Source { return rand.NewPCG(seed, seed^0x9e3779b97f4a7c15) }

// next returns the next gap.
func (a *arrivals) next() time.Duration {
	return time.Duration(a.gamma.Rand() * float64(time.Second))
}

func (a *arrivals) restart() {}
