package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "write breadth.json again from the reference")

// breadthSeed fixes the generated runs; changing it changes the case set
// (and so Version).
const breadthSeed = 24

// generateBreadth makes the breadth cases: random runs of mixed statuses,
// lengths, chunkings, ties and protocol frames, with every figure the
// reference computes as expected.
func generateBreadth() []Case {
	rng := rand.New(rand.NewPCG(breadthSeed, 0))
	var cs []Case
	for k := 0; k < 12; k++ {
		c := Case{
			ID: fmt.Sprintf("breadth-%02d", k),
			Trap: "Any convention that differs from the specification, on a random run mixing failures, zero- and one-token " +
				"replies, multi-token chunks, equal arrivals and protocol frames.",
			Section: "all of the above",
			Arithmetic: fmt.Sprintf("every figure computed from the events by the plain reference in conformance/reference_test.go, "+
				"in exact rationals (math/big), rounded once to float64; generated with seed %d, case %d", breadthSeed, k),
		}
		o := Options{Method: "nearest-rank", Percentiles: []float64{50, 90, 99}}
		if k%2 == 1 {
			o = Options{Method: "linear", Percentiles: []float64{25, 50, 75, 99.9}}
		}
		if rng.IntN(2) == 0 {
			o.Window = time.Duration(5+rng.IntN(20)) * time.Second
		}
		if rng.IntN(3) > 0 {
			s := SLO{Strict: rng.IntN(3) == 0}
			s.TTFT = time.Duration(150+rng.IntN(300)) * time.Millisecond
			if rng.IntN(2) == 0 {
				s.TPOT = time.Duration(15+rng.IntN(30)) * time.Millisecond
			}
			if rng.IntN(2) == 0 {
				s.E2E = time.Duration(500+rng.IntN(1500)) * time.Millisecond
			}
			if rng.IntN(3) == 0 {
				s.MaxGap = time.Duration(40+rng.IntN(80)) * time.Millisecond
			}
			o.SLO = &s
		}
		if rng.IntN(3) == 0 {
			o.WarmupRequests = 1 + rng.IntN(3)
		}
		c.Options = o
		n := 4 + rng.IntN(20)
		sent := time.Duration(0)
		for i := 0; i < n; i++ {
			sent += time.Duration(1+rng.IntN(400)) * time.Millisecond
			r := randomRequest(rng, fmt.Sprintf("b%02d-%03d", k, i), sent)
			if o.SLO != nil && o.SLO.TPOT > 0 && r.CompletionTokens != nil && *r.CompletionTokens == 1 {
				// Whether a one-token request meets a TPOT limit is not
				// settled by the specification (it has no TPOT): no case
				// asks it.
				continue
			}
			c.Requests = append(c.Requests, r)
		}
		settleMaxGap(&c)
		c.Expected = toFigures(reference(c))
		cs = append(cs, c)
	}
	return cs
}

// settleMaxGap says, in a case with a limit on the largest gap, what the
// case settles for its measured ok requests with one text chunk: they have
// no gap, so the limit does not apply to them (the reference and the
// library judge them so; a tool that fails them differs).
func settleMaxGap(c *Case) {
	if c.Options.SLO == nil || c.Options.SLO.MaxGap == 0 {
		return
	}
	warm := warmupSet(*c)
	var ids []string
	for i, r := range c.Requests {
		if !warm[i] && r.Status == "ok" && len(r.TextTimes()) == 1 {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	c.Trap = strings.TrimSuffix(c.Trap, ".") + "; here also a request with one text chunk failed by the limit on the largest gap, which it has none of."
	c.Section += "; " + lm + "'Start with the timestamps' (for one output token there is no later gap)"
	have, them := "has", "it"
	if len(ids) > 1 {
		have, them = "have", "them"
	}
	c.Arithmetic += fmt.Sprintf("; %s %s one text chunk and so no gap, so the max_gap limit does not apply to %s: judged on the other limits",
		strings.Join(ids, ", "), have, them)
}

// randomRequest makes one request sent at sent.
func randomRequest(rng *rand.Rand, id string, sent time.Duration) Request {
	r := Request{ID: id, Status: "ok", Start: sent, Sent: sent}
	if rng.IntN(4) == 0 {
		r.Start -= time.Duration(rng.IntN(50)) * time.Millisecond // waited for a connection
	}
	switch x := rng.IntN(20); {
	case x == 0:
		r.Status, r.Message = "error", "HTTP 500: internal server error"
	case x == 1:
		r.Status, r.Message = "timeout", "no answer within 30 s"
	case x == 2:
		r.Status, r.Message = "cancelled", "the client stopped"
	}
	if r.Status != "ok" {
		if rng.IntN(2) == 0 { // some text before the failure
			t := sent + time.Duration(50+rng.IntN(200))*time.Millisecond
			r.Events = append(r.Events, Event{At: t, Kind: KindText})
		}
		return r
	}
	prompt := 50 + rng.IntN(2000)
	r.PromptTokens = &prompt
	t := sent + time.Duration(20+rng.IntN(480))*time.Millisecond + time.Duration(rng.IntN(1000))*time.Microsecond
	if rng.IntN(2) == 0 {
		r.Events = append(r.Events, Event{At: t - time.Millisecond, Kind: KindRole})
	}
	var tokens int
	switch x := rng.IntN(20); {
	case x == 0:
		tokens = 0
	case x <= 3:
		tokens = 1
	default:
		tokens = 2 + rng.IntN(30)
	}
	bundled := rng.IntN(3) == 0
	for left := tokens; left > 0; {
		k := 1
		if bundled {
			k = min(left, 1+rng.IntN(4))
		}
		e := Event{At: t, Kind: KindText}
		if bundled {
			e.Tokens = k
		}
		r.Events = append(r.Events, e)
		left -= k
		if rng.IntN(10) > 0 { // otherwise the next chunk arrives at the same instant
			t += time.Duration(5+rng.IntN(60))*time.Millisecond + time.Duration(rng.IntN(1000))*time.Microsecond
		}
	}
	r.Events = append(r.Events, Event{At: t + time.Millisecond, Kind: KindUsage}, Event{At: t + time.Millisecond + 1000, Kind: KindDone})
	r.CompletionTokens = &tokens
	return r
}

// The embedded breadth cases are what the reference gives; -update writes
// them again.
func TestBreadthCases(t *testing.T) {
	// One case a line, so that a change shows as the lines of its cases.
	want := []byte("[\n")
	for i, c := range generateBreadth() {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			want = append(want, ",\n"...)
		}
		want = append(want, b...)
	}
	want = append(want, "\n]\n"...)
	if *update {
		if err := os.WriteFile("breadth.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(want, breadthJSON) {
		t.Fatal("breadth.json is not what the reference gives: run go test ./conformance -run TestBreadthCases -update and review the change")
	}
}

// Every case that judges a request with fewer than two text chunks (one
// token, or all its tokens in one chunk) against a limit on the largest
// gap says what it settles: such a request has no gap, so the limit does
// not apply to it (Latency Metrics, 'Start with the timestamps': for one
// output token there is no later gap). It names those requests.
func TestMaxGapLimitOnOneChunkSaid(t *testing.T) {
	settled := 0
	for _, c := range Cases() {
		if c.Options.SLO == nil || c.Options.SLO.MaxGap == 0 {
			continue
		}
		warm := warmupSet(c)
		var ids []string
		for i, r := range c.Requests {
			if !warm[i] && r.Status == "ok" && len(r.TextTimes()) == 1 {
				ids = append(ids, r.ID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		settled++
		if !strings.Contains(c.Arithmetic, "no gap, so the max_gap limit does not apply") {
			t.Errorf("%s judges %v, each with one text chunk, against a max_gap limit, and its arithmetic does not say the limit does not apply: %s",
				c.ID, ids, c.Arithmetic)
		}
		for _, id := range ids {
			if !strings.Contains(c.Arithmetic, id) {
				t.Errorf("%s: its arithmetic does not name %s, which has one text chunk", c.ID, id)
			}
		}
		if !strings.Contains(c.Trap, "largest gap") {
			t.Errorf("%s: its trap does not name the limit on the largest gap: %s", c.ID, c.Trap)
		}
		if !strings.Contains(c.Section, "no later gap") {
			t.Errorf("%s: its section does not cite the rule: %s", c.ID, c.Section)
		}
	}
	if settled < 3 {
		t.Errorf("%d cases settle it, want the hand case and two breadth cases", settled)
	}
}
