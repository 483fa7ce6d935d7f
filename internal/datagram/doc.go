// Package datagram is the socket seam for transports that speak in
// datagrams (QUIC, and through it HTTP/3), as internal/transport is for
// byte streams. It is where a UDP socket enters an event loop:
//
//   - Open makes a non-blocking UDP socket, bound (with SO_REUSEPORT, one
//     socket per loop on the same port), which a loop registers with its
//     poller (poll.Poller.Add) like any other descriptor: edge-triggered,
//     so a readable event means "read batches until none is left".
//   - ReadBatch takes up to a Batch's worth of datagrams in one recvmmsg
//     system call, each with its sender's address; WriteBatch sends many
//     in one sendmmsg. A Batch owns its buffers, addresses and the
//     kernel's message headers, made once: reading and writing allocate
//     nothing.
//   - A Router finds the connection a datagram belongs to by its
//     destination connection ID, read by the version-independent rules of
//     RFC 8999 (long headers carry the ID's length, short headers use the
//     length the endpoint chose), not by the sender's address, which may
//     change (NAT rebinding, connection migration).
//
// Probe reports what the kernel offers beyond plain batches (UDP GSO and
// GRO, ECN codepoints read), so a transport can use them where they exist and say so where
// they do not. The protocol engine itself (packets, crypto, recovery) is
// sans-I/O and lives elsewhere: it is fed datagrams and gives datagrams
// and timers back; this package only moves them.
//
// # Files
//
//   - batch_linux.go: Batch, the messages of one recvmmsg or sendmmsg, made once and reused
//   - ecn_linux.go: ECN codepoints: read beside each datagram (EnableECN, Batch.ECN), set on each one sent
//   - route.go: Router, connection IDs to their owners by RFC 8999's invariants
//   - segments_linux.go: GSO sends (Segments, WriteSegments) and GRO reads (EnableGRO, Batch.Segment)
//   - socket_linux.go: Open, SocketOf, ReadBatch, WriteBatch and Probe on Linux
//   - socket_other.go: the portable stand-in, which says datagrams need Linux
package datagram
