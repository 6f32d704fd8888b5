package conformance

import "fmt"

// The two parts of the specification the cases cite (the project's seeds,
// ../shared/seeds): sw is "Serving Workloads and Performance Metrics", lm is
// "Latency Metrics: TTFT, TPOT and Goodput".
const (
	sw = "Serving Workloads "
	lm = "Latency Metrics, "
)

// Cases returns every case of the set, the hand-written ones first, then
// the generated breadth cases. The caller may modify the result.
func Cases() []Case {
	cs := handCases()
	cs = append(cs, breadthCases()...)
	return cs
}

// handCases are the cases written by hand, each with its arithmetic.
func handCases() []Case {
	var cs []Case
	add := func(c Case) { cs = append(cs, c) }

	// ---- The specification's worked examples.

	add(Case{
		ID:      "seed-opening-trace",
		Trap:    "Gaps, TPOT and E2E of one five-token request: four gaps, not five, and E2E ends at the last token.",
		Section: sw + "'Opening trace'",
		Arithmetic: "TTFT 120; gaps 35, 37, 36, 37; TPOT = (265 − 120)/4 = 36.25; E2E 265 = 120 + 4·36.25; " +
			"User TPS = 4/0.145 s; nearest-rank p50 of the sorted gaps 35, 36, 37, 37 is the 2nd, 36",
		Options:  nearest(50, 99),
		Requests: reqs(req("trace-5", 0).text(120, 155, 192, 228, 265).usage(5).prompt(512)),
		Expected: merge(counts(1, 1, 0, 0), figs{
			"request.trace-5.ttft_ms":    v(120),
			"request.trace-5.tpot_ms":    v(36.25),
			"request.trace-5.e2e_ms":     v(265),
			"request.trace-5.user_tps":   v(4 / 0.145),
			"request.trace-5.max_gap_ms": v(37),
			"itl_ms.n":                   v(4),
			"itl_ms.mean":                v(36.25), // 145/4
			"itl_ms.min":                 v(35),
			"itl_ms.max":                 v(37),
			"itl_ms.p50":                 v(36),
			"itl_ms.p99":                 v(37),
			"tpot_ms.n":                  v(1),
		}),
	})
	add(Case{
		ID:         "seed-databricks-approximation",
		Trap:       "E2E taken as TTFT + n·TPOT (the Databricks approximation) overestimates by exactly one TPOT.",
		Section:    sw + "§2.3 and §3 Databricks approximation check",
		Arithmetic: "exact E2E = 120 + 4·36.25 = 265; the approximation 120 + 5·36.25 = 301.25 is not E2E",
		Options:    nearest(50),
		Requests:   reqs(req("trace-5", 0).text(120, 155, 192, 228, 265).usage(5).prompt(512)),
		Expected: figs{
			"request.trace-5.e2e_ms": v(265),
			"e2e_ms.mean":            v(265),
			"e2e_ms.p50":             v(265),
		},
	})
	add(Case{
		ID:      "seed-averaging",
		Trap:    "Mean TPOT weighted by gaps (n − 1) instead of by request: 10.4 ms is not the mean TPOT.",
		Section: sw + "§2.2 and §3 Averaging illustration",
		Arithmetic: "A: 100 tokens, (1110 − 120)/99 = 10; B: 2 tokens, (170 − 120)/1 = 50; " +
			"request-weighted (10 + 50)/2 = 30; gap-weighted (990 + 50)/(99 + 1) = 10.4",
		Options: nearest(50, 99),
		Requests: reqs(
			req("A", 0).text(120, 1110).usage(100).prompt(512),
			req("B", 0).text(120, 170).usage(2).prompt(512)),
		Expected: figs{
			"request.A.tpot_ms":         v(10),
			"request.B.tpot_ms":         v(50),
			"tpot_ms.n":                 v(2),
			"tpot_ms.mean":              v(30),
			"tpot_ms.gap_weighted_mean": v(10.4),
			"tpot_ms.p50":               v(10),
			"tpot_ms.p99":               v(50),
		},
	})
	add(Case{
		ID:      "seed-four-token-trace",
		Trap:    "Four tokens have three gaps; the 80 ms TPOT hides a 200 ms pause that the largest gap keeps.",
		Section: lm + "'Start with the timestamps'",
		Arithmetic: "TTFT 100; gaps 20, 200, 20; TPOT (340 − 100)/3 = 80; last token 100 + 3·80 = 340; " +
			"User TPS 3/0.24 = 12.5",
		Options:  nearest(50, 99),
		Requests: reqs(req("four", 0).text(100, 120, 320, 340).usage(4)),
		Expected: figs{
			"request.four.ttft_ms":    v(100),
			"request.four.tpot_ms":    v(80),
			"request.four.e2e_ms":     v(340),
			"request.four.max_gap_ms": v(200),
			"request.four.user_tps":   v(12.5),
			"itl_ms.n":                v(3),
			"itl_ms.max":              v(200),
			"itl_ms.mean":             v(80),
			"itl_ms.p50":              v(20),
		},
	})
	add(Case{
		ID:      "seed-goodput-cohort",
		Trap:    "The timed-out request left out of the cohort (attainment 2/4, not 2/5), or attainment (a fraction) confused with goodput (requests per second).",
		Section: lm + "'Count requests that satisfy the whole promise'",
		Arithmetic: "limits TTFT ≤ 500, TPOT ≤ 50; A 100/20 good, B 200/40 good, C 700/20 late, D 100/80 slow, " +
			"E timed out; attainment 2/5 = 0.4; goodput 2 / 10 s = 0.2 requests/s",
		Options: nearest(50).withWindow(10000).withSLO(SLO{TTFT: ms(500), TPOT: ms(50)}),
		Requests: reqs(
			req("A", 0).text(100, 120, 140).usage(3).prompt(100),
			req("B", 2000).text(200, 240, 280).usage(3).prompt(100),
			req("C", 4000).text(700, 720, 740).usage(3).prompt(100),
			req("D", 6000).text(100, 180, 260).usage(3).prompt(100),
			req("E", 8000).fail("timeout", "no answer within the client's deadline")),
		Expected: merge(counts(5, 4, 0, 1), figs{
			"goodput.good":              v(2),
			"goodput.attainment":        v(0.4),
			"goodput.requests_per_s":    v(0.2),
			"request.D.tpot_ms":         v(80),
			"request.C.ttft_ms":         v(700),
			"request.E.ttft_ms":         none,
			"requests.one_token":        v(0),
			"requests.warmup":           v(0),
			"requests_per_s":            v(0.4), // 4 ok / 10 s
			"output_tokens_per_s":       v(1.2), // 12 tokens / 10 s
			"prompt_tokens_per_s":       v(40),  // 400 / 10 s
			"tpot_ms.n":                 v(4),
			"ttft_ms.n":                 v(4),
			"request.A.tpot_ms":         v(20),
			"request.B.tpot_ms":         v(40),
			"request.A.user_tps":        v(50), // 2/0.04
			"request.E.tpot_ms":         none,
			"request.E.e2e_ms":          none,
			"request.E.user_tps":        none,
			"request.B.e2e_ms":          v(280),
			"request.D.max_gap_ms":      v(80),
			"request.C.e2e_ms":          v(740),
			"request.A.e2e_ms":          v(140),
			"request.B.ttft_ms":         v(200),
			"request.A.ttft_ms":         v(100),
			"request.D.ttft_ms":         v(100),
			"request.C.tpot_ms":         v(20),
			"request.B.max_gap_ms":      v(40),
			"request.C.max_gap_ms":      v(20),
			"request.A.max_gap_ms":      v(20),
			"request.D.e2e_ms":          v(260),
			"request.D.user_tps":        v(12.5), // 2/0.16
			"request.C.user_tps":        v(50),
			"request.B.user_tps":        v(25), // 2/0.08
			"request.E.max_gap_ms":      none,
			"ttft_ms.p50":               v(100), // 100, 100, 200, 700: rank 2
			"requests.no_token_count":   v(0),
			"tpot_ms.gap_weighted_mean": v(40), // (40 + 80 + 40 + 160)/8
		}),
	})
	add(Case{
		ID:      "seed-tpot-exercise",
		Trap:    "One-token, zero-token and failed requests turned into TPOT samples (0 ms) instead of excluded and counted.",
		Section: sw + "§4.3 step 5 and 'Try it yourself' 3",
		Arithmetic: "r1 (450 − 150)/10 = 30; r2 (130 − 90)/1 = 40; r6 (1010 − 210)/32 = 25; r3 one token: no TPOT; " +
			"r4 zero tokens and r5 error: no latency sample; mean TPOT (30 + 40 + 25)/3",
		Options: nearest(50),
		Requests: reqs(
			req("r1", 0).text(150, 450).usage(11).prompt(256),
			req("r2", 100).text(90, 130).usage(2).prompt(256),
			req("r3", 200).text(80).usage(1).prompt(256),
			req("r4", 300).usage(0).prompt(256),
			req("r5", 400).fail("error", "HTTP 500: internal server error"),
			req("r6", 500).text(210, 1010).usage(33).prompt(256)),
		Expected: merge(counts(6, 4, 1, 1), figs{
			"requests.one_token": v(1),
			"request.r1.tpot_ms": v(30),
			"request.r2.tpot_ms": v(40),
			"request.r6.tpot_ms": v(25),
			"request.r3.tpot_ms": none,
			"request.r3.ttft_ms": v(80),
			"request.r4.ttft_ms": none,
			"request.r5.ttft_ms": none,
			"tpot_ms.n":          v(3),
			"tpot_ms.mean":       v(95.0 / 3),
			"ttft_ms.n":          v(4),
		}),
	})
	{
		// 64 streams, each 40 tokens 25 ms apart from 25 ms to 1000 ms.
		var rs []*Request
		for i := 0; i < 64; i++ {
			rs = append(rs, req(fmt.Sprintf("s%02d", i), 0).every(40, 25, 25).usage(40))
		}
		add(Case{
			ID:      "seed-64-streams",
			Trap:    "Per-user pace and aggregate throughput confused: 40 tokens/s each is 2,560 tokens/s in all.",
			Section: lm + "'Throughput is a different number'",
			Arithmetic: "each stream: TPOT 25 ms, User TPS 39/0.975 s = 40; " +
				"64 × 40 tokens over a declared 1 s window = 2,560 output tokens/s; 64 requests/s",
			Options:  nearest(50).withWindow(1000),
			Requests: reqs(rs...),
			Expected: figs{
				"request.s00.user_tps": v(40),
				"request.s63.tpot_ms":  v(25),
				"tpot_ms.mean":         v(25),
				"output_tokens_per_s":  v(2560),
				"requests_per_s":       v(64),
			},
		})
	}
	{
		// 100 requests of 3 tokens, 100 ms apart: 10 fail only TTFT, 10
		// only TPOT, 80 pass both.
		var rs []*Request
		for i := 0; i < 100; i++ {
			ttft, tpot := 100.0, 20.0
			switch {
			case i%10 == 3:
				ttft = 600
			case i%10 == 7:
				tpot = 80
			}
			rs = append(rs, req(fmt.Sprintf("q%03d", i), float64(i)*100).text(ttft, ttft+tpot, ttft+2*tpot).usage(3))
		}
		add(Case{
			ID:         "seed-joint-slo",
			Trap:       "Attainment read from separate percentile charts (90 % pass TTFT, 90 % pass TPOT) instead of judging each request on all limits jointly.",
			Section:    lm + "'Check your understanding'",
			Arithmetic: "10 requests fail only TTFT (600 > 500), 10 only TPOT (80 > 50): 80 of 100 pass both; attainment 0.8",
			Options:    nearest(90).withSLO(SLO{TTFT: ms(500), TPOT: ms(50)}),
			Requests:   reqs(rs...),
			Expected: figs{
				"goodput.good":       v(80),
				"goodput.attainment": v(0.8),
				"ttft_ms.p90":        v(100), // 90 of 100 at 100 ms: rank 90
				"tpot_ms.p90":        v(20),
			},
		})
	}
	{
		// 80 requests of 4 tokens at TPOT 50 ms, 20 of 200 tokens at 10 ms;
		// one chunk per token.
		var rs []*Request
		for i := 0; i < 100; i++ {
			r := req(fmt.Sprintf("g%03d", i), float64(i)*10)
			if i%5 == 4 {
				r.every(200, 100, 10).usage(200)
			} else {
				r.every(4, 100, 50).usage(4)
			}
			rs = append(rs, r)
		}
		add(Case{
			ID:      "seed-gap-share",
			Trap:    "An unlabelled average TPOT: the 20 % long requests hold 94 % of the gaps, so the gap-weighted mean sits near their pace.",
			Section: sw + "'Try it yourself' 2",
			Arithmetic: "gaps 80·3 = 240 and 20·199 = 3,980; request-weighted (80·50 + 20·10)/100 = 42; " +
				"gap-weighted (240·50 + 3980·10)/4220 = 51800/4220 = 2590/211",
			Options:  nearest(50),
			Requests: reqs(rs...),
			Expected: figs{
				"itl_ms.n":                  v(4220),
				"tpot_ms.n":                 v(100),
				"tpot_ms.mean":              v(42),
				"tpot_ms.gap_weighted_mean": v(2590.0 / 211),
				"itl_ms.mean":               v(2590.0 / 211),
			},
		})
	}
	{
		// TTFT 1 … 1000 ms, one token each, in a shuffled order.
		var rs []*Request
		for i := 0; i < 1000; i++ {
			k := (i*389)%1000 + 1 // 389 is prime to 1000: a permutation of 1…1000
			rs = append(rs, req(fmt.Sprintf("p%04d", i), float64(i)).text(float64(k)).usage(1))
		}
		add(Case{
			ID:         "seed-p99-of-1000",
			Trap:       "A percentile taken by a rule other than the one named: of 1,000 sorted values p50 is the 500th and p99 the 990th.",
			Section:    lm + "'Percentiles need a population'",
			Arithmetic: "nearest rank ⌈p·1000/100⌉: p50 → 500th = 500 ms, p99 → 990th = 990 ms, p99.9 → 999th = 999 ms",
			Options:    nearest(50, 99, 99.9),
			Requests:   reqs(rs...),
			Expected: figs{
				"ttft_ms.n":     v(1000),
				"ttft_ms.p50":   v(500),
				"ttft_ms.p99":   v(990),
				"ttft_ms.p99.9": v(999),
				"ttft_ms.mean":  v(500.5),
				"ttft_ms.min":   v(1),
				"ttft_ms.max":   v(1000),
				"tpot_ms.n":     v(0),
			},
		})
	}

	// ---- The traps the field falls into.

	add(Case{
		ID:         "trap-role-only-first-chunk",
		Trap:       "TTFT stamped at a role-only first delta, which carries no output text.",
		Section:    sw + "§2.1 TTFT (first chunk that contains output text)",
		Arithmetic: "role delta at 40 ms is not text; first text at 100: TTFT 100; last text 160: E2E 160; TPOT 60/2 = 30",
		Options:    nearest(50),
		Requests: reqs(req("chat", 0).event(KindRole, 40).text(100, 130, 160).
			event(KindUsage, 161).event(KindDone, 162).usage(3)),
		Expected: figs{
			"request.chat.ttft_ms": v(100),
			"request.chat.e2e_ms":  v(160),
			"request.chat.tpot_ms": v(30),
			"ttft_ms.p50":          v(100),
		},
	})
	add(Case{
		ID:         "trap-empty-first-chunk",
		Trap:       "TTFT stamped at a first chunk whose text is empty (a special token's empty delta).",
		Section:    lm + "'Start with the timestamps' (ignore empty protocol events)",
		Arithmetic: "empty delta at 60 ms ignored; text at 90 and 120: TTFT 90, TPOT 30",
		Options:    nearest(50),
		Requests:   reqs(req("cmpl", 0).event(KindEmpty, 60).text(90, 120).usage(2)),
		Expected: figs{
			"request.cmpl.ttft_ms": v(90),
			"request.cmpl.tpot_ms": v(30),
			"itl_ms.n":             v(1),
		},
	})
	add(Case{
		ID:         "trap-ttft-from-connection",
		Trap:       "TTFT measured from before the connection was made (pool wait, dial) instead of from the request's send.",
		Section:    sw + "§4.3 step 2 and §5 (timestamp at socket write, not task creation)",
		Arithmetic: "call began at 0, request written at 80 (80 ms of dial); first text 200, last 230 from the epoch: TTFT 120, E2E 150",
		Options:    nearest(50),
		Requests:   reqs(req("dial", 80).waited(80).text(120, 150).usage(2)),
		Expected: figs{
			"request.dial.ttft_ms": v(120),
			"request.dial.e2e_ms":  v(150),
			"ttft_ms.mean":         v(120),
		},
	})
	add(Case{
		ID:      "trap-user-tps-n",
		Trap:    "Per-request token rate dividing n tokens (or n over E2E) instead of the n − 1 gaps by the decode time.",
		Section: sw + "§2.4 Throughput (User TPS = (n − 1)/(E2E − TTFT))",
		Arithmetic: "u1: 5 tokens 100 … 200 ms, 4/0.1 = 40 (n/decode 50, n/E2E 25); u2: 2 tokens 100, 150, 1/0.05 = 20; " +
			"u3: 11 tokens 200 … 400, 10/0.2 = 50",
		Options: nearest(50),
		Requests: reqs(
			req("u1", 0).every(5, 100, 25).usage(5),
			req("u2", 0).text(100, 150).usage(2),
			req("u3", 0).every(11, 200, 20).usage(11)),
		Expected: figs{
			"request.u1.user_tps": v(40),
			"request.u2.user_tps": v(20),
			"request.u3.user_tps": v(50),
		},
	})
	add(Case{
		ID:         "trap-tpot-n",
		Trap:       "TPOT dividing the decode time by n instead of the n − 1 gaps.",
		Section:    sw + "§2.2 ITL and TPOT",
		Arithmetic: "5 tokens, first 100, last 300: TPOT 200/4 = 50 (not 200/5 = 40)",
		Options:    nearest(50),
		Requests:   reqs(req("t", 0).every(5, 100, 50).usage(5)),
		Expected: figs{
			"request.t.tpot_ms": v(50),
			"tpot_ms.mean":      v(50),
			"tpot_ms.p50":       v(50),
		},
	})
	add(Case{
		ID:      "trap-chunks-for-tokens",
		Trap:    "The number of text chunks taken for the number of tokens when chunks carry several.",
		Section: sw + "§2.2 (n is usage.completion_tokens, not the number of chunks) and §5 Assuming one chunk = one token",
		Arithmetic: "4 chunks of 2, 2, 2, 1 tokens at 100, 140, 180, 220; usage 7: TPOT 120/6 = 20 (chunks: 120/3 = 40); " +
			"User TPS 6/0.12 = 50; chunk gaps 40, 40, 40; 7 tokens over a 1 s window",
		Options: nearest(50).withWindow(1000),
		Requests: reqs(req("multi", 0).textTokens(100, 2).textTokens(140, 2).textTokens(180, 2).textTokens(220, 1).
			usage(7)),
		Expected: figs{
			"request.multi.tpot_ms":  v(20),
			"request.multi.user_tps": v(50),
			"output_tokens_per_s":    v(7),
			"itl_ms.mean":            v(40),
			"itl_ms.n":               v(3),
		},
	})
	add(Case{
		ID:      "trap-count-below-chunks",
		Trap:    "A token count below the number of text chunks (a re-tokenized count one below) used for TPOT, or the whole request dropped with its TTFT.",
		Section: sw + "§2.2 (check text-bearing chunks against the count); issue 20",
		Arithmetic: "b: 10 text chunks 100 … 190 ms but a count of 9, which cannot be (each text chunk carries a token): " +
			"TTFT 100 and E2E 190 stay, TPOT and tokens are set aside; a: 4 tokens 100 … 160, TPOT 20; tokens over 1 s: 4",
		Options: nearest(50).withWindow(1000),
		Requests: reqs(
			req("a", 0).every(4, 100, 20).usage(4),
			req("b", 0).every(10, 100, 10).usage(9)),
		Expected: merge(counts(2, 2, 0, 0), figs{
			"requests.no_token_count": v(1),
			"request.b.ttft_ms":       v(100),
			"request.b.e2e_ms":        v(190),
			"request.b.tpot_ms":       none,
			"ttft_ms.n":               v(2),
			"tpot_ms.n":               v(1),
			"tpot_ms.mean":            v(20),
			"output_tokens_per_s":     v(4),
		}),
	})
	{
		var rs []*Request
		for i := 0; i < 8; i++ {
			rs = append(rs, req(fmt.Sprintf("ok%d", i), float64(i)*100).text(100, 200).usage(2))
		}
		rs = append(rs,
			req("err", 800).fail("error", "HTTP 503: service unavailable"),
			req("late", 900).fail("timeout", "no answer within 30 s"))
		add(Case{
			ID:         "trap-failures-out-of-attainment",
			Trap:       "Failed and timed-out requests left out of the attainment denominator, which flatters the service.",
			Section:    lm + "'Count requests that satisfy the whole promise' (keep the timeout in the denominator)",
			Arithmetic: "8 ok requests all within E2E ≤ 1 s, 2 failed: attainment 8/10 = 0.8 (not 8/8); goodput 8 / 2 s = 4 requests/s",
			Options:    nearest(50).withWindow(2000).withSLO(SLO{E2E: ms(1000)}),
			Requests:   reqs(rs...),
			Expected: merge(counts(10, 8, 0, 2), figs{
				"goodput.good":           v(8),
				"goodput.attainment":     v(0.8),
				"goodput.requests_per_s": v(4),
			}),
		})
	}
	add(Case{
		ID:         "trap-zero-token-out-of-attainment",
		Trap:       "Zero-token and cancelled requests left out of the attainment denominator, or a zero-token reply judged good.",
		Section:    sw + "§2.2 (n = 0 is not a latency sample; count it) and " + lm + "'Count requests that satisfy the whole promise'",
		Arithmetic: "3 ok within TTFT ≤ 500, 1 zero-token (no text, no TTFT), 1 cancelled: attainment 3/5 = 0.6",
		Options:    nearest(50).withSLO(SLO{TTFT: ms(500)}),
		Requests: reqs(
			req("a", 0).text(100, 120).usage(2),
			req("b", 100).text(110, 130).usage(2),
			req("c", 200).text(120, 140).usage(2),
			req("z", 300).event(KindUsage, 90).event(KindDone, 91).usage(0),
			req("x", 400).fail("cancelled", "the caller cancelled the request")),
		Expected: merge(counts(5, 3, 1, 1), figs{
			"goodput.good":       v(3),
			"goodput.attainment": v(0.6),
			"request.z.ttft_ms":  none,
		}),
	})
	add(Case{
		ID:      "trap-slo-tie-units",
		Trap:    "A latency exactly at a non-integer millisecond limit judged late because the limit was converted to seconds in floating point (300.7/1000 < 0.3007).",
		Section: lm + "'Count requests that satisfy the whole promise' (a limit is met at or below it)",
		Arithmetic: "limit TTFT ≤ 300.7 ms; r1 sent at 0 and r2 at 2 s both have TTFT exactly 300.7 ms: both good, attainment 1; " +
			"in float64, 300.7/1000 = 0.30069999999999997 < 300700000/1e9 = 0.3007",
		Options: nearest(50).withSLO(SLO{TTFT: ms(300.7)}),
		Requests: reqs(
			req("r1", 0).text(300.7, 320.7).usage(2),
			req("r2", 2000).text(300.7, 310.7).usage(2)),
		Expected: figs{
			"goodput.good":       v(2),
			"goodput.attainment": v(1),
			"request.r1.ttft_ms": v(300.7),
		},
	})
	add(Case{
		ID:         "trap-all-one-token",
		Trap:       "A run where every request has one token: TPOT reported as 0 or NaN (all weights n − 1 are zero) instead of absent with the count.",
		Section:    sw + "§2.2 Zero- and one-token outputs (TPOT is undefined; report how many were excluded)",
		Arithmetic: "3 requests of 1 token: no TPOT sample, 3 excluded; TTFT 80, 90, 100 ms: mean 90",
		Options:    nearest(50),
		Requests:   reqs(req("a", 0).text(80).usage(1), req("b", 10).text(90).usage(1), req("c", 20).text(100).usage(1)),
		Expected: figs{
			"requests.one_token":        v(3),
			"tpot_ms.n":                 v(0),
			"tpot_ms.mean":              none,
			"tpot_ms.p50":               none,
			"tpot_ms.gap_weighted_mean": none,
			"itl_ms.n":                  v(0),
			"itl_ms.mean":               none,
			"ttft_ms.n":                 v(3),
			"ttft_ms.mean":              v(90),
			"request.a.tpot_ms":         none,
			"request.a.user_tps":        none,
		},
	})
	{
		var rs []*Request
		for i, t := range []float64{100, 110, 120, 130, 140} {
			rs = append(rs, req(fmt.Sprintf("one-%d", i), float64(i)*1000).text(t).usage(1).inRun(1))
		}
		for i, t := range []float64{400, 500, 600, 700, 800} {
			rs = append(rs, req(fmt.Sprintf("two-%d", i), float64(i)*1000).text(t).usage(1).inRun(2))
		}
		add(Case{
			ID:      "trap-averaged-percentiles",
			Trap:    "Percentiles of two runs averaged instead of taken over the pooled per-request sample.",
			Section: sw + "§2.5 Aggregation (never average percentiles of different series)",
			Arithmetic: "pooled TTFTs 100 … 140, 400 … 800: nearest-rank p50 = 5th = 140 (mean of the runs' p50s: (120 + 600)/2 = 360); " +
				"p90 = 9th = 700 (mean of the runs' p90s: (140 + 800)/2 = 470)",
			Options:  nearest(50, 90),
			Requests: reqs(rs...),
			Expected: figs{
				"ttft_ms.n":   v(10),
				"ttft_ms.p50": v(140),
				"ttft_ms.p90": v(700),
			},
		})
	}
	add(Case{
		ID:         "trap-one-token-tpot-zero",
		Trap:       "A one-token request given a TPOT of 0 ms, which drags the mean TPOT down.",
		Section:    sw + "§2.2 Zero- and one-token outputs",
		Arithmetic: "r1: 1 token, no TPOT; r2: 3 tokens 100, 140, 180, TPOT 40; mean TPOT 40 (not (0 + 40)/2 = 20)",
		Options:    nearest(50),
		Requests:   reqs(req("r1", 0).text(80).usage(1), req("r2", 0).text(100, 140, 180).usage(3)),
		Expected: figs{
			"tpot_ms.n":           v(1),
			"tpot_ms.mean":        v(40),
			"request.r1.tpot_ms":  none,
			"request.r1.user_tps": none,
			"requests.one_token":  v(1),
		},
	})
	add(Case{
		ID:         "trap-e2e-at-done",
		Trap:       "E2E ended at the usage frame or [DONE] instead of the last text chunk, which also inflates TPOT.",
		Section:    sw + "§2.2 (trailing usage and [DONE] frames are not tokens) and §4.3 step 2",
		Arithmetic: "text at 100, 120, 140; usage at 400, [DONE] at 401: E2E 140, TPOT 40/2 = 20",
		Options:    nearest(50),
		Requests:   reqs(req("tail", 0).text(100, 120, 140).event(KindUsage, 400).event(KindDone, 401).usage(3)),
		Expected: figs{
			"request.tail.e2e_ms":  v(140),
			"request.tail.tpot_ms": v(20),
			"e2e_ms.max":           v(140),
		},
	})
	add(Case{
		ID:         "trap-frames-as-chunks",
		Trap:       "Role, usage and [DONE] frames counted as chunks or tokens, adding gaps that are not between tokens.",
		Section:    sw + "§2.2 (trailing usage and [DONE] frames are not tokens; keep them out of the count)",
		Arithmetic: "role 50, text 100, 110, 120, 130, usage 131, [DONE] 132: 3 gaps of 10; TPOT 30/3 = 10",
		Options:    nearest(50),
		Requests: reqs(req("frames", 0).event(KindRole, 50).text(100, 110, 120, 130).
			event(KindUsage, 131).event(KindDone, 132).usage(4)),
		Expected: figs{
			"itl_ms.n":               v(3),
			"itl_ms.mean":            v(10),
			"itl_ms.min":             v(10),
			"request.frames.tpot_ms": v(10),
		},
	})
	add(Case{
		ID:         "trap-tpot-with-ttft",
		Trap:       "Time per output token taken from the send, (E2E)/n, so that a long prefill inflates it.",
		Section:    sw + "§2.2 (TPOT = (E2E − TTFT)/(n − 1))",
		Arithmetic: "TTFT 1000, 5 tokens 10 ms apart: TPOT 40/4 = 10 (not 1040/5 = 208)",
		Options:    nearest(50),
		Requests:   reqs(req("slowstart", 0).every(5, 1000, 10).usage(5)),
		Expected: figs{
			"request.slowstart.tpot_ms": v(10),
			"tpot_ms.mean":              v(10),
		},
	})
	add(Case{
		ID:      "trap-intra-chunk-zeros",
		Trap:    "Tokens of one chunk given the chunk's arrival, so that the gap list holds zero gaps that were never measured.",
		Section: sw + "§2.2 (what is genuinely not recoverable: the arrival of a token inside a chunk)",
		Arithmetic: "two chunks of 3 tokens at 100 and 160: one chunk gap of 60 (not 60 and four zeros); " +
			"TPOT 60/5 = 12",
		Options:  nearest(50),
		Requests: reqs(req("bundled", 0).textTokens(100, 3).textTokens(160, 3).usage(6)),
		Expected: figs{
			"itl_ms.n":                v(1),
			"itl_ms.min":              v(60),
			"itl_ms.p50":              v(60),
			"request.bundled.tpot_ms": v(12),
		},
	})
	add(Case{
		ID:         "trap-one-token-no-ttft",
		Trap:       "A one-token stream given no TTFT because it has no second token time.",
		Section:    sw + "§2.1 TTFT (the first chunk carrying output text)",
		Arithmetic: "one token at 80 ms: TTFT 80, E2E 80, no TPOT",
		Options:    nearest(50),
		Requests:   reqs(req("single", 0).text(80).usage(1)),
		Expected: figs{
			"ttft_ms.n":              v(1),
			"ttft_ms.p50":            v(80),
			"request.single.ttft_ms": v(80),
			"request.single.e2e_ms":  v(80),
			"request.single.tpot_ms": none,
			"requests.one_token":     v(1),
		},
	})
	add(Case{
		ID:      "trap-all-failed",
		Trap:    "Statistics of empty lists reported as 0 ms (numpy's mean of nothing) when every request failed.",
		Section: "Every figure that cannot be computed is absent (" + sw + "§2.2: a failed request is not a latency sample)",
		Arithmetic: "3 failed requests: no TTFT, E2E or TPOT sample, all absent; over a declared 10 s window 0 tokens/s; " +
			"under TTFT ≤ 1 s none is good: attainment 0/3",
		Options: nearest(50, 99).withWindow(10000).withSLO(SLO{TTFT: ms(1000)}),
		Requests: reqs(
			req("e1", 0).fail("error", "HTTP 500: internal server error"),
			req("e2", 100).fail("timeout", "no answer within 30 s"),
			req("e3", 200).fail("cancelled", "the client stopped")),
		Expected: merge(counts(3, 0, 0, 3), figs{
			"ttft_ms.n":           v(0),
			"ttft_ms.mean":        none,
			"ttft_ms.p50":         none,
			"ttft_ms.p99":         none,
			"e2e_ms.mean":         none,
			"tpot_ms.mean":        none,
			"itl_ms.mean":         none,
			"output_tokens_per_s": v(0),
			"requests_per_s":      v(0),
			"goodput.good":        v(0),
			"goodput.attainment":  v(0),
		}),
	})
	add(Case{
		ID:         "trap-added-token-rates",
		Trap:       "Prompt and output tokens added into one tokens/s figure.",
		Section:    sw + "§2.4 (never add the two into one tokens/s figure)",
		Arithmetic: "2 requests of 100 prompt and 10 output tokens over a declared 2 s window: output 20/2 = 10, prompt 200/2 = 100 tokens/s (not 110)",
		Options:    nearest(50).withWindow(2000),
		Requests: reqs(
			req("a", 0).every(10, 100, 10).usage(10).prompt(100),
			req("b", 500).every(10, 100, 10).usage(10).prompt(100)),
		Expected: figs{
			"output_tokens_per_s": v(10),
			"prompt_tokens_per_s": v(100),
			"requests_per_s":      v(1),
		},
	})
	add(Case{
		ID:      "trap-failed-partial-output",
		Trap:    "A request that failed after streaming some text, or a zero-token reply, counted in TTFT, in tokens delivered or in completed requests.",
		Section: sw + "§2.4 (RPS counts completed requests) and §2.2 (n = 0 is not a latency sample)",
		Arithmetic: "a and b: 10 tokens each; c: 3 text chunks then an error: not ok, no TTFT, no tokens; " +
			"z: usage 0 and no text: zero-token, no TTFT; over 1 s: 20 output tokens/s, 2 requests/s",
		Options: nearest(50).withWindow(1000),
		Requests: reqs(
			req("a", 0).every(10, 100, 10).usage(10),
			req("b", 100).every(10, 100, 10).usage(10),
			req("c", 200).text(50, 60, 70).fail("error", "stream ended with an error event: out of memory"),
			req("z", 300).event(KindRole, 40).event(KindUsage, 41).event(KindDone, 42).usage(0)),
		Expected: merge(counts(4, 2, 1, 1), figs{
			"output_tokens_per_s": v(20),
			"requests_per_s":      v(2),
			"ttft_ms.n":           v(2),
			"ttft_ms.min":         v(100),
			"request.c.ttft_ms":   none,
			"request.z.ttft_ms":   none,
		}),
	})
	add(Case{
		ID:      "trap-warmup-kept",
		Trap:    "Warm-up requests kept in the latency samples, the attainment denominator or the window.",
		Section: sw + "§4.2 Warm-up (discard all warm-up measurements) and §4.4 (the window sits inside steady state)",
		Arithmetic: "5 requests sent at 0 … 400 ms, the first 2 warm-up (TTFT 900, 800); measured TTFT 100, 110, 120: mean 110; " +
			"TTFT ≤ 500: 3 of 3 good; window from the first measured send (200) to the last text (400 + 120 = 520): 320 ms, " +
			"3/0.32 = 9.375 requests/s",
		Options: Options{Method: "nearest-rank", Percentiles: []float64{50}, WarmupRequests: 2, SLO: &SLO{TTFT: ms(500)}},
		Requests: reqs(
			req("w1", 0).text(900).usage(1),
			req("w2", 100).text(800).usage(1),
			req("m1", 200).text(100).usage(1),
			req("m2", 300).text(110).usage(1),
			req("m3", 400).text(120).usage(1)),
		Expected: figs{
			"requests.offered":   v(5),
			"requests.warmup":    v(2),
			"requests.ok":        v(3),
			"ttft_ms.n":          v(3),
			"ttft_ms.mean":       v(110),
			"ttft_ms.max":        v(120),
			"goodput.attainment": v(1),
			"goodput.good":       v(3),
			"requests_per_s":     v(9.375),
		},
	})
	ttfts := func(prefix string, ts ...float64) []Request {
		var rs []*Request
		for i, t := range ts {
			rs = append(rs, req(fmt.Sprintf("%s%d", prefix, i), float64(i)*100).text(t).usage(1))
		}
		return reqs(rs...)
	}
	add(Case{
		ID:         "method-nearest-rank",
		Trap:       "A percentile computed by another method than the one named (here nearest rank, a real sample).",
		Section:    sw + "§2.5 Percentiles (name the percentile policy)",
		Arithmetic: "TTFT 100, 200, 300, 400; rank ⌈p·4/100⌉: p25 → 1st 100, p50 → 2nd 200, p90 → 4th 400",
		Options:    nearest(25, 50, 90),
		Requests:   ttfts("n", 300, 100, 400, 200),
		Expected: figs{
			"ttft_ms.p25": v(100),
			"ttft_ms.p50": v(200),
			"ttft_ms.p90": v(400),
		},
	})
	add(Case{
		ID:         "method-linear",
		Trap:       "A percentile computed by another method than the one named (here linear interpolation, numpy's default).",
		Section:    sw + "§2.5 Percentiles (name the percentile policy)",
		Arithmetic: "TTFT 100, 200, 300, 400; position (4 − 1)·p/100: p25 → 0.75, 175; p50 → 1.5, 250; p90 → 2.7, 370",
		Options:    linear(25, 50, 90),
		Requests:   ttfts("l", 300, 100, 400, 200),
		Expected: figs{
			"ttft_ms.p25": v(175),
			"ttft_ms.p50": v(250),
			"ttft_ms.p90": v(370),
		},
	})
	{
		ts := make([]float64, 100)
		for i := range ts {
			ts[i] = float64(100 - i) // 100 … 1 ms
		}
		add(Case{
			ID:      "method-exact-rank",
			Trap:    "A nearest rank computed in floating point: ⌈0.07·100⌉ is 8 in float64, the 7th value in exact arithmetic.",
			Section: lm + "'Percentiles need a population'",
			Arithmetic: "TTFT 1 … 100 ms; p7 → rank ⌈7·100/100⌉ = 7 → 7 ms; p29 → 29 ms; p10 → rank 10 → 10 ms " +
				"(a running float64 sum of 100 weights of 0.01 is 0.09999999999999999 at the 10th value, below 0.1, so a search of the sums for 0.1 takes the 11th)",
			Options:  nearest(7, 10, 29),
			Requests: ttfts("e", ts...),
			Expected: figs{
				"ttft_ms.p7":  v(7),
				"ttft_ms.p10": v(10),
				"ttft_ms.p29": v(29),
			},
		})
	}
	add(Case{
		ID:         "slo-strict-tie",
		Trap:       "A strict limit (TTFT < 1 s) judged as inclusive at a tie.",
		Section:    sw + "§2.5 Goodput (TTFT < 1 s)",
		Arithmetic: "strict TTFT < 1000 ms: TTFT 1000 is not good, 999 is; attainment 1/2",
		Options:    nearest(50).withSLO(SLO{TTFT: ms(1000), Strict: true}),
		Requests:   reqs(req("at", 0).text(1000, 1010).usage(2), req("below", 0).text(999, 1010).usage(2)),
		Expected: figs{
			"goodput.good":       v(1),
			"goodput.attainment": v(0.5),
		},
	})
	add(Case{
		ID:         "slo-max-gap",
		Trap:       "Goodput judged on mean TPOT alone, so a 200 ms stall passes a 100 ms limit on the largest gap.",
		Section:    lm + "'Start with the timestamps' (the 80 ms average hides a 200 ms pause)",
		Arithmetic: "gaps 20, 200, 20: TPOT 80 ≤ 100 passes, largest gap 200 > 100 fails: not good",
		Options:    nearest(50).withSLO(SLO{TPOT: ms(100), MaxGap: ms(100)}),
		Requests:   reqs(req("four", 0).text(100, 120, 320, 340).usage(4)),
		Expected: figs{
			"goodput.good":       v(0),
			"goodput.attainment": v(0),
		},
	})

	add(Case{
		ID:      "slo-max-gap-one-token",
		Trap:    "A one-token request failed by a limit on the largest gap, though with one text chunk it has no gap to exceed.",
		Section: lm + "'Start with the timestamps' (for one output token there is no later gap)",
		Arithmetic: "limits TTFT ≤ 500 and largest gap ≤ 50: one (1 token at 100) and burst (4 tokens in one chunk at 120) have no gap, " +
			"so the max_gap limit does not apply to them, and their TTFTs pass: good; stall: gaps 30, 100, and 100 > 50: not good; " +
			"steady: gaps 40, 40: good; attainment 3/4",
		Options: nearest(50).withSLO(SLO{TTFT: ms(500), MaxGap: ms(50)}),
		Requests: reqs(
			req("one", 0).text(100).usage(1),
			req("burst", 0).textTokens(120, 4).usage(4),
			req("stall", 0).text(100, 130, 230).usage(3),
			req("steady", 0).text(100, 140, 180).usage(3)),
		Expected: figs{
			"goodput.good":             v(3),
			"goodput.attainment":       v(0.75),
			"request.one.max_gap_ms":   none,
			"request.burst.max_gap_ms": none,
			"request.stall.max_gap_ms": v(100),
			"request.one.tpot_ms":      none,
			"requests.one_token":       v(1),
		},
	})

	// ---- Edges.

	add(Case{
		ID:         "edge-no-requests",
		Trap:       "An empty run given 0 ms latencies instead of no figures.",
		Section:    sw + "§2.5 (percentiles over the pooled per-request sample: there is none)",
		Arithmetic: "no request: every count 0, every latency absent",
		Options:    nearest(50),
		Requests:   []Request{},
		Expected: merge(counts(0, 0, 0, 0), figs{
			"ttft_ms.n":    v(0),
			"ttft_ms.mean": none,
			"ttft_ms.p50":  none,
			"e2e_ms.p50":   none,
			"tpot_ms.p50":  none,
		}),
	})
	add(Case{
		ID:         "edge-one-request",
		Trap:       "A distribution of one value, where every percentile is that value.",
		Section:    sw + "§2.5 Percentiles",
		Arithmetic: "one request, 3 tokens at 100, 130, 160: TTFT p50 = p99 = 100, TPOT 30, E2E 160",
		Options:    nearest(50, 99),
		Requests:   reqs(req("only", 0).text(100, 130, 160).usage(3)),
		Expected: merge(counts(1, 1, 0, 0), figs{
			"ttft_ms.p50": v(100),
			"ttft_ms.p99": v(100),
			"tpot_ms.p50": v(30),
			"tpot_ms.p99": v(30),
			"e2e_ms.p99":  v(160),
		}),
	})
	add(Case{
		ID:         "edge-two-requests-linear",
		Trap:       "Interpolation between two values: p99 by linear interpolation is not the maximum.",
		Section:    sw + "§2.5 Percentiles",
		Arithmetic: "TTFT 100 and 300; linear: p50 at 0.5 → 200, p99 at 0.99 → 100 + 0.99·200 = 298",
		Options:    linear(50, 99),
		Requests:   reqs(req("x", 0).text(300).usage(1), req("y", 0).text(100).usage(1)),
		Expected: figs{
			"ttft_ms.p50": v(200),
			"ttft_ms.p99": v(298),
			"ttft_ms.max": v(300),
		},
	})
	add(Case{
		ID:         "edge-ties",
		Trap:       "Tied values: ranks among equal samples must not be broken by input order or interpolation.",
		Section:    sw + "§2.5 Percentiles",
		Arithmetic: "TTFT 100, 200, 100, 100; nearest rank: p50 → 2nd of 100, 100, 100, 200 = 100; p75 → 3rd = 100; p99 → 4th = 200",
		Options:    nearest(50, 75, 99),
		Requests:   ttfts("t", 100, 200, 100, 100),
		Expected: figs{
			"ttft_ms.p50":  v(100),
			"ttft_ms.p75":  v(100),
			"ttft_ms.p99":  v(200),
			"ttft_ms.mean": v(125),
		},
	})
	add(Case{
		ID:         "edge-zero-token",
		Trap:       "A zero-token reply (immediate stop) given a TTFT or judged good.",
		Section:    sw + "§2.2 (n = 0 is not a latency sample; count it separately)",
		Arithmetic: "one ok request with usage 0 and no text: zero-token, no TTFT; under TTFT ≤ 1 s it is not good: 0/1",
		Options:    nearest(50).withSLO(SLO{TTFT: ms(1000)}),
		Requests:   reqs(req("stop", 0).event(KindRole, 30).event(KindUsage, 40).event(KindDone, 41).usage(0)),
		Expected: merge(counts(1, 0, 1, 0), figs{
			"ttft_ms.n":            v(0),
			"ttft_ms.mean":         none,
			"request.stop.ttft_ms": none,
			"goodput.good":         v(0),
			"goodput.attainment":   v(0),
		}),
	})
	add(Case{
		ID:         "edge-equal-arrivals",
		Trap:       "Two chunks arriving at the same instant: a gap of 0 is a real gap, not an error or a missing value.",
		Section:    sw + "§2.2 ITL",
		Arithmetic: "text at 100, 100, 150, 3 tokens: gaps 0 and 50; TPOT 50/2 = 25; largest gap 50",
		Options:    nearest(50),
		Requests:   reqs(req("same", 0).text(100, 100, 150).usage(3)),
		Expected: figs{
			"itl_ms.n":                v(2),
			"itl_ms.min":              v(0),
			"itl_ms.max":              v(50),
			"request.same.tpot_ms":    v(25),
			"request.same.max_gap_ms": v(50),
		},
	})
	add(Case{
		ID:         "edge-zero-decode-time",
		Trap:       "All tokens in one chunk: a TTFT that is the whole answer's time and a TPOT of 0 (or a User TPS of infinity) instead of figures absent for an answer that was not streamed.",
		Section:    sw + "§2.4 (User TPS = (n − 1)/(E2E − TTFT), which has no value when E2E = TTFT), and the client boundary of lesson 000 (a response delivered whole cannot reveal TTFT)",
		Arithmetic: "one chunk of 3 tokens at 100 ms: the text came at once, so E2E 100 ms; TTFT, TPOT and User TPS absent; no gap",
		Options:    nearest(50),
		Requests:   reqs(req("burst", 0).textTokens(100, 3).usage(3)),
		Expected: figs{
			"request.burst.e2e_ms":     v(100),
			"request.burst.ttft_ms":    none,
			"request.burst.tpot_ms":    none,
			"request.burst.user_tps":   none,
			"request.burst.max_gap_ms": none,
			"itl_ms.n":                 v(0),
		},
	})
	add(Case{
		ID:         "edge-epoch-offset",
		Trap:       "TTFT measured from the run's start instead of from the request's own send.",
		Section:    sw + "§2.1 TTFT (start = client sends the request)",
		Arithmetic: "sent at 5000 ms, text at 5120, 5150: TTFT 120 (not 5120), E2E 150",
		Options:    nearest(50),
		Requests:   reqs(req("later", 5000).text(120, 150).usage(2)),
		Expected: figs{
			"request.later.ttft_ms": v(120),
			"request.later.e2e_ms":  v(150),
			"ttft_ms.p50":           v(120),
		},
	})
	add(Case{
		ID:      "edge-chunks-no-usage",
		Trap:    "A stream with text but no usage: its TTFT dropped, or its chunk count (or max_tokens) taken for its tokens.",
		Section: sw + "§2.2 (n is the reported count, not the number of chunks) and §2.1 (TTFT needs no count); issue 20",
		Arithmetic: "r1: 4 text chunks 100 … 160, no usage, max_tokens 100: TTFT 100 and E2E 160 kept, its 3 chunk gaps of 20 kept, " +
			"no TPOT, no tokens; r2: 4 tokens 100 … 190, TPOT 30; over 1 s: 4 output tokens/s, 2 requests/s; gaps 3 + 3",
		Options: nearest(50).withWindow(1000),
		Requests: reqs(
			func() *Request { r := req("r1", 0).every(4, 100, 20); r.MaxTokens = 100; return r }(),
			req("r2", 0).every(4, 100, 30).usage(4)),
		Expected: merge(counts(2, 2, 0, 0), figs{
			"requests.no_token_count": v(1),
			"request.r1.ttft_ms":      v(100),
			"request.r1.e2e_ms":       v(160),
			"request.r1.tpot_ms":      none,
			"request.r1.user_tps":     none,
			"request.r1.max_gap_ms":   v(20),
			"ttft_ms.n":               v(2),
			"tpot_ms.n":               v(1),
			"tpot_ms.mean":            v(30),
			"itl_ms.n":                v(6),
			"output_tokens_per_s":     v(4),
			"requests_per_s":          v(2),
		}),
	})
	add(Case{
		ID:         "edge-usage-zero-with-text",
		Trap:       "A usage block that says 0 tokens beside text chunks taken as a zero-token reply, losing the TTFT.",
		Section:    sw + "§2.1 TTFT and §2.2 (check the count against the text-bearing chunks); issue 20",
		Arithmetic: "2 text chunks at 100, 150 and usage 0: TTFT 100 kept, no TPOT, counted as having no token count",
		Options:    nearest(50),
		Requests:   reqs(req("z", 0).text(100, 150).usage(0)),
		Expected: merge(counts(1, 1, 0, 0), figs{
			"requests.no_token_count": v(1),
			"request.z.ttft_ms":       v(100),
			"request.z.tpot_ms":       none,
			"tpot_ms.n":               v(0),
		}),
	})
	add(Case{
		ID:         "edge-derived-window",
		Trap:       "Rates over a window that is not the one named: here from the first send to the last text chunk.",
		Section:    sw + "§2.4 (System TPS = total output tokens / (T_last − T_first); state the denominator)",
		Arithmetic: "a sent 0, 10 tokens 100 … 1000; b sent 500, 10 tokens ending at 500 + 1000: window 1.5 s; 20/1.5 tokens/s; 2/1.5 requests/s",
		Options:    nearest(50),
		Requests: reqs(
			req("a", 0).every(10, 100, 100).usage(10),
			req("b", 500).every(10, 100, 100).usage(10)),
		Expected: figs{
			"output_tokens_per_s": v(20 / 1.5),
			"requests_per_s":      v(2 / 1.5),
		},
	})

	return cs
}
