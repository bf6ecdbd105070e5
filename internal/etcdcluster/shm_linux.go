package etcdcluster

import (
	"os"
	"syscall"
)

// shmMinFree is the room /dev/shm must have for the members' data: each
// member preallocates its 64 MB log segment and the next one (a cluster
// of three takes about 370 MB), and go test runs up to a dozen members
// side by side (two packages, each with a shared cluster and two parallel
// tests' own, on two CPUs).
const shmMinFree = 4 << 30

// memoryDir returns a new directory in /dev/shm where that is a tmpfs
// with shmMinFree bytes free, or "" (a container's 64 MB /dev/shm, say).
func memoryDir() string {
	const tmpfsMagic = 0x01021994
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err != nil || st.Type != tmpfsMagic ||
		st.Bavail*uint64(st.Bsize) < shmMinFree {
		return ""
	}
	dir, err := os.MkdirTemp("/dev/shm", "etcdcluster-")
	if err != nil {
		return ""
	}
	return dir
}
