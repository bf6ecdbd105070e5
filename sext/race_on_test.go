//go:build race

package main

// raceBuild reports a build with the race detector.
const raceBuild = true
