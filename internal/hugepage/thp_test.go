//go:build linux

package hugepage

import (
	"os"
	"path/filepath"
	"testing"
)

// Map makes rather than maps only where the system's setting is never,
// or where it has no setting (no transparent huge pages built in).
func TestTHPNever(t *testing.T) {
	dir := t.TempDir()
	for setting, want := range map[string]bool{
		"always [madvise] never\n": false,
		"[always] madvise never\n": false,
		"always madvise [never]\n": true,
	} {
		path := filepath.Join(dir, "enabled")
		if err := os.WriteFile(path, []byte(setting), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := thpNever(path); got != want {
			t.Errorf("thpNever(%q) = %v, want %v", setting, got, want)
		}
	}
	if !thpNever(filepath.Join(dir, "none")) {
		t.Error("without the setting, thpNever is false")
	}
}
