package gpu

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// Facts returns what nvidia-smi says of the machine's first GPU, for a
// run's environment log: "gpu" (its name), "gpu_driver" and "cuda" (the
// CUDA version the driver supports), each only where nvidia-smi gave it.
// command is nvidia-smi's name or path ("" for nvidia-smi on PATH); a
// machine without it gives no facts.
func Facts(ctx context.Context, command string) map[string]string {
	if command == "" {
		command = "nvidia-smi"
	}
	bin, err := exec.LookPath(command)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out := map[string]string{}
	if b, err := exec.CommandContext(ctx, bin, "--query-gpu=name,driver_version", "--format=csv,noheader").Output(); err == nil {
		first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		if name, driver, ok := strings.Cut(first, ","); ok {
			out["gpu"], out["gpu_driver"] = strings.TrimSpace(name), strings.TrimSpace(driver)
		}
	}
	if b, err := exec.CommandContext(ctx, bin).Output(); err == nil {
		if _, rest, ok := strings.Cut(string(b), "CUDA Version:"); ok && len(strings.Fields(rest)) > 0 {
			out["cuda"] = strings.Fields(rest)[0]
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
