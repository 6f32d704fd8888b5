//go:build linux

package cpucache

import (
	"os"
	"path/filepath"
	"testing"
)

// Sizes and processor lists as sysfs writes them.
func TestParse(t *testing.T) {
	for s, want := range map[string]int{"48K": 48 << 10, "32K": 32 << 10, "1024K": 1 << 20, "32M": 32 << 20, "512": 512, "": 0, "K": 0, "-4K": 0} {
		if got := parseSize(s); got != want {
			t.Errorf("parseSize(%q) = %d, want %d", s, got, want)
		}
	}
	for s, want := range map[string]int{"0": 1, "0-1": 2, "0,2": 2, "0-3,8-11": 8, "": 0, "3-1": 0, "x": 0} {
		if got := countCPUs(s); got != want {
			t.Errorf("countCPUs(%q) = %d, want %d", s, got, want)
		}
	}
}

// The level-1 data cache is found among the caches, whatever their
// order: here an Intel Xeon's, 32 KiB shared by two hyperthreads.
func TestL1D(t *testing.T) {
	dir := t.TempDir()
	for index, c := range map[string][4]string{
		"index0": {"1", "Instruction", "32K", "0-1"},
		"index1": {"1", "Data", "32K", "0-1"},
		"index2": {"2", "Unified", "1024K", "0-1"},
	} {
		d := filepath.Join(dir, index)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, name := range []string{"level", "type", "size", "shared_cpu_list"} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(c[i]+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer func(old string) { sysCache = old }(sysCache)
	sysCache = dir
	if b, s := L1D(); b != 32<<10 || s != 2 {
		t.Errorf("L1D() = %d, %d; want 32768, 2", b, s)
	}
	sysCache = filepath.Join(dir, "none")
	if b, s := L1D(); b != 0 || s != 0 {
		t.Errorf("without sysfs, L1D() = %d, %d; want 0, 0", b, s)
	}
}
