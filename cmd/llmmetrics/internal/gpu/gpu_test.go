package gpu

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/doccheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every exported function and method has a doc comment and an Example.
func TestEveryFunctionHasExample(t *testing.T) { doccheck.Test(t, ".") }

func standIn(t *testing.T) string {
	p, err := filepath.Abs("testdata/nvidia-smi")
	require.NoError(t, err)
	return p
}

func TestParseSample(t *testing.T) {
	at := time.Unix(100, 0)
	for _, tc := range []struct {
		line string
		want Sample
		err  bool
	}{
		{"0, 87, 40000, 81559, 312.45", Sample{At: at, UtilizationPct: 87, MemoryUsedMiB: 40000, MemoryTotalMiB: 81559, PowerW: 312.45,
			HasUtilization: true, HasMemory: true, HasPower: true}, false},
		{"3, 0, 0, 81559, [N/A]", Sample{At: at, Index: 3, MemoryTotalMiB: 81559, HasUtilization: true, HasMemory: true}, false},
		{"1, [Not Supported], 512, [N/A], 20", Sample{At: at, Index: 1, UtilizationPct: 0, PowerW: 20, HasPower: true}, false},
		{"0,87,40000,81559,312.45\r", Sample{At: at, UtilizationPct: 87, MemoryUsedMiB: 40000, MemoryTotalMiB: 81559, PowerW: 312.45,
			HasUtilization: true, HasMemory: true, HasPower: true}, false},
		{"No devices were found", Sample{}, true},
		{"0, 87, 40000, 81559", Sample{}, true},
		{"-1, 87, 40000, 81559, 3", Sample{}, true},
		{"0, -5, 40000, 81559, 3", Sample{}, true},
		{"0, NaN, 40000, 81559, 3", Sample{}, true},
		{"0, 87, 1e400, 81559, 3", Sample{}, true},
		{"0, 87 %, 40000, 81559, 3", Sample{}, true},
	} {
		got, err := ParseSample(tc.line, at)
		if tc.err {
			assert.ErrorIs(t, err, ErrBadSample, tc.line)
			continue
		}
		require.NoError(t, err, tc.line)
		assert.Equal(t, tc.want, got, tc.line)
	}
}

func TestSummarize(t *testing.T) {
	t0 := time.Unix(0, 0)
	s := func(sec int, idx int, util, mem, power float64, hasPower bool) Sample {
		return Sample{At: t0.Add(time.Duration(sec) * time.Second), Index: idx, UtilizationPct: util, MemoryUsedMiB: mem, MemoryTotalMiB: 80000,
			PowerW: power, HasUtilization: true, HasMemory: true, HasPower: hasPower}
	}
	samples := []Sample{
		s(0, 0, 100, 9000, 400, true), // before the window
		s(1, 1, 40, 500, 0, false),
		s(1, 0, 20, 1000, 100, true),
		s(2, 0, 60, 3000, 300, true),
		s(3, 0, 70, 2000, 200, true),  // the window's end is inside it
		s(4, 0, 100, 9000, 400, true), // after
	}
	got := Summarize(samples, t0.Add(time.Second), t0.Add(3*time.Second))
	// GPU 0: utilisation (20+60+70)/3 = 50, max 70; memory max 3000;
	// power (100+300+200)/3 = 200, max 300. GPU 1: no power.
	assert.Equal(t, []Summary{
		{Index: 0, Samples: 3, UtilizationN: 3, UtilizationMeanPct: 50, UtilizationMaxPct: 70, MemoryN: 3, MemoryMaxUsedMiB: 3000, MemoryTotalMiB: 80000,
			PowerN: 3, PowerMeanW: 200, PowerMaxW: 300},
		{Index: 1, Samples: 1, UtilizationN: 1, UtilizationMeanPct: 40, UtilizationMaxPct: 40, MemoryN: 1, MemoryMaxUsedMiB: 500, MemoryTotalMiB: 80000},
	}, got)
	assert.Empty(t, Summarize(samples, t0.Add(10*time.Second), t0.Add(11*time.Second)))
	assert.Empty(t, Summarize(nil, t0, t0.Add(time.Hour)))
}

func TestSampler(t *testing.T) {
	s, err := Start(context.Background(), Options{Command: standIn(t), Interval: 20 * time.Millisecond})
	require.NoError(t, err)
	time.Sleep(150 * time.Millisecond)
	got, err := s.Stop()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(got), 4, "two GPUs, at least two rounds")
	// The stand-in counts GPU 0 up from 0 % and 1000 MiB, one step a
	// round; GPU 1 has no power reading.
	var zero []Sample
	for _, smp := range got {
		if smp.Index == 0 {
			zero = append(zero, smp)
		} else {
			assert.False(t, smp.HasPower)
			assert.Equal(t, 50.0, smp.UtilizationPct)
		}
	}
	for i, smp := range zero {
		assert.Equal(t, float64(i), smp.UtilizationPct)
		assert.Equal(t, float64(1000+i), smp.MemoryUsedMiB)
		assert.Equal(t, 300.5, smp.PowerW)
		if i > 0 {
			assert.False(t, smp.At.Before(zero[i-1].At))
		}
	}
}

func TestSamplerBadLines(t *testing.T) {
	t.Setenv("STANDIN_BAD", "1")
	s, err := Start(context.Background(), Options{Command: standIn(t), Interval: 20 * time.Millisecond})
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond)
	got, err := s.Stop()
	require.ErrorIs(t, err, ErrBadSample)
	assert.Contains(t, err.Error(), "No devices were found")
	assert.NotEmpty(t, got, "the good samples are kept")
}

func TestNoNvidiaSMI(t *testing.T) {
	_, err := Start(context.Background(), Options{Command: filepath.Join(t.TempDir(), "nvidia-smi")})
	assert.True(t, errors.Is(err, ErrNoNvidiaSMI), "%v", err)
	assert.Nil(t, Facts(context.Background(), filepath.Join(t.TempDir(), "nvidia-smi")))
}

func TestFacts(t *testing.T) {
	assert.Equal(t, map[string]string{"gpu": "NVIDIA H100 80GB HBM3", "gpu_driver": "550.54.15", "cuda": "12.4"},
		Facts(context.Background(), standIn(t)))
}
