package main

import (
	"os"
	"strconv"
	"strings"
)

// The files that hold a container's memory limit: cgroup v2's, then v1's.
// In a Kubernetes pod /proc/meminfo gives the node's memory, not the
// pod's, which these give.
var cgroupLimitFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// usableMemory returns the memory the process may use: the physical
// memory of meminfo, or the first cgroup limit of limitFiles when that is
// less; false when neither can be read.
func usableMemory(meminfo string, limitFiles []string) (int64, bool) {
	total, ok := physicalMemory(meminfo)
	for _, name := range limitFiles {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		// "max" (v2), or a number of bytes; v1 writes a number near 2⁶³
		// for no limit, which the physical memory is below.
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && (!ok || n < total) {
			total, ok = n, true
		}
		break
	}
	return total, ok
}
