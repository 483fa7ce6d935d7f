// Package sys holds the raw socket system calls shared by the server's and
// the generator's event loops.
//
// # Files
//
//   - sys_linux.go: Read, Write, Sendfile and SendMore as raw system calls on non-blocking sockets
package sys
