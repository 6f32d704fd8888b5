package gpu

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrBadSample is the error of a line of nvidia-smi output that is not a
// sample.
var ErrBadSample = errors.New("gpu: not a sample")

// Query is the --query-gpu list the Sampler asks nvidia-smi for, in the
// order ParseSample reads.
const Query = "index,utilization.gpu,memory.used,memory.total,power.draw"

// A Sample is one reading of one GPU.
type Sample struct {
	At    time.Time // when the line arrived
	Index int       // the GPU's index

	UtilizationPct float64
	MemoryUsedMiB  float64
	MemoryTotalMiB float64
	PowerW         float64

	// Which values nvidia-smi gave: a value it reports as [N/A] or
	// [Not Supported] is unknown and left 0.
	HasUtilization, HasMemory, HasPower bool
}

// ParseSample reads one line of
//
//	nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total,power.draw --format=csv,noheader,nounits
//
// stamped at. A field in brackets ([N/A], [Not Supported]) is unknown; any
// other field that is not a finite, non-negative number is an error
// wrapping ErrBadSample.
func ParseSample(line string, at time.Time) (Sample, error) {
	f := strings.Split(strings.TrimSpace(line), ",")
	if len(f) != 5 {
		return Sample{}, fmt.Errorf("%w: %q has %d fields, want 5 (%s)", ErrBadSample, line, len(f), Query)
	}
	s := Sample{At: at}
	idx, err := strconv.Atoi(strings.TrimSpace(f[0]))
	if err != nil || idx < 0 {
		return Sample{}, fmt.Errorf("%w: %q: GPU index %q", ErrBadSample, line, strings.TrimSpace(f[0]))
	}
	s.Index = idx
	vals := []*float64{&s.UtilizationPct, &s.MemoryUsedMiB, &s.MemoryTotalMiB, &s.PowerW}
	known := make([]bool, 4)
	for i, v := range vals {
		field := strings.TrimSpace(f[i+1])
		if strings.HasPrefix(field, "[") && strings.HasSuffix(field, "]") {
			continue
		}
		x, err := strconv.ParseFloat(field, 64)
		if err != nil || x < 0 || x != x || x > 1e12 {
			return Sample{}, fmt.Errorf("%w: %q: field %d (%s) is %q", ErrBadSample, line, i+2, strings.Split(Query, ",")[i+1], field)
		}
		*v, known[i] = x, true
	}
	s.HasUtilization, s.HasMemory, s.HasPower = known[0], known[1] && known[2], known[3]
	if !s.HasMemory {
		s.MemoryUsedMiB, s.MemoryTotalMiB = 0, 0
	}
	return s, nil
}
