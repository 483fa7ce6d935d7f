package lab

import "golang.org/x/sys/unix"

// KernelRelease returns the running kernel's release, as uname -r prints
// it, or "" when it cannot be read.
func KernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}
