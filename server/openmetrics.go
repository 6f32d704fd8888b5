package server

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// isOpenMetrics reports whether a scrape is in the OpenMetrics text format,
// which ends with a "# EOF" line.
func isOpenMetrics(b []byte) bool {
	t := bytes.TrimRight(b, " \t\r\n")
	return bytes.HasSuffix(t, []byte("\n# EOF")) || bytes.Equal(t, []byte("# EOF"))
}

// openMetricsToText rewrites an OpenMetrics scrape into the Prometheus text
// format the parser reads: a counter family "x" becomes "x_total", every
// "_created" sample moves to a gauge family of its own (so that a restart
// shows as a changed value), and exemplars, timestamps, # UNIT and # EOF
// lines are dropped, since a window uses none of them.
func openMetricsToText(b []byte) ([]byte, error) {
	var out, created bytes.Buffer
	createdFamilies := map[string]bool{}
	family, typ := "", ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		l := sc.Text()
		switch {
		case l == "# EOF" || strings.HasPrefix(l, "# UNIT "):
			continue
		case strings.HasPrefix(l, "# TYPE ") || strings.HasPrefix(l, "# HELP "):
			f := strings.Fields(l)
			if len(f) < 3 {
				return nil, fmt.Errorf("%w: line %d: %q", ErrScrape, line, l)
			}
			if f[1] == "TYPE" {
				family, typ = f[2], ""
				if len(f) > 3 {
					typ = f[3]
				}
			}
			if typ == "counter" && f[2] == family && !strings.HasSuffix(family, "_total") {
				l = "# " + f[1] + " " + family + "_total" + strings.TrimPrefix(l, "# "+f[1]+" "+family)
			}
			out.WriteString(l + "\n")
		case strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "":
			out.WriteString(l + "\n")
		default:
			sample := stripExemplarAndTimestamp(l)
			name := sample
			if i := strings.IndexAny(sample, "{ "); i >= 0 {
				name = sample[:i]
			}
			if base, ok := strings.CutSuffix(name, "_created"); ok && base == family {
				if !createdFamilies[name] {
					createdFamilies[name] = true
					created.WriteString("# TYPE " + name + " gauge\n")
				}
				created.WriteString(sample + "\n")
				continue
			}
			out.WriteString(sample + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrScrape, err)
	}
	out.Write(created.Bytes())
	return out.Bytes(), nil
}

// stripExemplarAndTimestamp returns "name{labels} value" of an OpenMetrics
// sample line.
func stripExemplarAndTimestamp(l string) string {
	rest := l
	head := ""
	if i := strings.IndexByte(l, '{'); i >= 0 {
		// Skip the label set, minding quoted values.
		inQuote, esc := false, false
		for j := i; j < len(l); j++ {
			c := l[j]
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inQuote = !inQuote
			case c == '}' && !inQuote:
				head, rest = l[:j+1], l[j+1:]
				j = len(l)
			}
		}
	} else if i := strings.IndexByte(l, ' '); i >= 0 {
		head, rest = l[:i], l[i:]
	}
	if i := strings.Index(rest, " #"); i >= 0 {
		rest = rest[:i]
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return l
	}
	return head + " " + f[0]
}
