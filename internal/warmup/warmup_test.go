package warmup

import (
	"testing"
	"time"
)

const ms = time.Millisecond

func TestSteady(t *testing.T) {
	// Windows of 2 in send order (the input is given backwards), TPOT
	// 10 ms throughout. The lower medians of TTFT: window 0 {100, 200}
	// is 100; window 1 {150, 150} is 150 (+50 %); window 2 {155, 160} is
	// 155 (+3.3 %); window 3 {160, 170} is 160 (+3.2 %). With a tolerance
	// of 10 % and two stable changes asked, windows 1→2 and 2→3 are
	// stable: steady state begins with window 1. The ninth sample makes
	// a window of one, which is not read.
	ttfts := []time.Duration{100, 200, 150, 150, 155, 160, 160, 170, 900}
	var ss []Sample
	for i := len(ttfts) - 1; i >= 0; i-- {
		ss = append(ss, Sample{Sent: time.Duration(i) * time.Second, TTFT: ttfts[i] * ms, TPOT: 10 * ms})
	}
	start, n, ok := Steady(ss, 2, 2, 0.1)
	if start != 1 || n != 4 || !ok {
		t.Errorf("Steady = %d, %d, %v; want 1, 4, true", start, n, ok)
	}
	if ss[2].Sent != 2*time.Second {
		t.Errorf("ss[2].Sent = %v after the sort; want 2s", ss[2].Sent)
	}
	// Three stable changes are more than the four windows hold.
	if _, n, ok := Steady(ss, 2, 3, 0.1); ok || n != 4 {
		t.Errorf("Steady with 3 windows = %d, %v; want 4, false", n, ok)
	}
}

func TestSteadyZeroMedian(t *testing.T) {
	// A TPOT median of 0 is stable only before another 0: windows of one,
	// TPOTs 0, 0, 5 ms, 5 ms; TTFT constant. 0→0 is stable, 0→5 is not,
	// 5→5 is: one stable change is found at window 0.
	ss := []Sample{{0, ms, 0}, {1, ms, 0}, {2, ms, 5 * ms}, {3, ms, 5 * ms}}
	if start, n, ok := Steady(ss, 1, 1, 0.02); start != 0 || n != 4 || !ok {
		t.Errorf("Steady = %d, %d, %v; want 0, 4, true", start, n, ok)
	}
	// Two in a row: 0→0 then 0→5 fails; 0→5 fails; 5→5 is the last.
	if _, n, ok := Steady(ss, 1, 2, 0.02); ok || n != 4 {
		t.Errorf("Steady with 2 windows = %d, %v; want 4, false", n, ok)
	}
}
