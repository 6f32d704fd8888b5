//go:build linux

package formats

import (
	"os"
	"syscall"
)

// mapFile maps a file read-only into memory, with its pages read in at
// once (MAP_POPULATE). The mapping must not be used after release.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	if int64(int(size)) != size {
		return nil, nil, syscall.EFBIG
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}
