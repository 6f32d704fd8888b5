package gpu

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"
)

// ErrNoNvidiaSMI is the error of Start where nvidia-smi is not found.
var ErrNoNvidiaSMI = errors.New("gpu: nvidia-smi not found")

// Options configure a Sampler.
type Options struct {
	// Command is nvidia-smi's name or path; "" is "nvidia-smi", looked up
	// on PATH.
	Command string
	// Interval is the time between samples; 0 is 200 ms. nvidia-smi's
	// loop mode (-lms) keeps one process running, so sampling costs no
	// process start per sample.
	Interval time.Duration
	// Now stamps the samples; nil is time.Now.
	Now func() time.Time
}

// A Sampler reads samples from a running nvidia-smi until stopped.
type Sampler struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	samples []Sample
	bad     int   // lines that were not samples
	err     error // the first of them
}

// Start starts nvidia-smi in loop mode and collects its samples until Stop
// or until ctx ends. It returns ErrNoNvidiaSMI where the command is not
// found.
func Start(ctx context.Context, o Options) (*Sampler, error) {
	name := o.Command
	if name == "" {
		name = "nvidia-smi"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoNvidiaSMI, err)
	}
	interval := o.Interval
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, bin, "--query-gpu="+Query, "--format=csv,noheader,nounits",
		fmt.Sprintf("-lms=%d", max(interval.Milliseconds(), 1)))
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("gpu: starting %s: %w", bin, err)
	}
	s := &Sampler{cmd: cmd, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				continue
			}
			smp, err := ParseSample(line, now())
			s.mu.Lock()
			if err != nil {
				s.bad++
				if s.err == nil {
					s.err = err
				}
			} else {
				s.samples = append(s.samples, smp)
			}
			s.mu.Unlock()
		}
	}()
	return s, nil
}

// Stop stops nvidia-smi and returns every sample taken, in arrival order.
// The error, when not nil, says how many lines were not samples and
// quotes the first; the samples are returned all the same.
func (s *Sampler) Stop() ([]Sample, error) {
	s.cancel()
	<-s.done
	s.cmd.Wait() // killed by the cancel: its exit status says nothing
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bad > 0 {
		return s.samples, fmt.Errorf("%d lines of nvidia-smi output were not samples; the first: %w", s.bad, s.err)
	}
	return s.samples, nil
}
