package drive

import (
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// onOff draws ON-OFF arrivals: a Poisson process of rate Rate that runs
// only in the ON windows. It counts the time spent ON (in whole
// nanoseconds) and maps it onto the clock, where each On of ON time is
// followed by Off of silence: an arrival at ON time u is at
// ⌊u/On⌋·(On+Off) + u mod On, which lies in an ON window by construction.
type onOff struct {
	exp     distuv.Exponential
	on, off time.Duration
	u       time.Duration // ON time of the last arrival, from the part's start
	at      time.Duration // its time on the clock
}

func newOnOff(a Arrivals, seed uint64) *onOff {
	return &onOff{exp: distuv.Exponential{Rate: a.Rate, Src: newSource(seed)}, on: a.On, off: a.Off}
}

func (o *onOff) next() time.Duration {
	o.u += time.Duration(o.exp.Rand() * float64(time.Second))
	at := o.u/o.on*(o.on+o.off) + o.u%o.on
	gap := at - o.at
	o.at = at
	return gap
}

func (o *onOff) restart() { o.u, o.at = 0, 0 }
