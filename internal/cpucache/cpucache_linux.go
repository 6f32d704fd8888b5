package cpucache

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sysCache is where Linux describes the first processor's caches.
var sysCache = "/sys/devices/system/cpu/cpu0/cache"

func l1d() (bytes, sharers int) {
	dirs, _ := filepath.Glob(filepath.Join(sysCache, "index*"))
	for _, d := range dirs {
		if read(d, "level") != "1" || read(d, "type") != "Data" {
			continue
		}
		bytes = parseSize(read(d, "size"))
		sharers = countCPUs(read(d, "shared_cpu_list"))
		if bytes <= 0 || sharers <= 0 {
			return 0, 0
		}
		return bytes, sharers
	}
	return 0, 0
}

func read(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// parseSize reads a size as sysfs writes it: "48K", "1024K", "32M".
func parseSize(s string) int {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0
	}
	return n * mult
}

// countCPUs counts the processors of a list as sysfs writes it: "0",
// "0-1", "0,2", "0-3,8-11"; 0 for one it cannot read.
func countCPUs(list string) int {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, ranged := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0
		}
		b := a
		if ranged {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0
			}
		}
		n += b - a + 1
	}
	return n
}
