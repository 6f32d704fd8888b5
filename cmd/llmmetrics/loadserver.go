package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// The load check's server side: whether the server kept up with an open
// loop's sends (drain), and whether it went on answering at all (stopped).
// Both read the measured records in send order (see measuredSends).

// A drain is how long an open loop's answers outlasted its sends. A
// server that keeps up answers each request a latency after its send, so
// its last answer comes about one request's latency after the last send;
// one that falls behind queues the excess, and its last answer comes the
// queue's length later: past the sending window itself once it answers
// at less than half the rate sent. So the check warns when the drain
// exceeds the sending window, which a healthy server never does in a run
// longer than its requests (and which a run shorter than one request does
// by its nature: it says so too).
type drain struct {
	SendingS float64 `json:"sending_window_s"`        // first send to last send
	DrainS   float64 `json:"drain_after_last_send_s"` // last send to last answer, or to the grace's end when requests were still unanswered then; negative when the answer came first
	// LastAnswerS is the last answer after the last send (negative when
	// it came first), and Unanswered the requests cancelled when the
	// grace ran out: with some, DrainS is the grace's end, a bound.
	LastAnswerS  float64 `json:"last_answer_after_last_send_s"`
	Unanswered   int     `json:"unanswered_at_grace_end,omitempty"`
	OK           int     `json:"ok"`                      // ok requests answered
	AnsweredPerS float64 `json:"answered_requests_per_s"` // OK over first send to last answer
	sent         int
}

// drainOf measures the drain of the measured records m, in send order.
// Requests cancelled when the grace ran out after sending stopped were
// still unanswered a grace after the last send, at least; grace is 0 when
// unknown. It returns nil with fewer than two sends or no ok answer.
func drainOf(m []*llmmetrics.Record, grace time.Duration) *drain {
	if len(m) < 2 {
		return nil
	}
	first, last := m[0].Sent, m[len(m)-1].Sent
	answered, ok, cancelled := time.Duration(0), 0, 0
	for _, r := range m {
		switch r.Status {
		case llmmetrics.StatusOK:
			ok++
			at := r.Sent // a zero-token answer: at its send, at least
			if e2e, err := r.E2E(); err == nil {
				at += e2e
			}
			answered = max(answered, at)
		case llmmetrics.StatusCancelled:
			cancelled++
		}
	}
	if ok == 0 || last <= first || answered <= first {
		return nil
	}
	d := &drain{SendingS: (last - first).Seconds(), LastAnswerS: (answered - last).Seconds(), OK: ok,
		AnsweredPerS: float64(ok) / (answered - first).Seconds(), sent: len(m)}
	d.DrainS = d.LastAnswerS
	if cancelled > 0 && grace > 0 && last+grace > answered {
		d.DrainS, d.Unanswered = grace.Seconds(), cancelled
	}
	return d
}

// behind says whether the answers outlasted the sends by more than the
// sending window.
func (d *drain) behind() bool { return d.DrainS > d.SendingS }

func (d *drain) warning(sentPerS float64) string {
	return fmt.Sprintf("WARNING: the server fell behind the load: %s, longer than the %.3f s of sending; %d requests were sent at %.3g/s and %d answered at %.3g/s (first send to last answer): requests queued and the latencies include the queue (or the run is shorter than one request), so the figures do not describe a steady load",
		d.after(), d.SendingS, d.sent, sentPerS, d.OK, d.AnsweredPerS)
}

// after says when the answers ended, after the last send: at the last
// answer, or, with requests still unanswered, at the grace's end.
func (d *drain) after() string {
	if d.Unanswered > 0 {
		verb := " were"
		if d.Unanswered == 1 {
			verb = " was"
		}
		return fmt.Sprintf("%s%s still unanswered when the %.3f s grace after the last send ran out (the last answer came %s the last send)",
			plural.Of(d.Unanswered, "request"), verb, d.DrainS, beforeAfter(d.LastAnswerS))
	}
	return "its last answer came " + beforeAfter(d.DrainS) + " the last send"
}

// beforeAfter says x seconds as "x s after", or "−x s before" when x is
// negative.
func beforeAfter(x float64) string {
	if x < 0 {
		return fmt.Sprintf("%.3f s before", -x)
	}
	return fmt.Sprintf("%.3f s after", x)
}

// A stopped says that the server stopped answering during a run: no
// answer came for more than a tenth of the sending and for longer than
// its longest answered request took, and every measured request sent
// after the last it answered failed or was still unanswered when the run
// ended; the figures, which are of the ok requests, cover only the run's
// beginning.
type stopped struct {
	AtS       float64 `json:"at_s"`      // the last answer, from the first measured send
	SendingS  float64 `json:"sending_s"` // the first measured send to the end of sending
	Failed    int     `json:"failed"`    // the requests sent after the last answered one: all failed
	Errors    int     `json:"errors"`
	Timeouts  int     `json:"timeouts"`
	Cancelled int     `json:"cancelled"` // unanswered when the grace ran out (hung)
}

// minStopped is the fewest errors and timeouts, after the last answered
// request, that say the server stopped; fewer are a run's last requests
// unlucky.
// Requests that hung until the run ended say it on their own: a closed
// loop whose every slot hangs sends no more.
const minStopped = 3

// An ending is how a run's sending ended, for stoppedAnswering: at a
// deadline the load names (0 when it names none; the records' own last
// send counts when later), and whether its cancelled requests hung until
// the grace ran out (a run that completed; an interrupt cancels requests
// that need not have hung).
type ending struct {
	deadline time.Duration // from the run's epoch, as Sent
	hung     bool
}

// stoppedAnswering finds a server that stopped answering in the measured
// records m, in send order, or returns nil. A run with no ok request is
// not this (every request failed, which run and the error set say).
func stoppedAnswering(m []*llmmetrics.Record, e ending) *stopped {
	if len(m) == 0 {
		return nil
	}
	first, last := m[0].Sent, m[0].Sent
	var answered, longest time.Duration
	lastOK := -1
	for i, r := range m {
		if r.Status == llmmetrics.StatusCancelled && !e.hung {
			continue // the client's doing
		}
		last = r.Sent
		if r.Status != llmmetrics.StatusOK {
			continue
		}
		lastOK = i
		e2e, err := r.E2E()
		if err != nil {
			e2e = 0 // a zero-token answer: at its send
		}
		answered, longest = max(answered, r.Sent+e2e), max(longest, e2e)
	}
	end := max(last, e.deadline)
	if lastOK < 0 || end-answered <= longest || float64(end-answered) <= 0.1*float64(end-first) {
		return nil
	}
	st := &stopped{AtS: (answered - first).Seconds(), SendingS: (end - first).Seconds()}
	for _, r := range m[lastOK+1:] {
		switch {
		case r.Status == llmmetrics.StatusError:
			st.Errors++
		case r.Status == llmmetrics.StatusTimeout:
			st.Timeouts++
		case r.Status == llmmetrics.StatusCancelled && e.hung:
			st.Cancelled++
		}
	}
	st.Failed = st.Errors + st.Timeouts + st.Cancelled
	if st.Errors+st.Timeouts < minStopped && st.Cancelled == 0 {
		return nil
	}
	return st
}

func (st *stopped) clause() string {
	return fmt.Sprintf("the server stopped answering %.3f s into %.3f s of sending", st.AtS, st.SendingS)
}

func (st *stopped) warning() string {
	var how []string
	for _, n := range []struct {
		n    int
		what string
	}{{st.Errors, "errors"}, {st.Timeouts, "timeouts"}, {st.Cancelled, "still unanswered when the grace ran out"}} {
		if n.n > 0 {
			how = append(how, fmt.Sprintf("%d %s", n.n, n.what))
		}
	}
	return fmt.Sprintf("WARNING: %s: the %s sent after the last it answered failed (%s; see the error set), so the figures cover the first %.3f s",
		st.clause(), plural.Of(st.Failed, "request"), strings.Join(how, ", "), st.AtS)
}
