package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// testContext returns a context that ends shortly before the test binary's
// own deadline (go test -timeout), so that a test waiting for something
// that never comes fails with its own message, not the binary's panic; no
// shorter limit is set, so no verdict depends on the machine's speed.
func testContext(t *testing.T) context.Context {
	d, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	ctx, cancel := context.WithDeadline(t.Context(), d.Add(-min(time.Until(d)/10, 30*time.Second)))
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond every 200 ms until it holds, and fails the test with
// what it waited for and the last answer when ctx ends first.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() (bool, string)) {
	for {
		ok, last := cond()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not by the test's deadline (last: %s)", what, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// lockedBuffer keeps what a child process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// tail returns the last n bytes written, for a failure message.
func (l *lockedBuffer) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.b.Bytes()
	return string(b[max(len(b)-n, 0):])
}

// A child is a server the test started on 127.0.0.1.
type child struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:port
	log    *lockedBuffer
	exited chan struct{} // closed once the process has ended
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startChild starts bin with args(port) on a free port and waits until
// GET readyPath answers 200. A port found free can be taken before the
// child binds it (by another test of the suite): a child that ends before
// it is ready is started again on another port, three times in all. It is
// killed when the test ends.
func startChild(ctx context.Context, t *testing.T, bin string, args func(port int) []string, readyPath string) *child {
	probe := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		c := &child{base: fmt.Sprintf("http://127.0.0.1:%d", port), log: &lockedBuffer{}, exited: make(chan struct{})}
		c.cmd = exec.CommandContext(ctx, bin, args(port)...)
		c.cmd.Stdout, c.cmd.Stderr = c.log, c.log
		if err := c.cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		go func() { c.cmd.Wait(); close(c.exited) }()
		t.Cleanup(func() { c.cmd.Process.Kill(); <-c.exited })
		ready := false
		waitFor(ctx, t, bin+" ready on "+c.base, func() (bool, string) {
			select {
			case <-c.exited:
				return true, "" // ended: decided below
			default:
			}
			resp, err := probe.Get(c.base + readyPath)
			if err != nil {
				return false, err.Error()
			}
			resp.Body.Close()
			ready = resp.StatusCode == http.StatusOK
			return ready, resp.Status
		})
		if ready {
			return c
		}
		if attempt == 3 {
			t.Fatalf("%s ended before it was ready, %d times; the last time: %v\n%s", bin, attempt, c.cmd.ProcessState, c.log.tail(2000))
		}
		t.Logf("%s on port %d ended before it was ready (%v), started again on another port: %s", bin, port, c.cmd.ProcessState,
			strings.TrimSpace(c.log.tail(300)))
	}
}
