package conformance

import (
	"fmt"
	"io"
	"strings"
)

// A Tool computes a case's figures from its inputs: the requests (with
// every stream event) and the options. It returns the figures it computes,
// named as Figures describes, with Absent for a figure it finds cannot be
// computed; figures it does not compute it leaves out. An error means the
// tool refused the case.
type Tool func(c Case) (Figures, error)

// A Result is how a tool did on one case.
type Result struct {
	Case Case
	// Err is the tool's error, when it refused the case.
	Err error
	// Differ are the figures on which the tool disagrees with the case;
	// Missing those it did not give.
	Differ, Missing []Difference
	// Answered is false when the tool gave no answer for the case at all
	// (CheckAnswers only).
	Answered bool
}

// Agrees reports whether the tool answered the case without error and
// agreed on every figure it gave.
func (r Result) Agrees() bool { return r.Answered && r.Err == nil && len(r.Differ) == 0 }

// Compared returns how many of the case's figures the tool gave.
func (r Result) Compared() int {
	if !r.Answered || r.Err != nil {
		return 0
	}
	return len(r.Case.Expected) - len(r.Missing)
}

// Run runs every case through tool. The tool is given a copy of each
// case, which it may modify; its figures are compared with another.
func Run(tool Tool) []Result {
	given, want := Cases(), Cases()
	rs := make([]Result, len(want))
	for i := range want {
		rs[i] = runOne(tool, given[i], want[i])
	}
	return rs
}

// runOne runs one case through tool, which a panic of the tool does not
// stop.
func runOne(tool Tool, given, want Case) (r Result) {
	r = Result{Case: want, Answered: true}
	defer func() {
		if p := recover(); p != nil {
			r.Err = fmt.Errorf("the tool panicked: %v", p)
		}
	}()
	got, err := tool(given)
	if err != nil {
		r.Err = err
		return r
	}
	r.Differ, r.Missing = Compare(want.Expected, got)
	return r
}

// TB is the part of testing.TB that Check uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// Check runs every case through tool, inside a test, and reports each
// case the tool disagrees with or refuses as an error that names the
// figures, the trap and the specification's section. Figures the tool
// does not give are not errors; Check logs how many there were.
func Check(t TB, tool Tool) {
	t.Helper()
	missing, agreed, none := 0, 0, 0
	results := Run(tool)
	for _, r := range results {
		missing += len(r.Missing)
		switch {
		case !r.Agrees():
			t.Errorf("%s", Explain(r))
		case r.Compared() == 0:
			none++
		default:
			agreed++
		}
	}
	t.Logf("conformance %s: %d of %d cases agree, %d had none of their figures given; %d expected figures not given by the tool",
		Version, agreed, len(results), none, missing)
}

// Explain describes a result that does not agree: the case, what
// differs, the trap and the specification's section.
func Explain(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %s", r.Case.ID)
	switch {
	case !r.Answered:
		b.WriteString(": not answered")
		return b.String()
	case r.Err != nil:
		fmt.Fprintf(&b, ": the tool refused it: %v", r.Err)
	default:
		for _, d := range r.Differ {
			fmt.Fprintf(&b, "\n\t%v", d)
		}
	}
	fmt.Fprintf(&b, "\n\ttrap: %s\n\tspecification: %s\n\tarithmetic: %s", r.Case.Trap, r.Case.Section, r.Case.Arithmetic)
	return b.String()
}

// WriteReport writes one line per case, agree, differ, refused, not
// compared (answered, but with none of its figures) or not answered, with
// the differences and the trap under each case that does not agree, then
// a count; it returns the number of cases that differ or were refused.
func WriteReport(w io.Writer, results []Result) (int, error) {
	bad, agree, unanswered := 0, 0, 0
	for _, r := range results {
		var err error
		switch {
		case !r.Answered:
			unanswered++
			_, err = fmt.Fprintf(w, "not answered  %s\n", r.Case.ID)
		case r.Agrees() && r.Compared() == 0:
			unanswered++
			_, err = fmt.Fprintf(w, "not compared  %s (none of its %d figures given)\n", r.Case.ID, len(r.Case.Expected))
		case r.Agrees():
			agree++
			note := ""
			if len(r.Missing) > 0 {
				note = fmt.Sprintf(" (%d of %d figures given)", len(r.Case.Expected)-len(r.Missing), len(r.Case.Expected))
			}
			_, err = fmt.Fprintf(w, "agree         %s%s\n", r.Case.ID, note)
		default:
			bad++
			word := "differ"
			if r.Err != nil {
				word = "refused"
			}
			text := strings.TrimPrefix(Explain(r), "case ")
			_, err = fmt.Fprintf(w, "%-13s %s\n", word, strings.ReplaceAll(text, "\n\t", "\n    "))
		}
		if err != nil {
			return bad, err
		}
	}
	_, err := fmt.Fprintf(w, "conformance %s: %d agree, %d differ or refused, %d not answered or compared, of %d cases\n",
		Version, agree, bad, unanswered, len(results))
	return bad, err
}
