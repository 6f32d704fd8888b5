package drive

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Arrivals is an open loop's arrival process beside gamma's: bursts of
// ON-OFF, or the heavy-tailed gaps of Pareto. Its zero value is none: the
// plan's Rate and Burstiness then draw gamma gaps. A plan with Arrivals
// has its mean rate (MeanRate) as Rate, which Check asks for, so that
// everything said of an open loop's offered rate holds for it.
type Arrivals struct {
	Process string  // "onoff" or "pareto"; "" for none
	Rate    float64 // arrivals a second: during the ON windows (onoff), on average (pareto)
	// On and Off are onoff's windows: from the start of each part of the
	// run (the warm-up, the measured part), On of Poisson arrivals at
	// Rate, then Off with none, and again.
	On, Off time.Duration
	// Alpha is pareto's tail index: the gaps are Pareto distributed,
	// P(gap > x) = (xm/x)^Alpha, with the scale xm that makes their mean
	// 1/Rate; it must exceed 1 (at 1 or below the mean gap is infinite).
	// The smaller, the heavier the tail: long silences between bursts of
	// gaps near xm.
	Alpha float64
}

// ErrArrivals is the error of an arrival process that cannot be drawn.
var ErrArrivals = errors.New("drive: arrivals")

// ParseArrivals reads an arrival process as --arrivals gives it:
// onoff:on=2s,off=8s,rate=40 or pareto:alpha=1.5,rate=20 (the keys in any
// order, each once).
func ParseArrivals(s string) (Arrivals, error) {
	name, rest, _ := strings.Cut(s, ":")
	a := Arrivals{Process: name}
	var want []string
	switch name {
	case "onoff":
		want = []string{"on", "off", "rate"}
	case "pareto":
		want = []string{"alpha", "rate"}
	default:
		return Arrivals{}, fmt.Errorf("%w %q: want onoff:on=D,off=D,rate=R or pareto:alpha=A,rate=R", ErrArrivals, s)
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || seen[k] {
			return Arrivals{}, fmt.Errorf("%w %q: %q is not a key=value given once", ErrArrivals, s, kv)
		}
		seen[k] = true
		var err error
		switch k {
		case "on", "off":
			var d time.Duration
			if d, err = time.ParseDuration(v); err == nil {
				if k == "on" {
					a.On = d
				} else {
					a.Off = d
				}
			}
		case "rate", "alpha":
			var f float64
			if f, err = strconv.ParseFloat(v, 64); err == nil {
				if k == "rate" {
					a.Rate = f
				} else {
					a.Alpha = f
				}
			}
		default:
			return Arrivals{}, fmt.Errorf("%w %q: unknown key %q (%s takes %s)", ErrArrivals, s, k, name, strings.Join(want, ", "))
		}
		if err != nil {
			return Arrivals{}, fmt.Errorf("%w %q: %s=%q is not a number", ErrArrivals, s, k, v)
		}
	}
	for _, k := range want {
		if !seen[k] {
			return Arrivals{}, fmt.Errorf("%w %q: %s needs %s", ErrArrivals, s, name, strings.Join(want, ", "))
		}
	}
	return a, a.check()
}

// check reports what makes the process impossible to draw.
func (a Arrivals) check() error {
	if !(a.Rate > 0) || math.IsInf(a.Rate, 0) {
		return fmt.Errorf("%w %s: the rate must be a positive number", ErrArrivals, a)
	}
	switch a.Process {
	case "onoff":
		if a.On <= 0 || a.Off < 0 {
			return fmt.Errorf("%w %s: on must be positive and off not negative", ErrArrivals, a)
		}
	case "pareto":
		if !(a.Alpha > 1) || math.IsInf(a.Alpha, 0) {
			return fmt.Errorf("%w %s: alpha must exceed 1 (at 1 or below the mean gap is infinite, and no rate can be kept)", ErrArrivals, a)
		}
	default:
		return fmt.Errorf("%w: unknown process %q", ErrArrivals, a.Process)
	}
	return nil
}

// MeanRate is the process's arrivals a second in the long run: Rate·On/(On+Off)
// for onoff, Rate for pareto.
func (a Arrivals) MeanRate() float64 {
	if a.Process == "onoff" {
		return a.Rate * float64(a.On) / float64(a.On+a.Off)
	}
	return a.Rate
}

// String gives the process as ParseArrivals reads it.
func (a Arrivals) String() string {
	switch a.Process {
	case "onoff":
		return fmt.Sprintf("onoff:on=%v,off=%v,rate=%v", a.On, a.Off, a.Rate)
	case "pareto":
		return fmt.Sprintf("pareto:alpha=%v,rate=%v", a.Alpha, a.Rate)
	}
	return a.Process
}

// gaps returns the process's gaps, seeded.
func (a Arrivals) gaps(seed uint64) (gaps, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	if a.Process == "onoff" {
		return newOnOff(a, seed), nil
	}
	return newPareto(a, seed), nil
}
