//go:build !race

package live

// raceEnabled is true when the tests run under the race detector.
const raceEnabled = false
