//go:build race

package charts

// raceEnabled is true when the tests run under the race detector.
const raceEnabled = true
