//go:build !unix

// Package cputime reads the CPU time the process has used, for the
// benchmarks' cpu-ns figures.
package cputime

import "time"

// Process returns 0: the CPU time is not read here, and callers fall back
// to the wall clock or leave the figure out.
func Process() time.Duration { return 0 }
