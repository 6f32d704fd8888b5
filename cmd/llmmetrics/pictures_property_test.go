package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// smallRun writes 1 to 6 records in llmmetrics' JSONL, made to hit the
// degenerate cases: equal values, 0 and 1 ms, one chunk, failures,
// zero-token requests, every send at 0.
func smallRun(t *rapid.T, path string) {
	ns := rapid.SampledFrom([]int{0, 1_000_000, 1_000_000, 2_200_000, 2_400_000, 40_000_000, 1_000_000_000})
	var b strings.Builder
	for i := range rapid.IntRange(1, 6).Draw(t, "n") {
		sent := ns.Draw(t, "sent") * i
		switch rapid.IntRange(0, 7).Draw(t, "status") {
		case 0:
			fmt.Fprintf(&b, `{"id":"r%d","status":"error","sent_ns":%d}`+"\n", i, sent)
			continue
		case 1:
			fmt.Fprintf(&b, `{"id":"r%d","status":"timeout","sent_ns":%d}`+"\n", i, sent)
			continue
		}
		chunks := rapid.IntRange(0, 4).Draw(t, "chunks")
		var at []string
		v := ns.Draw(t, "ttft")
		for range chunks {
			at = append(at, fmt.Sprint(v))
			v += ns.Draw(t, "gap")
		}
		fmt.Fprintf(&b, `{"id":"r%d","status":"ok","sent_ns":%d,"chunk_arrivals_ns":[%s],"completion_tokens":%d}`+"\n",
			i, sent, strings.Join(at, ","), chunks*rapid.IntRange(0, 2).Draw(t, "perChunk"))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Whatever small run report, diff and sweep accept, they accept with
// --html and --plot too, and print the same text: the pictures never take
// the command down, nor change its figures.
func TestPicturesNeverFail(t *testing.T) {
	if raceEnabled {
		// The race detector makes drawing ten times slower and has no
		// goroutines to watch here: 10 cases rather than 100.
		f := flag.Lookup("rapid.checks")
		old := f.Value.String()
		require.NoError(t, f.Value.Set("10"))
		t.Cleanup(func() { f.Value.Set(old) })
	}
	dir := t.TempDir()
	succeeded := map[string]int{}
	rapid.Check(t, func(rt *rapid.T) {
		a, b, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")
		smallRun(rt, a)
		smallRun(rt, b)
		smallRun(rt, c)
		pics := []string{"--html", filepath.Join(dir, "page.html")}
		if rapid.IntRange(0, 4).Draw(rt, "plot") == 0 {
			pics = append(pics, "--plot", filepath.Join(dir, "charts"))
		}
		slo := []string{"--slo", "ttft=40ms"}
		args := rapid.SampledFrom([][]string{
			{"report", "--lenient", a},
			append([]string{"report", "--lenient"}, append(slo, a)...),
			{"diff", "--lenient", a + "," + b, c},
			append([]string{"sweep", "--lenient", "--level", a + "=1", "--level", b + "=2", "--level", c + "=2"}, append(slo, a, b, c)...),
		}).Draw(rt, "command")
		code, out, errs := runCLI(t, "", args...)
		withPics := append(append([]string{args[0]}, pics...), args[1:]...)
		code2, out2, errs2 := runCLI(t, "", withPics...)
		require.Equal(rt, code, code2, "%v: %s / %s", args, errs, errs2)
		require.Equal(rt, out, out2, "%v", args)
		if code == 0 {
			succeeded[args[0]]++
		}
	})
	t.Logf("commands that succeeded: %v", succeeded)
	if raceEnabled {
		return // too few cases to be sure each command succeeds once
	}
	for _, cmd := range []string{"report", "diff", "sweep"} {
		require.Positive(t, succeeded[cmd], "%s never accepted a run: the test would not see its charts", cmd)
	}
}
