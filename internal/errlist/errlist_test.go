package errlist

import (
	"errors"
	"fmt"
	"testing"
)

// Seven kept and two unlisted: the message shows five and counts the
// other 2 + 2 = 4; Unwrap gives the kind first, then all seven.
func TestList(t *testing.T) {
	kind := errors.New("bad rows")
	var errs []error
	for i := range 7 {
		errs = append(errs, fmt.Errorf("p: row %d", i))
	}
	l := &List[error]{Errs: errs, Unlisted: 2, Kind: kind, Head: "p: 9 rows", Prefix: "p: "}
	const want = "p: 9 rows; row 0; row 1; row 2; row 3; row 4; and 4 more"
	if got := l.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(l, kind) || !errors.Is(l, errs[6]) {
		t.Error("errors.Is does not see the kind and every error")
	}
	if got := len(l.Unwrap()); got != 8 {
		t.Errorf("Unwrap gives %d errors, want 8", got)
	}
	if got := (&List[error]{Errs: errs[:1], Head: "h"}).Error(); got != "h; p: row 0" {
		t.Errorf("no prefix to trim: %q", got)
	}
}
