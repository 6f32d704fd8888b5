// Package parts cuts work on n items into one run for each core and runs
// a function on every run at once.
package parts

import (
	"runtime"
	"sync"
)

// Split splits n items into one range [lo, hi) per core, none of them
// smaller than a few thousand items.
func Split(n int) [][2]int {
	k := max(1, min(runtime.GOMAXPROCS(0), n/4096))
	parts := make([][2]int, k)
	for p := range parts {
		parts[p] = [2]int{n * p / k, n * (p + 1) / k}
	}
	return parts
}

// Each calls fn for each run [lo, hi) of parts, each on a goroutine of
// its own but the first, and waits for them all.
func Each(parts [][2]int, fn func(p, lo, hi int)) {
	var wg sync.WaitGroup
	for p := 1; p < len(parts); p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(p, parts[p][0], parts[p][1])
		}()
	}
	fn(0, parts[0][0], parts[0][1])
	wg.Wait()
}
