//go:build !unix

package sext

import "time"

// cpuTime is not measured here; benchmarks leave cpu-ns/op out.
func cpuTime() time.Duration { return 0 }
