package inflight

import "testing"

func TestSpan(t *testing.T) {
	var a, b, none Span
	a.AddStart(5)
	a.AddStart(3)
	a.AddEnd(9)
	b.AddStart(4)
	b.AddEnd(12)
	b.AddEnd(10)
	a.Merge(&b)
	a.Merge(&none)
	if want := (Span{Start: 3, End: 12, HasStart: true, HasEnd: true}); a != want {
		t.Errorf("merged span %+v; want %+v", a, want)
	}
	// A start alone has no end; merged into a zero span it is taken.
	var c, d Span
	c.AddStart(-2)
	d.Merge(&c)
	if d.Start != -2 || !d.HasStart || d.HasEnd {
		t.Errorf("span of a start alone %+v; want start -2, no end", d)
	}
}
