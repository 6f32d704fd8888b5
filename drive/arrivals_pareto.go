package drive

import (
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// pareto draws Pareto (type I) gaps of tail index Alpha whose mean,
// Alpha·xm/(Alpha−1), is 1/Rate: xm = (Alpha−1)/(Alpha·Rate). It takes
// gonum's Pareto distribution, seeded.
type pareto struct {
	dist distuv.Pareto
}

func newPareto(a Arrivals, seed uint64) *pareto {
	xm := (a.Alpha - 1) / (a.Alpha * a.Rate)
	return &pareto{dist: distuv.Pareto{Xm: xm, Alpha: a.Alpha, Src: newSource(seed)}}
}

func (p *pareto) next() time.Duration {
	return time.Duration(p.dist.Rand() * float64(time.Second))
}

func (p *pareto) restart() {}
