//go:build !linux

package formats

import (
	"errors"
	"os"
)

// mapFile is not used outside Linux: files are read instead.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	return nil, nil, errors.ErrUnsupported
}
