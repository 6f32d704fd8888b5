package plural

import "testing"

func TestOf(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 requests"}, {1, "1 request"}, {2, "2 requests"}, {-1, "-1 requests"}} {
		if got := Of(c.n, "request"); got != c.want {
			t.Errorf("Of(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestOr(t *testing.T) {
	for _, c := range []struct {
		xs   []string
		want string
	}{
		{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"ttft", "tpot", "e2e", "max_gap"}, "ttft, tpot, e2e or max_gap"},
	} {
		if got := Or(c.xs); got != c.want {
			t.Errorf("Or(%q) = %q; want %q", c.xs, got, c.want)
		}
	}
}
