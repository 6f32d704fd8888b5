//go:build !unix

package genhealth

import (
	"errors"
	"runtime"
	"time"
)

// cpuTime returns an error: the process's CPU time is read on Unix only.
func cpuTime() (time.Duration, error) {
	return 0, errors.New("it is read on Unix only, and this is " + runtime.GOOS)
}
