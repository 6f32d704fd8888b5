package hugepage

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// Make gives what make gives: the length, the capacity and zeros.
func TestMake(t *testing.T) {
	for _, c := range []struct{ n, c int }{{0, 0}, {0, 10}, {3, 3}, {1 << 20, 1 << 20}, {5, 1 << 20}} {
		s := Make[int64](c.n, c.c)
		if len(s) != c.n || cap(s) != c.c {
			t.Fatalf("Make(%d, %d): len %d cap %d", c.n, c.c, len(s), cap(s))
		}
		for i, v := range s[:cap(s)] {
			if v != 0 {
				t.Fatalf("Make(%d, %d)[%d] = %d", c.n, c.c, i, v)
			}
		}
	}
}

// whole keeps to the whole 2 MiB pages inside a range. P is 2 MiB.
func TestWhole(t *testing.T) {
	const P = 2 << 20
	for _, c := range []struct{ start, bytes, off, n uintptr }{
		{0, 2 * P, 0, 2 * P},           // aligned: both pages
		{P - 4096, 2 * P, 4096, P},     // ends at 3P − 4096: only [P, 2P) is whole
		{P + 1, 2*P - 1, P - 1, P},     // ends at 3P: [2P, 3P)
		{4096, P, 0, 0},                // ends at P + 4096: no whole page
		{3 * P, 5*P + 100, 0, 5 * P},   // a ragged end: [3P, 8P)
		{3*P + 8, 5 * P, P - 8, 4 * P}, // ragged at both ends: [4P, 8P)
		{P, 0, 0, 0},                   // nothing
	} {
		off, n := whole(c.start, c.bytes)
		if off != c.off || n != c.n {
			t.Errorf("whole(%#x, %#x) = %#x, %#x; want %#x, %#x", c.start, c.bytes, off, n, c.off, c.n)
		}
	}
}

// On Linux with transparent huge pages, the kernel takes the advice: the
// mapping that holds a large slice is marked for huge pages ("hg" among
// its VmFlags in /proc/self/smaps).
func TestAdviceTaken(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("huge pages are asked for on Linux only")
	}
	if off {
		t.Skip("the package is off (race detector, nohugepage or " + envOff + "=off)")
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("this kernel gives no transparent huge pages (%q, %v)", mode, err)
	}
	s := Make[byte](16<<20, 16<<20)
	off, _ := whole(uintptr(unsafe.Pointer(&s[0])), uintptr(len(s)))
	addr := uint64(uintptr(unsafe.Pointer(&s[off])))
	flags := vmFlags(t, addr)
	runtime.KeepAlive(s)
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("the mapping at %#x has VmFlags %q, without hg", addr, flags)
	}
}

// vmFlags returns the VmFlags of the mapping that holds addr.
func vmFlags(t *testing.T, addr uint64) string {
	flags, ok := findMapping(t, addr)
	if !ok {
		t.Fatalf("no mapping holds %#x", addr)
	}
	return flags
}

// findMapping returns the VmFlags of the mapping that holds addr, and
// whether there is one.
func findMapping(t *testing.T, addr uint64) (string, bool) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := mappingRange(line); ok {
			in = lo <= addr && addr < hi
			continue
		}
		if in {
			if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok {
				return strings.TrimSpace(flags), true
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading smaps: %v", err)
	}
	return "", false
}

// mappingRange parses the range of a mapping's first line in smaps,
// "lo-hi perms ...".
func mappingRange(line string) (lo, hi uint64, ok bool) {
	r, _, found := strings.Cut(line, " ")
	a, b, dash := strings.Cut(r, "-")
	if !found || !dash {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseUint(a, 16, 64)
	hi, err2 := strconv.ParseUint(b, 16, 64)
	return lo, hi, err1 == nil && err2 == nil
}

// Map gives n zeros that can be written, small or large; release can be
// called twice. On Linux, unless the package is off, a large one is mapped
// on a 2 MiB boundary, in a mapping marked for huge pages, which release
// empties and, in a test binary, leaves readable and writable by no one.
func TestMap(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 1 << 20, 3<<20 + 5} {
		s, release := Map[int64](n)
		if len(s) != n {
			t.Fatalf("Map(%d): len %d", n, len(s))
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("Map(%d)[%d] = %d", n, i, s[i])
			}
			s[i] = int64(i)
		}
		for i := range s {
			if s[i] != int64(i) {
				t.Fatalf("Map(%d)[%d] = %d after writing %d", n, i, s[i], i)
			}
		}
		if runtime.GOOS == "linux" && !off && !noHugePages && n*8 >= 2*pageSize {
			addr := uint64(uintptr(unsafe.Pointer(&s[0])))
			if addr%pageSize != 0 {
				t.Errorf("Map(%d) starts at %#x, not on a 2 MiB boundary", n, addr)
			}
			if flags := vmFlags(t, addr); !strings.Contains(" "+flags+" ", " hg ") {
				t.Errorf("Map(%d): the mapping at %#x has VmFlags %q, without hg", n, addr, flags)
			}
			if Mapped() < int64(n*8) {
				t.Errorf("Map(%d): %d bytes mapped", n, Mapped())
			}
			release()
			if Mapped() != 0 {
				t.Errorf("Map(%d): %d bytes still mapped after release", n, Mapped())
			}
			flags, ok := findMapping(t, addr)
			if ok && (strings.Contains(" "+flags+" ", " rd ") || strings.Contains(" "+flags+" ", " wr ")) {
				t.Errorf("Map(%d): the mapping at %#x can still be used after release (VmFlags %q)", n, addr, flags)
			}
		}
		release()
	}
}

// Peak is the most bytes mapped at once since ResetPeak: two mappings of
// 4 MiB held together, then one, peak at 8 MiB and the mapping pages
// around each (one more huge page each, mapAligned's).
func TestPeak(t *testing.T) {
	if runtime.GOOS != "linux" || off || noHugePages {
		t.Skip("nothing is mapped here")
	}
	ResetPeak()
	if Peak() != Mapped() {
		t.Fatalf("after ResetPeak, Peak %d, Mapped %d", Peak(), Mapped())
	}
	base := Mapped()
	const n = 4 << 20 / 8 // 4 MiB of int64
	_, release1 := Map[int64](n)
	_, release2 := Map[int64](n)
	release1()
	_, release3 := Map[int64](n)
	release2()
	release3()
	if want := base + 2*(4<<20+pageSize); Peak() != want {
		t.Errorf("Peak %d, want %d: two mappings of 4 MiB and a huge page each", Peak(), want)
	}
	ResetPeak()
	if Peak() != base {
		t.Errorf("after everything is released and ResetPeak, Peak %d, want %d", Peak(), base)
	}
}
