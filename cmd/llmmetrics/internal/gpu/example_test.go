package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics/cmd/llmmetrics/internal/gpu"
)

func ExampleParseSample() {
	s, err := gpu.ParseSample("0, 87, 40000, 81559, [N/A]", time.Unix(0, 0))
	fmt.Println(s.Index, s.UtilizationPct, s.MemoryUsedMiB, s.HasPower, err)
	// Output: 0 87 40000 false <nil>
}

func ExampleSummarize() {
	t0 := time.Unix(0, 0)
	var samples []gpu.Sample
	for i, util := range []float64{20, 60, 70} {
		samples = append(samples, gpu.Sample{At: t0.Add(time.Duration(i) * time.Second), UtilizationPct: util, HasUtilization: true,
			PowerW: 100 * float64(i+1), HasPower: true})
	}
	for _, g := range gpu.Summarize(samples, t0, t0.Add(2*time.Second)) {
		fmt.Printf("GPU %d: %d samples, utilisation mean %.0f%% max %.0f%%, power mean %.0f W max %.0f W, memory known in %d\n",
			g.Index, g.Samples, g.UtilizationMeanPct, g.UtilizationMaxPct, g.PowerMeanW, g.PowerMaxW, g.MemoryN)
	}
	// Output: GPU 0: 3 samples, utilisation mean 50% max 70%, power mean 200 W max 300 W, memory known in 0
}

func ExampleStart() {
	// On a machine without nvidia-smi, Start says so and the run goes on
	// without telemetry.
	_, err := gpu.Start(context.Background(), gpu.Options{Command: "/nonexistent/nvidia-smi"})
	fmt.Println(errors.Is(err, gpu.ErrNoNvidiaSMI))
	// Output: true
}

func ExampleSampler_Stop() {
	s, err := gpu.Start(context.Background(), gpu.Options{Command: "testdata/nvidia-smi", Interval: 10 * time.Millisecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(50 * time.Millisecond)
	samples, err := s.Stop()
	fmt.Println(len(samples) >= 2, samples[0].Index, samples[0].MemoryTotalMiB, err)
	// Output: true 0 81559 <nil>
}

func ExampleFacts() {
	fmt.Println(gpu.Facts(context.Background(), "testdata/nvidia-smi"))
	// Output: map[cuda:12.4 gpu:NVIDIA H100 80GB HBM3 gpu_driver:550.54.15]
}

func ExampleSummary_String() {
	g := gpu.Summary{Index: 0, Samples: 12, UtilizationN: 12, UtilizationMeanPct: 71.25, UtilizationMaxPct: 98,
		MemoryN: 12, MemoryMaxUsedMiB: 40110, MemoryTotalMiB: 81559}
	fmt.Println(g)
	// Output: GPU 0: 12 samples, utilisation mean 71.2% (max 98%), memory up to 40110 of 81559 MiB
}
