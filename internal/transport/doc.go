// Package transport is the per-connection read/write seam of gust's event
// loops, server and generator alike: every byte a connection reads or writes
// goes through one Conn. Plain TCP is the socket itself; TLS sits on top of a
// plain Conn: crypto/tls from the standard library, never forked, does the
// handshake, and over TLS 1.3 on AES-GCM the connection then seals and opens
// its records itself with the traffic secrets crypto/tls derived
// (tls13direct.go; GUST_TLS_RECORDS=crypto/tls keeps crypto/tls's records).
//
// # Files
//
//   - cert.go: self-signed ECDSA P-256 certificates, fingerprints, key pairs and CA pools
//   - certverify.go: VerifyErrorLine: a refused certificate said in one line
//   - handshakers.go: handshake goroutines reused, and the gate bounding handshakes at work
//   - plain_linux.go: Plain: the socket itself, one system call per Read or Write
//   - tls.go: TLS: crypto/tls over an in-memory conn, fed whole records
//   - tls13client.go: a client's TLS 1.3 handover once its session cache holds a ticket
//   - tls13direct.go: after a TLS 1.3 handshake, records on the connection's own keys; Quiet, Rest
//   - tls13keys.go: TLS 1.3 record protection: traffic keys, nonces, seal and open, KeyUpdate
//   - tls13secrets.go: the traffic secrets learned from crypto/tls through a per-connection KeyLogWriter
//   - tlsdup_other.go: off Unix, handshakes fail: they need a duplicated socket
//   - tlsdup_unix.go: the socket duplicated (close-on-exec) and read raw for a handshake
//   - tlshandshake.go: the handshake on a short-lived goroutine, then back to the loop
//   - tlsrecord.go: records in pooled buffers, held only while bytes wait
//   - transport.go: Conn (Read, Write, Buffered, FD) and ErrWouldBlock, the loop's contract
package transport
