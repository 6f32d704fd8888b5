// Package gpu samples a GPU's utilisation, memory and power during a run,
// through nvidia-smi, and summarizes the samples over a window of the run
// (one prompt length of a TTFT breakdown, one load level). Where nvidia-smi
// is absent the package says so with ErrNoNvidiaSMI and the run goes on
// without telemetry; nothing is guessed.
//
// Units are in the names: utilisation in percent (nvidia-smi's
// utilization.gpu, the share of the last sample period in which a kernel
// ran; not a measure of how busy the GPU's units were), memory in MiB,
// power in watts. A value nvidia-smi reports as [N/A] or [Not Supported]
// is unknown, and summaries count its samples apart.
//
// Errors: Start returns ErrNoNvidiaSMI where the command is not found;
// ParseSample's errors, and Stop's count of lines that were not samples,
// wrap ErrBadSample.
package gpu
