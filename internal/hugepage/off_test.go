package hugepage

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// The tests below run a test of this package in a child process, which the
// variable child selects; each child test does nothing unless it is set to
// its name.
const child = "HUGEPAGE_TEST_CHILD"

// A slice of racyLen int64s is mapped when the package is on: 4 MiB, at
// MapFrom's default.
const racyLen = 1 << 19

// Under the race detector, a race on a slice from Map is reported: the
// slice is ordinary memory there. Mapped from the system, as it is without
// -race, the detector would not see it and the child would pass.
func TestRaceDetectorSeesMap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds this package's tests with -race in a child process")
	}
	out, err := goTest(t, "deliberate race", "-race", "-run", "^TestDeliberateRace$")
	if err == nil {
		t.Fatalf("the deliberate race passed under -race; the detector did not see it:\n%s", out)
	}
	if !strings.Contains(out, "WARNING: DATA RACE") || !strings.Contains(out, "TestDeliberateRace") {
		t.Fatalf("the child failed, but not with a data race in TestDeliberateRace (%v):\n%s", err, out)
	}
}

// TestDeliberateRace writes one element of a slice from Map in two
// goroutines that nothing orders.
func TestDeliberateRace(t *testing.T) {
	if os.Getenv(child) != "deliberate race" {
		t.Skip("a child of TestRaceDetectorSeesMap")
	}
	if racyLen*8 < MapFrom {
		t.Fatalf("%d int64s are below MapFrom (%d bytes): the race would not be on mapped memory", racyLen, MapFrom)
	}
	s, release := Map[int64](racyLen)
	defer release()
	done := make(chan bool)
	for range 2 {
		go func() {
			s[racyLen/2]++
			done <- true
		}()
	}
	<-done
	<-done
}

// With the build tag nohugepage, or LLMMETRICS_HUGEPAGE=off, Map maps
// nothing.
func TestOffSwitches(t *testing.T) {
	if off {
		t.Skip("the package is off already")
	}
	t.Run("environment", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOffChild$", "-test.v")
		cmd.Env = append(os.Environ(), child+"=off", envOff+"=off")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestOffChild") {
			t.Fatalf("child with %s=off: %v\n%s", envOff, err, out)
		}
	})
	t.Run("build tag", func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds this package's tests with -tags nohugepage in a child process")
		}
		out, err := goTest(t, "off", "-tags", "nohugepage", "-run", "^TestOffChild$", "-v")
		if err != nil || !strings.Contains(out, "--- PASS: TestOffChild") {
			t.Fatalf("child built with -tags nohugepage: %v\n%s", err, out)
		}
	})
}

// TestOffChild checks that a large slice from Map is not mapped.
func TestOffChild(t *testing.T) {
	if os.Getenv(child) != "off" {
		t.Skip("a child of TestOffSwitches")
	}
	if !off {
		t.Fatal("the package is on")
	}
	s, release := Map[int64](racyLen)
	defer release()
	s[0] = 1
	if m := Mapped(); m != 0 {
		t.Fatalf("%d bytes mapped", m)
	}
}

// In a test binary, a slice from Map used after its release faults at once.
func TestUseAfterReleaseFaults(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory is mapped apart from the heap on Linux only")
	}
	if off {
		t.Skip("the package is off (race detector, nohugepage or " + envOff + "=off): Map makes")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUseAfterRelease$")
	cmd.Env = append(os.Environ(), child+"=use after release")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child wrote after release and exited cleanly:\n%s", out)
	}
	if !strings.Contains(string(out), "SIGSEGV") || strings.Contains(string(out), "no fault") {
		t.Fatalf("the child failed (%v), but not with a fault:\n%s", err, out)
	}
}

// TestUseAfterRelease writes into a mapped slice after releasing it and
// mapping another of the same size, which an unmapped range would likely
// have been given to: the write would then land in the new slice.
func TestUseAfterRelease(t *testing.T) {
	if os.Getenv(child) != "use after release" {
		t.Skip("a child of TestUseAfterReleaseFaults")
	}
	s, release := Map[int64](racyLen)
	s[1] = 1
	if Mapped() == 0 {
		t.Fatal("nothing was mapped")
	}
	release()
	next, releaseNext := Map[int64](racyLen)
	defer releaseNext()
	s[1] = 2
	t.Fatalf("no fault: a write after release went through (the next slice starts %d bytes after, and holds %d there)",
		uintptr(unsafe.Pointer(&next[0]))-uintptr(unsafe.Pointer(&s[0])), next[1])
}

// goTest runs go test on this package with the given arguments, in a child
// whose test is selected by name, and returns its output.
func goTest(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	cmd := exec.Command(gobin, append([]string{"test", "-count=1"}, append(args, ".")...)...)
	cmd.Env = append(os.Environ(), child+"="+name, envOff+"=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
