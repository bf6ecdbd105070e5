//go:build !unix

package main

import "time"

// cpuTime is not measured here; the runner falls back to the wall clock.
func cpuTime() time.Duration { return 0 }
