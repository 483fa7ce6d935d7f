//go:build !linux

package load

import (
	"errors"
	"net"
	"net/netip"

	"github.com/gust-http/gust/result"
)

var errNoSockets = errors.New("the load engine needs Linux (epoll)")

type sockaddr struct{}

type sourceAddr struct{}

func newSourceAddr(a netip.Addr) sourceAddr { return sourceAddr{} }

func newSockaddr(a *net.TCPAddr) (sockaddr, error)            { return sockaddr{}, errNoSockets }
func openSocket(sa sockaddr, src *sourceAddr) (int, error)    { return -1, errNoSockets }
func openUDPSocket(sa sockaddr, src *sourceAddr) (int, error) { return -1, errNoSockets }
func connectError(fd int) error                               { return errNoSockets }
func closeSocket(fd int)                                      {}
func enableRXStamps(fd int)                                   {}
func classifyConnect(err error) result.ErrorKind              { return result.ErrConnect }
