//go:build !linux

package etcdcluster

import (
	"os/exec"
	"syscall"
)

// procAttr sets nothing where process groups and the parent-death signal
// are not to be had the Linux way.
func procAttr() *syscall.SysProcAttr { return nil }

// kill kills the member's process.
func kill(cmd *exec.Cmd) { cmd.Process.Kill() }
