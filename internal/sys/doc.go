// Package sys holds the raw socket system calls shared by the server's and
// the generator's event loops.
//
// # Files
//
//   - stamp_linux.go: EnableRXStamps and ReadStamped, reads with the kernel's receive stamp
//   - sys_linux.go: Read, Write, Sendfile and SendMore as raw system calls on non-blocking sockets
package sys
