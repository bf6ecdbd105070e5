//go:build !linux

package etcdcluster

// memoryDir returns "": a file system in memory is looked for on Linux
// only.
func memoryDir() string { return "" }
