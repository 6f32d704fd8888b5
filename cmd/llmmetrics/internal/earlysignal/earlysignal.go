// Package earlysignal catches SIGINT, SIGTERM and SIGHUP from the start of
// a process of the run command (os.Args[1] == "run"), as soon as the
// packages it needs are initialized: before the command's own packages,
// its planning and its output checks, so that a signal in the process's
// first milliseconds is the command's to handle (exit status 5: nothing
// was measured), not the default death. A signal before the Go runtime
// itself has started cannot be caught by any handler of the process.
package earlysignal

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

var (
	mu     sync.Mutex
	caught chan os.Signal
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == "run" {
		caught = make(chan os.Signal, 4)
		signal.Notify(caught, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	}
}

// Take returns the channel that has caught the signals since the
// process began, once, its signals still pending in it; nil when none
// was caught for (not the run command) or it was taken. The caller
// stops it with signal.Stop.
func Take() chan os.Signal {
	mu.Lock()
	defer mu.Unlock()
	c := caught
	caught = nil
	return c
}
