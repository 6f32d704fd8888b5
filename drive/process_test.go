package drive

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openPlan is an open loop of n requests with arrivals a, planned without
// a server.
func openPlan(a Arrivals, n int) Plan {
	p := plan("http://127.0.0.1:1")
	p.Arrivals, p.Rate, p.Requests, p.Seed = a, a.MeanRate(), n, 3
	return p
}

// ON-OFF sends nothing in its OFF windows: every arrival of 2,000 lies
// in the first 2 s of a 10 s cycle, the warm-up's and the measured part's
// each from their own start. The mean rate is 40·2/10 = 8 a second (by
// hand), so 2,000 arrivals span about 250 s; within 10 %.
func TestOnOffNothingInOff(t *testing.T) {
	a, err := ParseArrivals("onoff:on=2s,off=8s,rate=40")
	require.NoError(t, err)
	assert.Equal(t, 8.0, a.MeanRate())
	p := openPlan(a, 2000)
	p.Warmup.Requests = 30
	reqs, _, err := Schedule(p)
	require.NoError(t, err)
	require.Len(t, reqs, 2030)
	onWindows := map[time.Duration]bool{}
	for i, r := range reqs {
		require.True(t, r.HasSchedule)
		assert.Equal(t, i < 30, r.Warmup)
		assert.Less(t, r.Scheduled%(10*time.Second), 2*time.Second, "request %d at %v is in an OFF window", i+1, r.Scheduled)
		if !r.Warmup {
			onWindows[r.Scheduled/(10*time.Second)] = true
		}
	}
	last := reqs[len(reqs)-1].Scheduled.Seconds()
	assert.InDelta(t, 250, last, 25)
	assert.Greater(t, len(onWindows), 20, "arrivals come in every ON window, not in one")
}

// hill is the Hill estimator of a tail index from the k largest of xs:
// k / Σ_{i<k} ln(x_(i)/x_(k)), the x in decreasing order (Hill 1975).
func hill(xs []float64, k int) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	slices.Reverse(s)
	sum := 0.0
	for i := range k {
		sum += math.Log(s[i] / s[k])
	}
	return float64(k) / sum
}

// Pareto's tail index, estimated by Hill's estimator on the 2,000 largest
// of 10,000 gaps, is within 15 % of alpha (its standard error is about
// alpha/√2000, 2.2 %). Every gap is at least the scale xm that makes the
// mean gap 1/rate: (1.5−1)/(1.5·20) s = 16.67 ms, by hand.
func TestParetoTailIndex(t *testing.T) {
	for _, alpha := range []float64{1.2, 1.5, 2.5} {
		a := Arrivals{Process: "pareto", Alpha: alpha, Rate: 20}
		reqs, _, err := Schedule(openPlan(a, 10000))
		require.NoError(t, err)
		var gaps []float64
		prev := time.Duration(0)
		for _, r := range reqs {
			gaps = append(gaps, (r.Scheduled - prev).Seconds())
			prev = r.Scheduled
		}
		est := hill(gaps, 2000)
		assert.InEpsilon(t, alpha, est, 0.15, "alpha %v: Hill's estimate %v", alpha, est)
		if alpha == 1.5 {
			assert.GreaterOrEqual(t, slices.Min(gaps), 0.016666)
		}
	}
}

// The arrivals are seeded: the same seed draws the same schedule, another
// seed another.
func TestArrivalsSeeded(t *testing.T) {
	for _, s := range []string{"onoff:on=1s,off=1s,rate=10", "pareto:alpha=1.5,rate=20"} {
		a, err := ParseArrivals(s)
		require.NoError(t, err)
		assert.Equal(t, s, a.String())
		one, _, _ := Schedule(openPlan(a, 50))
		two, _, _ := Schedule(openPlan(a, 50))
		assert.Equal(t, one, two)
		p := openPlan(a, 50)
		p.Seed = 4
		other, _, _ := Schedule(p)
		assert.NotEqual(t, one, other)
	}
}

func TestParseArrivalsErrors(t *testing.T) {
	for _, s := range []string{
		"poisson", "onoff", "onoff:on=2s,off=8s", "onoff:on=2s,off=8s,rate=x", "onoff:on=0s,off=8s,rate=4",
		"onoff:on=2s,off=-1s,rate=4", "onoff:on=2s,on=3s,off=1s,rate=4", "pareto:alpha=1,rate=20",
		"pareto:alpha=1.5,rate=0", "pareto:alpha=1.5,rate=20,beta=2", "pareto:alpha=1.5;rate=20",
	} {
		_, err := ParseArrivals(s)
		assert.True(t, errors.Is(err, ErrArrivals), "%s: %v", s, err)
	}
}

// The requests Run sends keep the schedule that Schedule plans, to the
// nanosecond: each one's Client.Scheduled is the measured part's start
// plus its planned offset.
func TestRunKeepsSchedule(t *testing.T) {
	f := newFake(t, constant(time.Millisecond), time.Millisecond)
	for _, s := range []string{"onoff:on=60ms,off=100ms,rate=200", "pareto:alpha=1.5,rate=100"} {
		a, err := ParseArrivals(s)
		require.NoError(t, err)
		p := openPlan(a, 25)
		p.URL = f.URL + "/v1/chat/completions"
		want, _, err := Schedule(p)
		require.NoError(t, err)
		out, err := Run(context.Background(), p)
		require.NoError(t, err)
		require.Len(t, out.Results, len(want))
		base := out.Results[0].Record.Client.Scheduled - want[0].Scheduled
		for i, r := range out.Results {
			assert.Equal(t, want[i].Scheduled, r.Record.Client.Scheduled-base, "%s: request %d", s, i+1)
		}
	}
}
