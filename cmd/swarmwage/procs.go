package main

import (
	"os"
	"runtime"
)

// procsPerCPU is how many Go Ps the binary runs per CPU unless GOMAXPROCS
// is set. A durable commit blocks its goroutine in the write-ahead log's
// sync (fdatasync) for 200-450 µs on a small disk, and the P it holds is handed on only when the runtime's
// monitor notices, which under load can take milliseconds; with more Ps
// than cores another goroutine runs meanwhile. Measured with 'swarmwage
// bench hire --concurrency 32' on 2 cores: GOMAXPROCS=4 gave 444 -> 506
// hires/s and a lower p50 one hire at a time (README, issue 25).
const procsPerCPU = 2

// setProcs raises GOMAXPROCS to procsPerCPU times the runtime's default,
// unless the environment sets GOMAXPROCS: an operator's choice is kept.
func setProcs() {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return
	}
	runtime.GOMAXPROCS(procsPerCPU * runtime.GOMAXPROCS(0))
}
