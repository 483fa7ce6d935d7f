// Package quicinterop checks gust's QUIC connection engine
// (internal/quic) against quic-go as the real peer, over loopback UDP. It
// lives in the peers module so that the main module never depends on
// quic-go; its test drives the sans-I/O Conn with a plain net.UDPConn.
package quicinterop
