package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The default --max-memory is half what the process may use: a pod's
// cgroup limit below the node's memory, as Kubernetes sets it, rather
// than the node's /proc/meminfo; the physical memory when the limit is
// none ("max", or v1's number near 2⁶³).
func TestUsableMemory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	meminfo := write("meminfo", "MemTotal:       16384 kB\nMemFree:        1024 kB\n") // 16 MiB
	for _, c := range []struct {
		name  string
		files []string
		want  int64
	}{
		{"v2 limit", []string{write("v2", "4194304\n")}, 4 << 20},
		{"v2 no limit", []string{write("v2max", "max\n")}, 16 << 20},
		{"v1 no limit", []string{filepath.Join(dir, "absent"), write("v1", "9223372036854771712\n")}, 16 << 20},
		{"v1 limit", []string{filepath.Join(dir, "absent"), write("v1l", "8388608\n")}, 8 << 20},
		{"none", []string{filepath.Join(dir, "absent")}, 16 << 20},
	} {
		got, ok := usableMemory(meminfo, c.files)
		if !ok || got != c.want {
			t.Errorf("%s: %d %v, want %d", c.name, got, ok, c.want)
		}
	}
	if got, ok := usableMemory(filepath.Join(dir, "absent"), []string{write("v2b", "4194304\n")}); !ok || got != 4<<20 {
		t.Errorf("a cgroup limit without meminfo: %d %v, want 4 MiB", got, ok)
	}
}
