// Package sys holds the raw socket system calls shared by the server's and
// the generator's event loops.
package sys
