// Package quicgoclient holds the tests that judge gust/server's HTTP/3 with
// quic-go's client, an implementation of QUIC and HTTP/3 independent of
// gust's own.
package quicgoclient
