package formats

import (
	"math"
	"time"
)

// This file converts the times the tools write, as float seconds or
// milliseconds, to durations.

// seconds converts float seconds to a duration, rounded to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// millis converts float milliseconds to a duration, rounded to the
// nanosecond.
func millis(ms float64) time.Duration { return time.Duration(math.Round(ms * 1e6)) }
