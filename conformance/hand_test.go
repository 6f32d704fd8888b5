package conformance

import (
	"testing"
)

// Every hand-written case's expected figures agree with the plain
// reference: two independent derivations of each figure, one by hand in
// the case, one by exact arithmetic from the events.
func TestReferenceAgreesWithHandCases(t *testing.T) {
	cs := handCases()
	if len(cs) < 40 {
		t.Errorf("%d hand cases, want at least 40", len(cs))
	}
	for _, c := range cs {
		ref := toFigures(reference(c))
		differ, missing := Compare(c.Expected, ref)
		for _, d := range append(differ, missing...) {
			t.Errorf("%s: reference and case disagree: %v", c.ID, d)
		}
	}
}
