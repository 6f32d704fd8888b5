package linecount

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// countingFile is a file that counts the bytes read from it.
type countingFile struct {
	*os.File
	read atomic.Int64
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.read.Add(int64(n))
	return n, err
}

func (f *countingFile) Stat() (fs.FileInfo, error) { return f.File.Stat() }

// sparse returns a file of head followed by zero bytes up to size bytes,
// made by truncation: it takes no room on disk and no time to write.
func sparse(t *testing.T, head string, size int64) *countingFile {
	t.Helper()
	path := filepath.Join(t.TempDir(), "zeros")
	if err := os.WriteFile(path, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &countingFile{File: f}
}

// A file with a line longer than the longest a reader takes gets no count,
// and is not read to its end: a first line without a newline in its first
// piece stops the count there; a later one, in each part, once it passes
// the limit.
func TestFileLongLine(t *testing.T) {
	const size, longest = 64 << 20, 4 << 20
	for _, c := range []struct {
		name, head string
		most       int64
	}{
		{"first line", "", piece},
		{"later line", "a,b\n1,2\n", 64 * (longest + piece)}, // at most longest+piece a part, on up to 64 cores
	} {
		t.Run(c.name, func(t *testing.T) {
			f := sparse(t, c.head, size)
			if lines, commas := File(f, longest); lines != -1 || commas != -1 {
				t.Fatalf("File = %d lines, %d commas; want -1, -1", lines, commas)
			}
			if read := f.read.Load(); read > c.most || read >= size {
				t.Errorf("read %d bytes of %d; want at most %d", read, size, c.most)
			}
			if off, _ := f.Seek(0, io.SeekCurrent); off != 0 {
				t.Errorf("offset moved to %d", off)
			}
		})
	}
}

// The lines and commas of a file whose lines are all shorter than the
// limit are counted: the head's 3 newlines, plus one for the zero bytes
// after them (a last line without a newline), and 3 + 2 + 2 commas. The
// head alone, 52 bytes of 4 lines (the last empty), averages under
// MinLineBytes a line, and gets no count.
func TestFileCounts(t *testing.T) {
	const head = "a,b,c,0000000000\nd,e,0000000000000\nf,g,000000000000\n"
	f := sparse(t, head, 100)
	if lines, commas := File(f, 1<<20); lines != 4 || commas != 7 {
		t.Fatalf("File = %d lines, %d commas; want 4, 7", lines, commas)
	}
	g := sparse(t, head, int64(len(head)))
	if lines, commas := File(g, 1<<20); lines != -1 || commas != -1 {
		t.Fatalf("File = %d lines, %d commas; want -1, -1", lines, commas)
	}
}
