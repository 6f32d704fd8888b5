package formats

import (
	"io"
	"os"
)

// load returns the whole content of r and a function to call once nothing
// refers to it any more. A regular file is mapped into memory where the
// system allows (see mapFile), which saves copying it; anything else is
// read.
func load(r io.Reader) ([]byte, func(), error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			off, err := f.Seek(0, io.SeekCurrent)
			if err == nil && off == 0 && st.Size() > 0 {
				if b, release, err := mapFile(f, st.Size()); err == nil {
					return b, release, nil
				}
			}
		}
	}
	b, err := io.ReadAll(r)
	return b, func() {}, err
}
