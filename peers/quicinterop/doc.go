// Package quicinterop checks gust's QUIC connection engine
// (internal/quic) against quic-go as the real peer, over loopback UDP, in
// both roles: gust's client to a quic-go echo server, and a quic-go client
// to gust's server echoing its streams. It lives in the peers module so
// that the main module never depends on quic-go; its tests drive the
// sans-I/O Conn with a plain net.UDPConn.
package quicinterop
