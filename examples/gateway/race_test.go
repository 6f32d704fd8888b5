//go:build race

package main

// raceDetector is true in a build with the race detector, whose slowdown
// (ten times and more for a thousand proxied streams) the test in front of
// the real server does not need: the plain run of .ci/run covers it.
const raceDetector = true
