package blocks

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// Blocks' items written in their windows are closed up over the slots of
// lines that gave none, and a block without a window is copied in.
func TestSlots(t *testing.T) {
	d := NewSlots[string](3, 6) // lines 3 … 8
	if NewSlots[string](1, 0) != nil {
		t.Fatal("slots for no lines")
	}
	a, al, at := d.Window(3, 3)
	a, al = append(a, "x", "y"), append(al, 3, 5) // line 4 was blank
	d.Take(a, al, at)
	b, bl, bt := d.Window(6, 3)
	b, bl = append(b, "z"), append(bl, 7)
	d.Take(b, bl, bt)
	if _, _, at := d.Window(8, 2); at != -1 {
		t.Fatal("a window past the slots")
	}
	d.Take([]string{"w"}, []int{9}, -1) // the file grew
	items, lines := d.Done()
	if !slices.Equal(items, []string{"x", "y", "z", "w"}) || !slices.Equal(lines, []int{3, 5, 7, 9}) {
		t.Fatalf("Done = %q, %v", items, lines)
	}
	if rest := d.items[len(items):cap(d.items)]; slices.ContainsFunc(rest, func(s string) bool { return s != "" }) {
		t.Errorf("items held twice: %q", rest)
	}
}

// A room gives arenas while it lasts, then arenas of their own.
func TestRoom(t *testing.T) {
	r := NewRoom[int](5)
	a, b := r.Take(3), r.Take(3)
	if cap(a) != 3 || len(a) != 0 || &r.buf[0] != &a[:1][0] || cap(b) != 3 {
		t.Fatalf("arenas %d %d", cap(a), cap(b))
	}
	var none *Room[int]
	if c := none.Take(2); cap(c) != 2 {
		t.Fatalf("a nil room's arena: %d", cap(c))
	}
}

// Remove keeps the items not on the given lines, in order, and hands the
// others to gone; gone's error stops it.
func TestRemove(t *testing.T) {
	items := []string{"a", "b", "c", "d", "e"}
	lines := []int{1, 3, 4, 7, 9}
	var gone []string
	got, at, err := Remove(slices.Clone(items), slices.Clone(lines), []int{3, 9}, false, func(s *string, line int) error {
		gone = append(gone, fmt.Sprintf("%s@%d", *s, line))
		return nil
	})
	if err != nil || !slices.Equal(got, []string{"a", "c", "d"}) || !slices.Equal(at, []int{1, 4, 7}) || !slices.Equal(gone, []string{"b@3", "e@9"}) {
		t.Errorf("Remove = %v %v %v, gone %v", got, at, err, gone)
	}
	stop := errors.New("stop")
	_, _, err = Remove(slices.Clone(items), slices.Clone(lines), []int{4}, false, func(*string, int) error { return stop })
	if err != stop {
		t.Errorf("gone's error: %v", err)
	}
	got, _, _ = Remove(slices.Clone(items), slices.Clone(lines), nil, false, nil)
	if !slices.Equal(got, items) {
		t.Errorf("nothing removed: %v", got)
	}
	gone = nil
	got, at, _ = Remove(slices.Clone(items), slices.Clone(lines), []int{3, 9}, true, func(s *string, line int) error {
		gone = append(gone, *s)
		return nil
	})
	if !slices.Equal(got, []string{"b", "e"}) || !slices.Equal(at, []int{3, 9}) || !slices.Equal(gone, []string{"a", "c", "d"}) {
		t.Errorf("Remove of the others = %v %v, gone %v", got, at, gone)
	}
}
