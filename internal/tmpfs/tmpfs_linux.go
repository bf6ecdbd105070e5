// Package tmpfs gives tests a small file system that fills up: the real
// out-of-space case, which a simulated one only approximates.
package tmpfs

import (
	"os"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size (as mount's size= option reads it) on a new
// directory for the test and unmounts it at the end. Mounting takes root
// (CI runs the tests as root); elsewhere the test is skipped, but under
// CI=true it fails, since CI must run it.
func Mount(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mounting a %s tmpfs on %s: %v (CI runs this test as root)", size, dir, err)
		}
		t.Skipf("mounting a %s tmpfs needs root: %v", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}
