package inflight

import "time"

// A Span is the earliest of the times it is shown as starts and the latest
// of those shown as ends, as a run's window runs from its first send to
// its last text. Its zero value has seen neither.
type Span struct {
	Start, End       time.Duration
	HasStart, HasEnd bool
}

// AddStart notes a start.
func (s *Span) AddStart(t time.Duration) {
	if !s.HasStart || t < s.Start {
		s.Start, s.HasStart = t, true
	}
}

// AddEnd notes an end.
func (s *Span) AddEnd(t time.Duration) {
	if !s.HasEnd || t > s.End {
		s.End, s.HasEnd = t, true
	}
}

// Merge takes in what another span noted.
func (s *Span) Merge(o *Span) {
	if o.HasStart {
		s.AddStart(o.Start)
	}
	if o.HasEnd {
		s.AddEnd(o.End)
	}
}
